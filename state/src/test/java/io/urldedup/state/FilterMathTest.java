package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    // more than classic (9.59 / 14.38 bits), and below the split-block (k = 8 fixed) figures 10.5 /
    // 16.9
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
}
