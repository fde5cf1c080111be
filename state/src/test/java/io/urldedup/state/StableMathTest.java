package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class StableMathTest {

  @Test
  void stableZeroFractionIsTheStationaryPointOfTheCellChain() {
    for (int d = 1; d <= 4; d++) {
      int max = (1 << d) - 1;
      for (int k = 1; k <= 8; k++) {
        long mb = 168;
        int p = StableMath.decrementsFor(0.01, k, mb, max);
        if (p > mb) {
          continue;
        }
        double[][] t = StableMath.cellChain(k, p, mb, max);
        double stationary = StableMath.power(t, 1L << 30)[max][0];
        // 30 squarings accumulate ~1e-9 of rounding
        assertEquals(
            StableMath.zeroFraction(p, k, mb, max), stationary, 1e-7, "d=" + d + " k=" + k);
      }
    }
  }

  @Test
  void stablePIsRoundedUp() {
    for (int d = 1; d <= 4; d++) {
      int max = (1 << d) - 1;
      for (int k = 1; k <= 8; k++) {
        for (double eps : new double[] {0.1, 0.01, 0.001}) {
          for (long mb : new long[] {168, 512, 1L << 30}) {
            int p = StableMath.decrementsFor(eps, k, mb, max);
            if (p > mb || k >= mb) {
              continue;
            }
            assertTrue(StableMath.fpr(p, k, mb, max) <= eps * (1 + 1e-9), "meets target");
            if (p > 1) {
              assertTrue(
                  StableMath.fpr(p - 1, k, mb, max) > eps, "P-1 misses it: d=" + d + " k=" + k);
            }
          }
        }
      }
    }
    // DESIGN.md: m = 2^30, K = 3, eps = 1%, Max = 1: floor gives 10 -> 1.23%; ceil gives 11 <= 1%
    assertEquals(11, StableMath.decrementsFor(0.01, 3, 1L << 30, 1));
    assertEquals(0.0123, StableMath.fpr(10, 3, 1L << 30, 1), 0.0001);
  }

  @Test
  void falseNegativeModelShapeAndCost() {
    StableMath.Geometry g = FilterSpec.stable(0.01, 1L << 26, 3).newHeader(0).stableGeometry();
    assertEquals(0, StableMath.falseNegative(g, 0));
    double previous = 0;
    for (long gap = 1000; gap <= 1_000_000_000L; gap *= 10) {
      double fn = StableMath.falseNegative(g, gap);
      assertTrue(fn >= previous, "non-decreasing in the gap");
      previous = fn;
    }
    // long after its insert an element is as likely remembered as a non-member: 1 - FN -> stable
    // FPR
    assertEquals(1 - g.stableFpr(), StableMath.falseNegative(g, 1_000_000_000L), 1e-6);
    long t0 = System.nanoTime();
    StableMath.falseNegative(
        FilterSpec.stable(0.01, 1L << 34, 3).newHeader(0).stableGeometry(), 1_000_000_000L);
    assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "g = 1e9 must be cheap");
  }

  /**
   * The FN model against a direct simulation of its own assumptions (Binomial block arrivals, K
   * independent cells each following set/decrement events): checks the matrix-power and
   * binomial-sum code, independently of the filter. 200k trials: 4 sigma of Binomial(200k, fn).
   */
  @Test
  void falseNegativeModelMatchesMonteCarloOfTheChain() {
    StableMath.Geometry g = new StableMath.Geometry(2, 4, 20, 8, 64);
    long mb = g.cellsPerBlock();
    double q = (double) g.k() / mb;
    double dec = (double) g.p() / mb;
    SplittableRandom rnd = new SplittableRandom(77);
    for (long gap : new long[] {300, 800, 2000}) {
      int trials = 200_000;
      int fn = 0;
      for (int t = 0; t < trials; t++) {
        // j ~ Binomial(gap, 1/blocks) by geometric skips between the block's arrivals
        int j = -1;
        double logMiss = Math.log1p(-1.0 / g.blocks());
        for (long at = -1;
            at < gap;
            at += 1 + (long) Math.floor(Math.log(1 - rnd.nextDouble()) / logMiss)) {
          j++;
        }
        boolean forgotten = false;
        for (int c = 0; c < g.k(); c++) {
          int v = g.max();
          for (int a = 0; a < j; a++) {
            if (rnd.nextDouble() < q) {
              v = g.max();
            } else if (rnd.nextDouble() < dec) {
              v = Math.max(0, v - 1);
            }
          }
          forgotten |= v == 0;
        }
        if (forgotten) {
          fn++;
        }
      }
      double model = StableMath.falseNegative(g, gap);
      double measured = fn / (double) trials;
      assertEquals(
          model, measured, 4 * Math.sqrt(model * (1 - model) / trials) + 1e-4, "gap " + gap);
    }
  }

  @Test
  void stableGeometryKeepsAnInsertInsideOneBlock() {
    for (int d = 1; d <= 4; d++) {
      for (double eps : new double[] {0.05, 0.01, 0.001}) {
        StableMath.Geometry g = StableMath.geometry(eps, 1 << 20, d);
        assertTrue(g.p() <= g.cellsPerBlock() && g.k() <= g.blockWords(), "" + g);
        assertTrue(g.stableFpr() <= eps, "" + g);
        assertTrue(g.bytes() <= 1 << 20);
      }
    }
  }
}
