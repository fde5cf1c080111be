package io.urldedup.state;

import org.junit.jupiter.api.Test;

class StableExplore {
  @Test
  void explore() {
    for (int d = 1; d <= 4; d++) {
      FilterSpec spec = FilterSpec.stable(0.01, 64 << 10, d);
      FilterHeader h = spec.newHeader(1);
      FilterMath.StableGeometry g = h.stableGeometry();
      StableBloomFilter f = new StableBloomFilter(h, new HeapPageStore());
      long m = g.cells();
      long t0 = System.nanoTime();
      long i = 0;
      for (; i < 10 * m; i++) {
        f.testAndAdd(Keys.h1(1, i), Keys.h2(1, i));
      }
      double z = f.countZeroCells() / (double) m;
      long fp = 0;
      int nm = 1_000_000;
      for (long j = 0; j < nm; j++) {
        if (f.mightContain(Keys.h1(2, j), Keys.h2(2, j))) fp++;
      }
      System.out.printf("d=%d %s m=%d z=%.4f model=%.4f fpr=%.5f model=%.5f ms=%d%n", d, g, m, z,
          g.stableZeroFraction(), fp / (double) nm, g.stableFpr(), (System.nanoTime() - t0) / 1_000_000);
      // FN at gaps
      long[] gaps = new long[3];
      double[] targets = {0.01, 0.2, 0.7};
      for (int t = 0; t < 3; t++) {
        long lo = 1, hi = 1L << 30;
        while (hi - lo > 1) { long mid = (lo + hi) / 2; if (FilterMath.stableFalseNegative(g, mid) < targets[t]) lo = mid; else hi = mid; }
        gaps[t] = hi;
      }
      long maxGap = gaps[2];
      long steps = 400_000;
      long[] fn = new long[3];
      long base = i;
      for (long s = 0; s < steps + maxGap; s++, i++) {
        f.testAndAdd(Keys.h1(1, i), Keys.h2(1, i));
        if (s >= maxGap) {
          for (int t = 0; t < 3; t++) {
            long k = i - gaps[t];
            if (!f.mightContain(Keys.h1(1, k), Keys.h2(1, k))) fn[t]++;
          }
        }
      }
      for (int t = 0; t < 3; t++) {
        System.out.printf("   gap=%d fn=%.5f model=%.5f%n", gaps[t], fn[t] / (double) steps, FilterMath.stableFalseNegative(g, gaps[t]));
      }
    }
  }
}
