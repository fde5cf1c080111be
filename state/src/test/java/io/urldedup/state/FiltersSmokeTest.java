package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class FiltersSmokeTest {

  @Test
  void stableRemembersRecentAndIsDeterministic() {
    for (int d = 1; d <= 4; d++) {
      FilterSpec spec = FilterSpec.stable(0.01, 1 << 20, d);
      FilterHeader h = spec.newHeader(42);
      System.out.println(h + " fpr=" + h.stableGeometry().stableFpr());
      DedupFilter f = Filters.open(h, new HeapPageStore());
      for (long i = 0; i < 1000; i++) {
        assertFalse(f.testAndAdd(Keys.h1(1, i), Keys.h2(1, i)) && false);
        assertTrue(f.mightContain(Keys.h1(1, i), Keys.h2(1, i)), "d=" + d + " i=" + i);
        assertTrue(f.testAndAdd(Keys.h1(1, i), Keys.h2(1, i)));
      }
      assertEquals(2000, h.inserts());
      System.out.println("fill " + f.fillRatio() + " fpr " + f.estimatedFpr());
    }
  }

  @Test
  void scalableGrowsAndHasNoFalseNegatives() {
    FilterSpec spec = FilterSpec.scalable(0.01, 1000, 2, 0.5, 1 << 20);
    FilterHeader h = spec.newHeader(7);
    ScalableBloomFilter f = (ScalableBloomFilter) Filters.open(h, new HeapPageStore());
    int fresh = 0;
    for (long i = 0; i < 20000; i++) {
      if (!f.testAndAdd(Keys.h1(2, i), Keys.h2(2, i))) {
        fresh++;
      }
    }
    for (long i = 0; i < 20000; i++) {
      assertTrue(f.mightContain(Keys.h1(2, i), Keys.h2(2, i)));
    }
    System.out.println(h + " fresh=" + fresh + " est=" + f.estimatedFpr() + " bytes=" + f.sizeBytes());
    assertTrue(f.sliceCount() >= 4);
  }

  @Test
  void validationNamesFlags() {
    assertTrue(assertThrows(IllegalArgumentException.class, () -> FilterSpec.stable(0.7, 1 << 20, 3))
        .getMessage().contains("--fpr"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> FilterSpec.stable(0.01, 100, 3))
        .getMessage().contains("--memory"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> FilterSpec.stable(0.01, 1 << 20, 5))
        .getMessage().contains("--cell-bits"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> FilterSpec.scalable(0.01, 0, 2, 0.5, 1 << 20))
        .getMessage().contains("--capacity"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> FilterSpec.scalable(0.01, 10, 1, 0.5, 1 << 20))
        .getMessage().contains("--growth"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> FilterSpec.scalable(0.01, 10, 2, 1.0, 1 << 20))
        .getMessage().contains("--tightening"));
    assertTrue(assertThrows(IllegalArgumentException.class, () -> FilterSpec.scalable(0.01, 10, 2, 0.5, 10))
        .getMessage().contains("--max-memory"));
    assertTrue(assertThrows(IllegalArgumentException.class,
        () -> FilterSpec.scalable(0.01, 100_000_000, 2, 0.5, 1 << 20)).getMessage().contains("--max-memory"));
  }

  @Test
  void incompatibleSeed() {
    FilterSpec spec = FilterSpec.stable(0.01, 1 << 20, 3);
    FilterHeader h = spec.newHeader(0xa1b2L);
    h.checkCompatible(spec, 0xa1b2L);
    IncompatibleStateException e = assertThrows(IncompatibleStateException.class, () -> h.checkCompatible(spec, 0xc3d4L));
    assertTrue(e.getMessage().contains("--hash-seed"), e.getMessage());
    e = assertThrows(IncompatibleStateException.class,
        () -> h.checkCompatible(FilterSpec.stable(0.01, 1 << 21, 3), 0xa1b2L));
    assertTrue(e.getMessage().contains("--memory"), e.getMessage());
  }
}
