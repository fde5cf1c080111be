package io.urldedup.state;

/**
 * The classic (unblocked) Bloom filter formulas, the baseline the blocked model is tested against;
 * nothing in the filters uses them, so they live with the tests.
 */
final class ClassicBloomMath {

  private ClassicBloomMath() {}

  /** Optimum bits: m = -n ln(eps) / (ln 2)^2. */
  static double bits(double n, double eps) {
    return -n * Math.log(eps) / (Math.log(2) * Math.log(2));
  }

  /** Optimum probes: k = (m/n) ln 2, at least 1. */
  static int k(double m, double n) {
    return Math.max(1, (int) Math.round(m / n * Math.log(2)));
  }

  /** FPR: (1 - e^{-kn/m})^k. */
  static double fpr(double m, double n, int k) {
    return Math.pow(-Math.expm1(-k * n / m), k);
  }
}
