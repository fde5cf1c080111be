package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StableBloomFilterTest {

  static final double EPS = 0.01;
  static final long MEMORY = 64 << 10;
  static final int NON_MEMBERS = 1_000_000;
  static final int FN_TESTS = 400_000;
  static final double[] FN_LEVELS = {0.01, 0.2, 0.7};

  /**
   * After 10 m distinct inserts (m = cells) the filter is at its stable point (the per-cell chain
   * relaxes in about 1/(K/mb + P/mb) < 10 block arrivals; 10 m inserts give every block 10 mb).
   * <ul>
   *   <li>zero fraction: the brief's bound, |measured - model| <= 0.01 (the binomial sd over
   *       >= 131072 cells is < 0.0014, correlation inside a block at most doubles it);
   *   <li>FPR over 10^6 non-members: within 15% of (1 - z)^K (binomial sd ~1% relative);
   *   <li>false negatives at the gaps where the model gives 1%, 20% and 70%: each of the 400k tests
   *       is a distinct key, so the count is close to Binomial(400k, fn); tolerance = 4 sigma x sqrt(2)
   *       (tested keys inserted within one gap of each other share blocks, overlapping windows
   *       make the tests mildly correlated) + 5% of fn as the model-error allowance (the model
   *       treats the K cells of a key as independent given the block arrivals; they sit in distinct
   *       words with independent decay, and the residual coupling via shared set events measured
   *       below 3%).
   * </ul>
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4})
  void stablePointFprAndForgettingMatchTheModel(int d) {
    FilterHeader h = FilterSpec.stable(EPS, MEMORY, d).newHeader(1);
    FilterMath.StableGeometry g = h.stableGeometry();
    StableBloomFilter f = new StableBloomFilter(h, new HeapPageStore());
    long m = g.cells();
    long i = 0;
    for (; i < 10 * m; i++) {
      f.testAndAdd(Keys.h1(1, i), Keys.h2(1, i));
    }
    double z = f.countZeroCells() / (double) m;
    assertEquals(g.stableZeroFraction(), z, 0.01, "zero fraction");

    long fp = 0;
    for (long j = 0; j < NON_MEMBERS; j++) {
      if (f.mightContain(Keys.h1(2, j), Keys.h2(2, j))) {
        fp++;
      }
    }
    double fpr = fp / (double) NON_MEMBERS;
    assertEquals(g.stableFpr(), fpr, 0.15 * g.stableFpr(), "stable FPR");
    assertEquals(g.stableFpr(), f.estimatedFpr(), 1e-3 * g.stableFpr(), "estimatedFpr at the stable point");

    long[] gaps = new long[FN_LEVELS.length];
    for (int t = 0; t < gaps.length; t++) {
      gaps[t] = gapWhereModelReaches(g, FN_LEVELS[t]);
    }
    long maxGap = gaps[gaps.length - 1];
    long[] fn = new long[gaps.length];
    for (long s = 0; s < FN_TESTS + maxGap; s++, i++) {
      f.testAndAdd(Keys.h1(1, i), Keys.h2(1, i));
      if (s >= maxGap) {
        for (int t = 0; t < gaps.length; t++) {
          long key = i - gaps[t];
          if (!f.mightContain(Keys.h1(1, key), Keys.h2(1, key))) {
            fn[t]++;
          }
        }
      }
    }
    StringBuilder report = new StringBuilder(String.format(
        "stable d=%d %s: zero fraction %.4f (model %.4f), FPR %.5f (model %.5f)", d, g, z,
        g.stableZeroFraction(), fpr, g.stableFpr()));
    for (int t = 0; t < gaps.length; t++) {
      double model = FilterMath.stableFalseNegative(g, gaps[t]);
      double measured = fn[t] / (double) FN_TESTS;
      double sigma = Math.sqrt(model * (1 - model) / FN_TESTS);
      report.append(String.format(", FN at gap %d: %.5f (model %.5f)", gaps[t], measured, model));
      assertEquals(model, measured, 4 * Math.sqrt(2) * sigma + 0.05 * model, "FN at gap " + gaps[t]);
    }
    System.out.println(report);
  }

  static long gapWhereModelReaches(FilterMath.StableGeometry g, double level) {
    long lo = 0;
    long hi = 1;
    while (FilterMath.stableFalseNegative(g, hi) < level) {
      lo = hi;
      hi *= 2;
    }
    while (hi - lo > 1) {
      long mid = (lo + hi) >>> 1;
      if (FilterMath.stableFalseNegative(g, mid) < level) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return hi;
  }

  @Test
  void recentElementsAreNeverForgotten() {
    // FN at gap 0 is 0: right after its insert every cell of the element holds Max >= 1
    for (int d = 1; d <= 4; d++) {
      FilterHeader h = FilterSpec.stable(EPS, MEMORY, d).newHeader(1);
      StableBloomFilter f = new StableBloomFilter(h, new HeapPageStore());
      for (long i = 0; i < 200_000; i++) {
        f.add(Keys.h1(3, i), Keys.h2(3, i));
        assertTrue(f.mightContain(Keys.h1(3, i), Keys.h2(3, i)));
      }
      assertEquals(200_000, h.inserts());
    }
  }

  @Test
  void replayGivesIdenticalDecisionsAndState() {
    UrlHasher hasher = new UrlHasher(0x5eedL);
    FilterSpec spec = FilterSpec.stable(EPS, 16 << 10, 3);
    boolean[][] decisions = new boolean[2][];
    byte[][] bytes = new byte[2][];
    for (int run = 0; run < 2; run++) {
      FilterHeader h = spec.newHeader(hasher.seedFingerprint());
      HeapPageStore pages = new HeapPageStore();
      DedupFilter f = Filters.open(h, pages);
      decisions[run] = new boolean[100_000];
      long[] hash = new long[2];
      for (int i = 0; i < decisions[run].length; i++) {
        // a repeating stream: duplicates at varying distances
        byte[] url = ("https://example.org/p/" + (i * 7919L % 30_011)).getBytes(StandardCharsets.UTF_8);
        hasher.hash(url, 0, url.length, hash);
        decisions[run][i] = f.testAndAdd(hash[0], hash[1]);
      }
      bytes[run] = FilterFormat.toBytes(h, pages);
    }
    assertArrayEquals(decisions[0], decisions[1]);
    assertArrayEquals(bytes[0], bytes[1]);
  }
}
