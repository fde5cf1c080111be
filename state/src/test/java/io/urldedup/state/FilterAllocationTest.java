package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * testAndAdd allocates nothing, for every filter kind, on first occurrences (inserts; for the aged
 * filter also generation shifts and lazy clearing) and on repeats. Measured with the JVM's
 * per-thread allocation counter ({@code com.sun.management.ThreadMXBean}) around 10^6 calls, after
 * the pages exist (a {@link HeapPageStore} allocates a page on first access, a real operator's page
 * cache once per cached page) and the JIT has compiled the path. Bound: 0.05 bytes per call (the
 * counter's own reads allocate a few hundred bytes at most).
 */
class FilterAllocationTest {

  static final int CALLS = 1_000_000;

  /**
   * Each kind sized so that the measured calls add no scalable slice (that allocates, rarely, by
   * design).
   */
  static FilterSpec spec(FilterSpec.Kind kind) {
    return switch (kind) {
      case STABLE -> FilterSpec.stable(0.01, 1 << 20, 3);
      case SCALABLE -> FilterSpec.scalable(0.01, 4 * CALLS, 2, 0.5, 1L << 30);
      // 20,000 new URLs per window: the measured inserts turn the ring about 50 x k + l times
      case AGED -> FilterSpec.agedCount(0.01, 20_000, 0);
    };
  }

  @ParameterizedTest
  @EnumSource(FilterSpec.Kind.class)
  void testAndAddAllocatesNothing(FilterSpec.Kind kind) {
    HeapPageStore store = new HeapPageStore();
    DedupFilter f = Filters.open(spec(kind).newHeader(1), store);
    long key = 0;
    for (int round = 0; round < 3; round++) { // every page touched, the JIT warm
      for (int i = 0; i < CALLS; i++, key++) {
        f.testAndAdd(Keys.h1(11, key), Keys.h2(11, key));
      }
    }
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    long sink = 0;
    long before = mx.getThreadAllocatedBytes(tid);
    for (int i = 0; i < CALLS; i++, key++) {
      sink += f.testAndAdd(Keys.h1(11, key), Keys.h2(11, key)) ? 1 : 0;
    }
    long inserts = mx.getThreadAllocatedBytes(tid) - before;
    long from = key - CALLS;
    before = mx.getThreadAllocatedBytes(tid);
    for (int i = 0; i < CALLS; i++) {
      sink += f.testAndAdd(Keys.h1(11, from + i % 1000), Keys.h2(11, from + i % 1000)) ? 1 : 0;
    }
    long repeats = mx.getThreadAllocatedBytes(tid) - before;
    assertTrue(sink > 0, "the calls ran");
    assertTrue(
        inserts < 0.05 * CALLS,
        kind + ": " + inserts + " bytes over " + CALLS + " first occurrences");
    assertTrue(repeats < 0.05 * CALLS, kind + ": " + repeats + " bytes over " + CALLS + " repeats");
  }
}
