package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FilterMathTest {

  @Test
  void classic() {
    // m = -n ln(eps) / ln(2)^2 = 9,585,058.4 bits for n = 1e6, eps = 1%; k = (m/n) ln 2 = 6.64 -> 7
    assertEquals(9_585_058.4, ClassicBloomMath.bits(1e6, 0.01), 0.1);
    assertEquals(7, ClassicBloomMath.k(9_585_058.4, 1e6));
    assertEquals(0.01, ClassicBloomMath.fpr(9_585_058.4, 1e6, 7), 0.0005);
  }

  @Test
  void blockedLosesAccuracyAndConvergesToClassicForLargeBlocks() {
    for (double c : new double[] {8, 10, 16, 24}) {
      for (int k = 3; k <= 12; k++) {
        double blocked = FilterMath.blockedFpr(c, k);
        double classic = ClassicBloomMath.fpr(c, 1, k);
        assertTrue(blocked > classic, "blocking costs accuracy: c=" + c + " k=" + k);
      }
    }
    // at c = 10 bits, k = 7 the blocked model is within 30% of classic (Putze et al. Fig. 2 region)
    assertTrue(FilterMath.blockedFpr(10, 7) < 1.3 * ClassicBloomMath.fpr(10, 1, 7));
  }

  @Test
  void blockedSizingMinimisesBits() {
    FilterMath.BlockedSizing s1 = FilterMath.blockedSizing(0.01);
    FilterMath.BlockedSizing s2 = FilterMath.blockedSizing(0.001);
    assertEquals(0.01, FilterMath.blockedFpr(s1.bitsPerElement(), s1.k()), 1e-9);
    assertEquals(0.001, FilterMath.blockedFpr(s2.bitsPerElement(), s2.k()), 1e-10);
    // more than classic (9.59 / 14.38 bits), and below the split-block (k = 8 fixed) figures 10.5 / 16.9
    assertTrue(s1.bitsPerElement() > 9.59 && s1.bitsPerElement() < 10.5, "" + s1);
    assertTrue(s2.bitsPerElement() > 14.38 && s2.bitsPerElement() < 16.9, "" + s2);
    for (int k = 1; k <= FilterMath.MAX_K; k++) {
      assertTrue(FilterMath.blockedBitsFor(0.01, k) >= s1.bitsPerElement());
    }
  }

  @Test
  void blockedBinomialApproachesPoissonForManyBlocks() {
    double poisson = FilterMath.blockedFprAtLoad(50, 7);
    assertEquals(poisson, FilterMath.blockedFpr(50L << 16, 1L << 16, 7), 1e-3 * poisson);
    assertTrue(FilterMath.blockedFpr(1000, 20, 7) < FilterMath.blockedFprAtLoad(50, 7));
  }

  @Test
  void stableZeroFractionIsTheStationaryPointOfTheCellChain() {
    for (int d = 1; d <= 4; d++) {
      int max = (1 << d) - 1;
      for (int k = 1; k <= 8; k++) {
        long mb = 168;
        int p = FilterMath.stableP(0.01, k, mb, max);
        if (p > mb) {
          continue;
        }
        double[][] t = FilterMath.cellChain(k, p, mb, max);
        double stationary = FilterMath.power(t, 1L << 30)[max][0];
        // 30 squarings accumulate ~1e-9 of rounding
        assertEquals(FilterMath.stableZeroFraction(p, k, mb, max), stationary, 1e-7, "d=" + d + " k=" + k);
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
            int p = FilterMath.stableP(eps, k, mb, max);
            if (p > mb || k >= mb) {
              continue;
            }
            assertTrue(FilterMath.stableFpr(p, k, mb, max) <= eps * (1 + 1e-9), "meets target");
            if (p > 1) {
              assertTrue(FilterMath.stableFpr(p - 1, k, mb, max) > eps, "P-1 misses it: d=" + d + " k=" + k);
            }
          }
        }
      }
    }
    // DESIGN.md: m = 2^30, K = 3, eps = 1%, Max = 1: floor gives 10 -> 1.23%; ceil gives 11 <= 1%
    assertEquals(11, FilterMath.stableP(0.01, 3, 1L << 30, 1));
    assertEquals(0.0123, FilterMath.stableFpr(10, 3, 1L << 30, 1), 0.0001);
  }

  @Test
  void falseNegativeModelShapeAndCost() {
    FilterMath.StableGeometry g = FilterSpec.stable(0.01, 1L << 26, 3).newHeader(0).stableGeometry();
    assertEquals(0, FilterMath.stableFalseNegative(g, 0));
    double previous = 0;
    for (long gap = 1000; gap <= 1_000_000_000L; gap *= 10) {
      double fn = FilterMath.stableFalseNegative(g, gap);
      assertTrue(fn >= previous, "non-decreasing in the gap");
      previous = fn;
    }
    // long after its insert an element is as likely remembered as a non-member: 1 - FN -> stable FPR
    assertEquals(1 - g.stableFpr(), FilterMath.stableFalseNegative(g, 1_000_000_000L), 1e-6);
    long t0 = System.nanoTime();
    FilterMath.stableFalseNegative(FilterSpec.stable(0.01, 1L << 34, 3).newHeader(0).stableGeometry(), 1_000_000_000L);
    assertTrue(System.nanoTime() - t0 < 2_000_000_000L, "g = 1e9 must be cheap");
  }

  /**
   * The FN model against a direct simulation of its own assumptions (Binomial block arrivals, K
   * independent cells each following set/decrement events): checks the matrix-power and
   * binomial-sum code, independently of the filter. 200k trials: 4 sigma of Binomial(200k, fn).
   */
  @Test
  void falseNegativeModelMatchesMonteCarloOfTheChain() {
    FilterMath.StableGeometry g = new FilterMath.StableGeometry(2, 4, 20, 8, 64);
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
        for (long at = -1; at < gap; at += 1 + (long) Math.floor(Math.log(1 - rnd.nextDouble()) / logMiss)) {
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
      double model = FilterMath.stableFalseNegative(g, gap);
      double measured = fn / (double) trials;
      assertEquals(model, measured, 4 * Math.sqrt(model * (1 - model) / trials) + 1e-4, "gap " + gap);
    }
  }

  @Test
  void scalableSlicesAndMemory() {
    FilterSpec spec = FilterSpec.scalable(0.01, 1000, 2, 0.5, 1L << 30);
    assertEquals(0.005, FilterMath.scalableSliceFpr(0.01, 0.5, 0), 1e-15);
    assertEquals(0.00125, FilterMath.scalableSliceFpr(0.01, 0.5, 2), 1e-15);
    assertEquals(4000, FilterMath.scalableSliceCapacity(1000, 2, 2));
    assertEquals(1, FilterMath.scalableUsage(spec, 1000).slices());
    assertEquals(2, FilterMath.scalableUsage(spec, 1001).slices());
    assertEquals(2, FilterMath.scalableUsage(spec, 3000).slices());
    assertEquals(3, FilterMath.scalableUsage(spec, 3001).slices());
    FilterMath.ScalableUsage u = FilterMath.scalableUsage(spec, 1_000_000);
    long bytes = 0;
    for (int i = 0; i < u.slices(); i++) {
      bytes += FilterMath.scalableSliceBytes(0.01, 1000, 2, 0.5, i);
    }
    assertEquals(bytes, u.bytes());
    assertTrue(u.fprBound() < 0.01 && !u.saturated());
    FilterSpec capped = FilterSpec.scalable(0.01, 1000, 2, 0.5, 64 << 10);
    FilterMath.ScalableUsage c = FilterMath.scalableUsage(capped, 10_000_000);
    assertTrue(c.saturated() && c.bytes() <= 64 << 10 && c.fprBound() > 0.01, "" + c);
  }

  @Test
  void stableGeometryKeepsAnInsertInsideOneBlock() {
    for (int d = 1; d <= 4; d++) {
      for (double eps : new double[] {0.05, 0.01, 0.001}) {
        FilterMath.StableGeometry g = FilterMath.stableGeometry(eps, 1 << 20, d);
        assertTrue(g.p() <= g.cellsPerBlock() && g.k() <= g.blockWords(), "" + g);
        assertTrue(g.stableFpr() <= eps, "" + g);
        assertTrue(g.bytes() <= 1 << 20);
      }
    }
  }
}
