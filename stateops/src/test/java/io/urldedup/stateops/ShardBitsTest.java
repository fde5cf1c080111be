package io.urldedup.stateops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.StableHolding;
import io.urldedup.state.UrlMapping;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * inspect's distinct estimates against the truth, on filters built directly over heap pages (no
 * cluster: the reader job only moves the same pages into {@link ShardBits}), at 10^4..10^7 URLs
 * (about 5 s in all). Tolerance: 4 standard deviations of the estimate (Swamidass & Baldi's
 * variance, summed over independent blocks; a normal deviate beyond 4 sd has probability 6e-5),
 * fixed seeds. Without the second-order bias correction the scalable estimate was 5.5 sd high at
 * 10^7 and the aged one 15 sd: the test catches that.
 */
class ShardBitsTest {

  private static final UrlMapping MAPPING = UrlMapping.seedOnly(1);

  static ShardReport bits(FilterHeader h, HeapPageStore store) {
    ShardBits b = new ShardBits(h);
    store.forEachPageId(id -> b.page(id, store.page(id)));
    return b.report(0);
  }

  static double sum(double[] a) {
    double t = 0;
    for (double v : a) {
      t += v;
    }
    return t;
  }

  @ParameterizedTest(name = "scalable, {0} URLs")
  @ValueSource(ints = {10_000, 100_000, 1_000_000, 10_000_000})
  void scalableBitEstimate(int n) {
    FilterSpec spec = FilterSpec.scalable(0.01, n, 2, 0.5, 1L << 34);
    HeapPageStore store = new HeapPageStore();
    DedupFilter f = Filters.open(spec.newHeader(MAPPING), store);
    SplittableRandom r = new SplittableRandom(n);
    for (int i = 0; i < n; i++) {
      f.testAndAdd(r.nextLong(), r.nextLong());
    }
    assertEquals(1, f.header().slices(), "sized for one slice");
    ShardReport rep = bits(f.header(), store);
    double est = sum(rep.bitEstimate);
    double sd = Math.sqrt(sum(rep.bitEstimateVariance));
    // the truth is n: every URL reached the only slice and threw its k probes, including the few
    // first arrivals answered seen falsely (not counted in the header's inserts: they set no bit)
    assertTrue(
        Math.abs(est - n) <= 4 * sd,
        "bits say "
            + est
            + " +- "
            + sd
            + " for "
            + n
            + " URLs ("
            + f.header().inserts()
            + " inserted)");
  }

  @ParameterizedTest(name = "aged, {0} URLs")
  @ValueSource(ints = {10_000, 100_000, 1_000_000, 10_000_000})
  void agedRingEstimate(int n) {
    FilterSpec spec = FilterSpec.agedCount(0.01, n / 4, 0);
    HeapPageStore store = new HeapPageStore();
    DedupFilter f = Filters.open(spec.newHeader(MAPPING), store);
    SplittableRandom r = new SplittableRandom(n);
    for (int i = 0; i < n; i++) {
      f.testAndAdd(r.nextLong(), r.nextLong());
    }
    ShardReport rep = bits(f.header(), store);
    int k = f.header().agedGeometry().k();
    double est = sum(rep.bitEstimate) / k;
    double sd = Math.sqrt(sum(rep.bitEstimateVariance)) / k;
    io.urldedup.state.AgedClock c = f.header().agedClock();
    int ring = f.header().agedGeometry().slices();
    double bitsModel = (double) k * c.count();
    for (int t = 1; t <= Math.min(c.generation(), ring - 1); t++) {
      bitsModel += (double) f.header().agedGeometry().generationSize() * Math.min(k, ring - t);
    }
    double model = bitsModel / k;
    // exact: what the inserts of the last k + l generations left in the ring (see
    // AgedStateReport.ringModel)
    assertTrue(
        Math.abs(est - model) <= 4 * sd, "bits say " + est + " +- " + sd + ", the clock " + model);
    assertTrue(c.generation() > 2L * ring, "the ring turned: generation " + c.generation());
    // the bits' FPR now is at most the model's end-of-generation FPR, which sizing put under --fpr
    assertTrue(rep.measuredFpr[0] <= spec.fpr(), "FPR from the bits " + rep.measuredFpr[0]);
  }

  /**
   * Stable (inspect prints the model's estimate of what is held): the URLs inserted that the filter
   * still answers seen, against {@link StableHolding}.
   */
  @ParameterizedTest(name = "stable, {0} URLs")
  @ValueSource(ints = {10_000, 100_000, 1_000_000})
  void stableHeld(int n) {
    FilterSpec spec = FilterSpec.stable(0.01, Math.max(4096, n / 2), 2);
    HeapPageStore store = new HeapPageStore();
    DedupFilter f = Filters.open(spec.newHeader(MAPPING), store);
    SplittableRandom r = new SplittableRandom(n);
    for (int i = 0; i < n; i++) {
      f.testAndAdd(r.nextLong(), r.nextLong());
    }
    r = new SplittableRandom(n);
    long held = 0;
    for (int i = 0; i < n; i++) {
      held += f.mightContain(r.nextLong(), r.nextLong()) ? 1 : 0;
    }
    double model = new StableHolding(f.header().stableGeometry()).held(f.header().inserts());
    // held is a sum of Bernoulli(1 - FN(age)) over the inserted URLs, variance at most its mean
    assertTrue(
        Math.abs(held - model) <= 4 * Math.sqrt(model) + 1, "held " + held + ", model " + model);
    assertTrue(held < f.header().inserts() / 2, "the filter forgets at this size: " + held);
  }
}
