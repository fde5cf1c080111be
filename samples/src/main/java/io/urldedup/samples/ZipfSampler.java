package io.urldedup.samples;

import java.util.function.DoubleSupplier;

/**
 * Zipf(n, s) ranks 1..n in O(1) per draw by rejection-inversion (Hörmann and Derflinger,
 * "Rejection- inversion to generate variates from monotone discrete distributions", ACM TOMACS
 * 1996), the method of Apache Commons RNG's RejectionInversionZipfSampler. No table: n can be 10^9.
 */
final class ZipfSampler {
  private final long n;
  private final double s;
  private final double hIntegralX1;
  private final double hIntegralN;
  private final double sCst;

  ZipfSampler(long n, double s) {
    if (n < 1) {
      throw new IllegalArgumentException("Zipf n must be >= 1, got " + n);
    }
    if (!(s > 0)) {
      throw new IllegalArgumentException("Zipf exponent must be > 0, got " + s);
    }
    this.n = n;
    this.s = s;
    this.hIntegralX1 = hIntegral(1.5) - 1.0;
    this.hIntegralN = hIntegral(n + 0.5);
    this.sCst = 2.0 - hIntegralInverse(hIntegral(2.5) - h(2.0));
  }

  /** A rank in [1, n]; {@code uniform} yields doubles in [0, 1). */
  long sample(DoubleSupplier uniform) {
    while (true) {
      double u = hIntegralN + uniform.getAsDouble() * (hIntegralX1 - hIntegralN);
      double x = hIntegralInverse(u);
      long k = (long) (x + 0.5);
      if (k < 1) {
        k = 1;
      } else if (k > n) {
        k = n;
      }
      if (k - x <= sCst || u >= hIntegral(k + 0.5) - h(k)) {
        return k;
      }
    }
  }

  private double h(double x) {
    return Math.exp(-s * Math.log(x));
  }

  /** H(x) = integral of x^-s, written so that s = 1 needs no special case. */
  private double hIntegral(double x) {
    double logX = Math.log(x);
    return helper2((1.0 - s) * logX) * logX;
  }

  private double hIntegralInverse(double x) {
    double t = x * (1.0 - s);
    if (t < -1.0) {
      t = -1.0; // rounding near the lower bound
    }
    return Math.exp(helper1(t) * x);
  }

  /** log(1+x)/x, continuous at 0. */
  private static double helper1(double x) {
    return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x));
  }

  /** (e^x - 1)/x, continuous at 0. */
  private static double helper2(double x) {
    return Math.abs(x) > 1e-8
        ? Math.expm1(x) / x
        : 1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x));
  }
}
