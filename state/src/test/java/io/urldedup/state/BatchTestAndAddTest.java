package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The batch testAndAdd is the n single calls in order: for each filter kind, a stream of keys with
 * repeats fed in batches of b (the last one partial) gives the same answers, the same header and
 * bit-identical pages as a twin fed one key at a time, and marks pages dirty as often.
 */
class BatchTestAndAddTest {

  static final int ARRIVALS = 20_000;

  /** 6000 distinct keys for 20000 arrivals: about 70% of the arrivals are repeats. */
  static final int DISTINCT = 6_000;

  static final int MAX_BATCH = 64;

  /** Key indices drawn uniformly from [0, DISTINCT): repeats at random distances, fixed seed. */
  static long[] arrivals(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long[] keys = new long[ARRIVALS];
    for (int i = 0; i < ARRIVALS; i++) {
      keys[i] = rnd.nextInt(DISTINCT);
    }
    return keys;
  }

  /** One filter and its store, so both twins are built the same way. */
  record Subject(DedupFilter filter, BlockedBloomFilter blocked, HeapPageStore store) {
    boolean single(long h1, long h2) {
      return filter != null ? filter.testAndAdd(h1, h2) : blocked.testAndAdd(h1, h2);
    }

    void batch(long[] h1, long[] h2, int n, boolean[] seen) {
      if (filter != null) {
        filter.testAndAdd(h1, h2, n, seen);
      } else {
        blocked.testAndAdd(h1, h2, n, seen);
      }
    }
  }

  static Supplier<Subject> stable(int d) {
    return () -> {
      HeapPageStore store = new HeapPageStore();
      return new Subject(
          Filters.open(FilterSpec.stable(0.01, 64 << 10, d).newHeader(3), store), null, store);
    };
  }

  /** n0 = 500 with 6000 distinct keys: the chain grows to 4-5 slices during the stream. */
  static Supplier<Subject> scalable(long maxMemoryBytes) {
    return () -> {
      HeapPageStore store = new HeapPageStore();
      FilterSpec spec = FilterSpec.scalable(0.01, 500, 2, 0.5, maxMemoryBytes);
      return new Subject(Filters.open(spec.newHeader(3), store), null, store);
    };
  }

  static Supplier<Subject> blocked() {
    return () -> {
      HeapPageStore store = new HeapPageStore();
      return new Subject(null, BlockedBloomFilter.forCapacity(store, 4_000, 0.01), store);
    };
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 16, 64})
  void blockedBatchEqualsSingles(int batch) {
    check(blocked(), batch, 11);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 16, 64})
  void stableBatchEqualsSingles(int batch) {
    for (int d = 1; d <= 4; d++) {
      check(stable(d), batch, 20 + d);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7, 16, 64})
  void scalableBatchEqualsSingles(int batch) {
    Subject s = check(scalable(64L << 20), batch, 31);
    assertTrue(
        s.filter().sliceCount() >= 4, "slices grew inside batches: " + s.filter().sliceCount());
  }

  /**
   * A cap of 12 KiB stops growth at three one-page slices, then overfills the last: the saturated
   * path.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 7, 16, 64})
  void saturatedScalableBatchEqualsSingles(int batch) {
    Subject s = check(scalable(12L << 10), batch, 41);
    assertTrue(
        ((ScalableBloomFilter) s.filter()).saturated(),
        "cap reached at "
            + s.filter().sliceCount()
            + " slices, "
            + s.filter().sizeBytes()
            + " bytes");
  }

  static Subject check(Supplier<Subject> make, int batch, long seed) {
    Subject one = make.get();
    Subject many = make.get();
    long[] keys = arrivals(seed);
    long[] h1 = new long[MAX_BATCH];
    long[] h2 = new long[MAX_BATCH];
    boolean[] seen = new boolean[MAX_BATCH];
    int duplicates = 0;
    for (int start = 0; start < ARRIVALS; start += batch) {
      int n = Math.min(batch, ARRIVALS - start);
      for (int j = 0; j < n; j++) {
        h1[j] = Keys.h1(seed, keys[start + j]);
        h2[j] = Keys.h2(seed, keys[start + j]);
      }
      many.batch(h1, h2, n, seen);
      for (int j = 0; j < n; j++) {
        boolean expected = one.single(h1[j], h2[j]);
        assertEquals(expected, seen[j], "answer at arrival " + (start + j) + ", batch " + batch);
        duplicates += expected ? 1 : 0;
      }
    }
    assertTrue(duplicates > ARRIVALS / 2, "the stream has repeats: " + duplicates);
    if (one.filter() != null) {
      assertEquals(one.filter().header(), many.filter().header(), "header");
    }
    assertEquals(one.store().dirtyMarks(), many.store().dirtyMarks(), "dirty marks");
    assertSamePages(one.store(), many.store());
    return many;
  }

  /**
   * Page by page over the union of allocated ids: the batch may touch (and so allocate, as zeros) a
   * page of an older slice that a single call never reads, because that call stopped at a newer
   * slice that had the element.
   */
  static void assertSamePages(HeapPageStore a, HeapPageStore b) {
    TreeSet<Long> ids = new TreeSet<>();
    a.forEachPageId(ids::add);
    b.forEachPageId(ids::add);
    long[] zeros = new long[PageStore.PAGE_WORDS];
    for (long id : ids) {
      long[] pa = a.contains(id) ? a.page(id) : zeros;
      long[] pb = b.contains(id) ? b.page(id) : zeros;
      assertArrayEquals(pa, pb, "page " + Long.toHexString(id));
    }
  }
}
