package io.urldedup.state;

import java.util.Arrays;

/**
 * How many distinct URLs a stable filter is expected to still hold (answer "seen") after n inserts
 * from empty: H(n) = sum over the n inserted URLs of 1 - FN(age), ages 0..n-1 in inserts since
 * ({@link StableMath#falseNegative}; a repeat is a read, so the inserts are the distinct URLs the
 * filter took in). H grows like n while nothing is forgotten and levels off at the filter's
 * retention.
 *
 * <p>FN costs up to milliseconds, so H is tabulated once per geometry on a grid (exact up to 64,
 * then 2% apart) by the trapezoidal rule and interpolated linearly; 1 - FN is smooth and
 * decreasing, so the rule's error over a 2% step is far below the model's own approximation
 * (independent cells given the block's arrivals).
 */
public final class StableHolding {

  private static final int EXACT = 64;
  private static final double STEP = 1.02;

  private final StableMath.Geometry geometry;
  private long[] at = new long[0];
  private double[] held = new double[0];

  public StableHolding(StableMath.Geometry geometry) {
    this.geometry = geometry;
  }

  /** Expected URLs held after {@code inserts} inserts from empty. */
  public double held(long inserts) {
    if (inserts <= 0) {
      return 0;
    }
    if (at.length == 0 || at[at.length - 1] < inserts) {
      extend(
          Math.max(
              inserts,
              at.length == 0 ? 0 : 2 * at[at.length - 1])); // doubling: rebuilt O(log n) times
    }
    int i = Arrays.binarySearch(at, inserts);
    if (i >= 0) {
      return held[i];
    }
    i = -i - 1;
    double f = (double) (inserts - at[i - 1]) / (at[i] - at[i - 1]);
    return held[i - 1] + f * (held[i] - held[i - 1]);
  }

  private void extend(long upTo) {
    long[] x = new long[64];
    double[] h = new double[64];
    int n = 0;
    double fPrev = 1; // 1 - FN(0): a URL just inserted is held
    double sum = 0;
    long prev = 0;
    x[n] = 0;
    h[n++] = 0;
    for (long a = 1; prev < upTo; ) {
      double f = 1 - StableMath.falseNegative(geometry, a);
      sum += 0.5 * (fPrev + f) * (a - prev); // ages prev..a-1, trapezoid
      if (n == x.length) {
        x = Arrays.copyOf(x, 2 * n);
        h = Arrays.copyOf(h, 2 * n);
      }
      x[n] = a;
      h[n++] = sum;
      prev = a;
      fPrev = f;
      a = a < EXACT ? a + 1 : Math.max(a + 1, (long) Math.ceil(a * STEP));
    }
    at = Arrays.copyOf(x, n);
    held = Arrays.copyOf(h, n);
  }
}
