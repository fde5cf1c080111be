package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScalableBloomFilterTest {

  static final int NON_MEMBERS = 1_000_000;

  static double measureFpr(DedupFilter f, long stream) {
    long fp = 0;
    for (int i = 0; i < NON_MEMBERS; i++) {
      if (f.mightContain(Keys.h1(stream, i), Keys.h2(stream, i))) {
        fp++;
      }
    }
    return fp / (double) NON_MEMBERS;
  }

  /**
   * 100x the initial capacity (n0 = 1000, eps = 1%, s = 2, r = 0.5): zero false negatives; the
   * measured FPR is <= eps (the compound bound) and within 4 binomial sigma of estimatedFpr(), the
   * blocked model of each slice at its actual load combined as 1 - prod(1 - f_i).
   */
  @Test
  void hundredTimesInitialCapacity() {
    FilterSpec spec = FilterSpec.scalable(0.01, 1000, 2, 0.5, 64L << 20);
    FilterHeader h = spec.newHeader(9);
    ScalableBloomFilter f = (ScalableBloomFilter) Filters.open(h, new HeapPageStore());
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      f.testAndAdd(Keys.h1(21, i), Keys.h2(21, i));
    }
    for (int i = 0; i < n; i++) {
      assertTrue(f.mightContain(Keys.h1(21, i), Keys.h2(21, i)), "false negative at " + i);
    }
    double measured = measureFpr(f, 22);
    double model = f.estimatedFpr();
    double sigma = Math.sqrt(model * (1 - model) / NON_MEMBERS);
    System.out.printf(
        "scalable 100x: slices=%d bytes=%d inserted=%d measured FPR=%.5f model=%.5f bound=%.3f%n",
        f.sliceCount(), f.sizeBytes(), h.inserts(), measured, model, spec.fpr());
    assertEquals(7, f.sliceCount(), "1000 (1 + 2 + ... + 64) = 127000 >= 100000 > 63000");
    assertFalse(f.saturated());
    assertTrue(measured <= spec.fpr(), "measured " + measured);
    assertEquals(model, measured, 4 * sigma);
    assertTrue(model <= spec.fpr());
  }

  /**
   * Repeats are not new elements: 0.9 n0 distinct URLs each presented three times stay in the first
   * slice (counting every presentation grew a second slice at n0 / 3 distinct), with no false
   * negatives, and the insert counter is the distinct count less the slice's few
   * self-false-positives (each distinct URL's first presentation finds all its bits set with
   * probability <= eps (1 - r) = 0.5%: the counter is within 0.5% + 4 sigma of 0.9 n0).
   */
  @Test
  void repeatsDoNotGrowSlices() {
    FilterSpec spec = FilterSpec.scalable(0.01, 10_000, 2, 0.5, 64L << 20);
    FilterHeader h = spec.newHeader(9);
    ScalableBloomFilter f = (ScalableBloomFilter) Filters.open(h, new HeapPageStore());
    int distinct = 9_000;
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < distinct; i++) {
        boolean seen = f.testAndAdd(Keys.h1(41, i), Keys.h2(41, i));
        if (round > 0) {
          assertTrue(seen, "false negative at " + i);
        }
      }
    }
    assertEquals(1, f.sliceCount(), "9000 distinct URLs fit the first slice of 10000");
    double p = 0.005;
    double slack = distinct * p + 4 * Math.sqrt(distinct * p * (1 - p));
    assertTrue(
        h.inserts() <= distinct && h.inserts() >= distinct - slack, "inserts " + h.inserts());
  }

  /**
   * Memory cap of three slices: growth stops, the last slice is overfilled, saturated() turns on,
   * estimatedFpr() rises with the overfill and matches the measured FPR (4 sigma) at two overfill
   * levels; raising the cap (adopt) lets it grow again.
   */
  @Test
  void capStopsGrowthAndFprRisesAsModelled() {
    long n0 = 2000;
    double eps = 0.01;
    long cap = 0;
    for (int i = 0; i < 3; i++) {
      cap += ScalableMath.sliceBytes(eps, n0, 2, 0.5, i);
    }
    FilterSpec spec = FilterSpec.scalable(eps, n0, 2, 0.5, cap);
    FilterHeader h = spec.newHeader(9);
    HeapPageStore pages = new HeapPageStore();
    ScalableBloomFilter f = (ScalableBloomFilter) Filters.open(h, pages);
    long full = n0 * (1 + 2 + 4);
    long i = 0;
    for (; i < full - 200; i++) {
      f.testAndAdd(Keys.h1(31, i), Keys.h2(31, i));
    }
    assertFalse(f.saturated());
    double before = f.estimatedFpr();
    for (; i < 2 * full; i++) {
      f.testAndAdd(Keys.h1(31, i), Keys.h2(31, i));
    }
    assertTrue(f.saturated());
    assertEquals(3, f.sliceCount());
    assertTrue(f.sizeBytes() <= cap && pages.bytes() <= cap, f.sizeBytes() + " > " + cap);
    double at2x = f.estimatedFpr();
    double measured2x = measureFpr(f, 32);
    for (; i < 3 * full; i++) {
      f.testAndAdd(Keys.h1(31, i), Keys.h2(31, i));
    }
    double at3x = f.estimatedFpr();
    double measured3x = measureFpr(f, 33);
    System.out.printf(
        "scalable cap: FPR model %.5f -> %.5f (2x) -> %.5f (3x); measured %.5f (2x), %.5f (3x)%n",
        before, at2x, at3x, measured2x, measured3x);
    assertTrue(
        before < eps && at2x > eps && at3x > at2x, "estimatedFpr must rise with the overfill");
    assertEquals(at2x, measured2x, 4 * Math.sqrt(at2x * (1 - at2x) / NON_MEMBERS));
    assertEquals(at3x, measured3x, 4 * Math.sqrt(at3x * (1 - at3x) / NON_MEMBERS));
    for (long j = 0; j < i; j++) {
      assertTrue(f.mightContain(Keys.h1(31, j), Keys.h2(31, j)));
    }
    FilterSpec raised = FilterSpec.scalable(eps, n0, 2, 0.5, 4 * cap);
    h.checkCompatible(raised, h.mapping(), false);
    h.adopt(raised, h.mapping());
    DedupFilter reopened = Filters.open(h, pages);
    reopened.testAndAdd(Keys.h1(34, 0), Keys.h2(34, 0));
    assertFalse(h.saturated());
    assertEquals(4, reopened.sliceCount());
  }

  @Test
  void pageIdsEncodeSliceAndPage() {
    FilterSpec spec = FilterSpec.scalable(0.01, 1000, 2, 0.5, 64L << 20);
    FilterHeader h = spec.newHeader(9);
    HeapPageStore pages = new HeapPageStore();
    DedupFilter f = Filters.open(h, pages);
    for (int i = 0; i < 20_000; i++) {
      f.testAndAdd(Keys.h1(41, i), Keys.h2(41, i));
    }
    long[] slicesSeen = new long[FilterHeader.MAX_SLICES];
    pages.forEachPageId(
        id -> {
          int slice = (int) (id >>> FilterHeader.SLICE_SHIFT);
          long page = id & ((1L << FilterHeader.SLICE_SHIFT) - 1);
          assertTrue(slice < h.slices());
          assertTrue(page < FilterMath.pagesForBlocks(h.sliceBlocks(slice)));
          slicesSeen[slice]++;
        });
    for (int s = 0; s < h.slices(); s++) {
      assertTrue(slicesSeen[s] > 0, "slice " + s + " has pages");
    }
  }
}
