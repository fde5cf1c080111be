package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.HeapPageStore;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.junit.jupiter.api.Test;

class PageCacheSizingTest {

  private static final long GIB = 1L << 30;
  private static final long MIB = 1L << 20;

  @Test
  void wholeFilterWhenTheHeapShareAllowsIt() {
    // stable 16 MiB over 128 shards: 128 KiB = 32 pages per shard, all 128 shards on one subtask
    FilterSpec stable = FilterSpec.stable(0.01, 128 * 1024, 2);
    assertEquals(32, PageCacheSizing.filterPages(stable));
    assertEquals(128 * 32, PageCacheSizing.pages(stable, 128, 4 * GIB, 1));
    // half the shards: half the pages
    assertEquals(64 * 32, PageCacheSizing.pages(stable, 64, 4 * GIB, 1));
  }

  @Test
  void scalableCountsItsMemoryCap() {
    FilterSpec scalable = FilterSpec.scalable(0.01, 40_000, 2, 0.5, 8 * MIB);
    assertEquals(2048, PageCacheSizing.filterPages(scalable));
  }

  @Test
  void agedCountsItsFixedSize() {
    FilterSpec aged = FilterSpec.agedCount(0.01, 1_000_000, 8);
    long bytes = Filters.open(aged.newHeader(0L), new HeapPageStore()).sizeBytes();
    assertTrue(bytes > 4096, "an aged filter for a million URLs is more than a page");
    assertEquals((bytes + 4095) / 4096, PageCacheSizing.filterPages(aged));
  }

  @Test
  void heapShareBoundsLargeFilters() {
    // 1 GiB of stable filter, 4 GiB heap, 2 slots: a quarter of the heap over two slots = 512 MiB
    FilterSpec big = FilterSpec.stable(0.01, 8 * MIB, 2);
    assertEquals(512 * MIB / 4096, PageCacheSizing.pages(big, 128, 4 * GIB, 2));
    // a tiny heap still gets the old fixed 8 MiB
    assertEquals(8 * MIB / 4096, PageCacheSizing.pages(big, 128, 64 * MIB, 4));
    // and never more pages than the cache can index
    assertEquals(
        PageCache.MAX_PAGES,
        PageCacheSizing.pages(FilterSpec.stable(0.01, 1L << 40, 2), 1, 1L << 50, 1));
  }

  @Test
  void shardsInRangeFollowFlinksKeyGroups() {
    int total = 0;
    for (int subtask = 0; subtask < 3; subtask++) {
      KeyGroupRange r =
          KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(128, 3, subtask);
      int n = PageCacheSizing.shardsIn(r, 100, 128);
      int expected = 0;
      for (int s = 0; s < 100; s++) {
        if (KeyGroupRangeAssignment.assignKeyToParallelOperator(s, 128, 3) == subtask) {
          expected++;
        }
      }
      assertEquals(expected, n);
      total += n;
    }
    assertEquals(100, total);
  }

  /** The operator resolves an automatic size from its own subtask's shards when it opens. */
  @Test
  void operatorSizesItsCacheAtOpen() throws Exception {
    var h =
        DedupOperatorTestKit.harness(
            DedupOperatorTestKit.STABLE,
            DedupOperatorTestKit.MAPPING,
            DedupOperator.AUTO_CACHE,
            Backend.HASHMAP,
            2,
            1);
    h.open();
    try {
      DedupOperator op = (DedupOperator) h.getOperator();
      int here =
          PageCacheSizing.shardsIn(
              KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                  DedupOperatorTestKit.MAX_PARALLELISM, 2, 1),
              DedupOperatorTestKit.SHARDS,
              DedupOperatorTestKit.MAX_PARALLELISM);
      assertEquals(here * 16, op.cache().capacity(), "64 KiB = 16 pages per shard of this subtask");
    } finally {
      h.close();
    }
  }
}
