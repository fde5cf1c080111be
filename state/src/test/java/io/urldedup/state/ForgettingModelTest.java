package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ForgettingModelTest {

  static final int ARRIVALS = 600_000;
  static final double NEW = 0.3;
  static final int RECENT = 5_000;
  static final int REPLAYS = 20;

  /**
   * A crawl-like stream, 70% repeats: half of them skewed to the oldest URLs (id = distinct * u^4,
   * a few hot pages linked from everywhere), half uniform over the last 5,000 new URLs (a site's
   * navigation links). One 64 KiB stable filter (shards = 1) ends far past its stable point (about
   * 180,000 inserts, each decrementing P of the 262,144 / d cells).
   *
   * <p>Re-emissions counted in the filter against {@link ForgettingModel}'s replays of the same
   * stream, which bracket it between the low and the high law: the count must lie in [low - tol,
   * high + tol], tol = 4 sd (the sd of the count over the replays, at least sqrt(mean)) plus 3% of
   * the mean for the approximation both laws share (a URL's K cells independent given the block
   * inserts; StableBloomFilterTest measures it below 3%). With every arrival inserted (Deng &
   * Rafiei as published), this stream re-emitted about 4x the model's count at d = 2; see
   * StableBloomFilter.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3})
  void reemissionsOnARepeatHeavyStreamFollowTheModel(int d) {
    FilterHeader h = FilterSpec.stable(0.01, 64 << 10, d).newHeader(1);
    StableBloomFilter f = new StableBloomFilter(h, new HeapPageStore());
    int[] ids = new int[ARRIVALS];
    SplittableRandom rnd = new SplittableRandom(20261201L + d);
    int distinct = 0;
    long reemitted = 0;
    boolean[] known = new boolean[ARRIVALS];
    for (int i = 0; i < ARRIVALS; i++) {
      int id;
      if (distinct == 0 || rnd.nextDouble() < NEW) {
        id = distinct++;
      } else if (rnd.nextBoolean()) {
        double u = rnd.nextDouble();
        id = (int) (distinct * u * u * u * u);
      } else {
        id = distinct - 1 - rnd.nextInt(Math.min(distinct, RECENT));
      }
      ids[i] = id;
      boolean seen = f.testAndAdd(Keys.h1(7, id), Keys.h2(7, id));
      if (!seen && known[id]) {
        reemitted++;
      }
      known[id] = true;
    }
    ForgettingModel.Estimate e =
        new ForgettingModel(h.stableGeometry(), ARRIVALS)
            .reemissions(ids, distinct, 1, REPLAYS, 99);
    System.out.printf(
        "forgetting d=%d %s: %d distinct, %d inserts, re-emitted %d, model [%.1f, %.1f] (sd %.1f)%n",
        d, h.stableGeometry(), distinct, h.inserts(), reemitted, e.low(), e.high(), e.sd());
    double lowTol = 4 * Math.max(e.sd(), Math.sqrt(e.low())) + 0.03 * e.low();
    double highTol = 4 * Math.max(e.sd(), Math.sqrt(e.high())) + 0.03 * e.high();
    assertTrue(
        reemitted >= e.low() - lowTol, "re-emitted " + reemitted + " below the low law " + e.low());
    assertTrue(
        reemitted <= e.high() + highTol,
        "re-emitted " + reemitted + " above the high law " + e.high());
  }
}
