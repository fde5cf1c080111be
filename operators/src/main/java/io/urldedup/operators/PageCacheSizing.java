package io.urldedup.operators;

import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.PageStore;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;
import org.apache.flink.runtime.state.KeyGroupRange;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;

/**
 * The default size of a subtask's {@link PageCache}: every page its shards' filters can occupy, as
 * far as a share of the TaskManager's heap allows.
 *
 * <p>Why the whole filter: a filter probe lands on a uniformly random page, so a cache holding a
 * fraction f of the pages misses on 1 - f of the records, and every miss reads a 4 KiB page from
 * keyed state (on RocksDB a {@code get} plus a deserialization) and usually writes a dirty one
 * back. Measured (docs/benchmarks-job.md): a 16 MiB stable filter behind the old fixed 8 MiB
 * default cost 10.8 us per record on the keyed thread, 1.8 us with the filter fully cached. A cache
 * larger than the filter costs nothing extra: a slot's page array is allocated when first used, so
 * the cache's heap is the pages the filter has actually touched (plus about 30 bytes of index per
 * slot).
 *
 * <p>Why a quarter of the heap per slot: the cache lives on the task heap next to the records in
 * flight, the network stack's heap buffers and, on the hashmap backend, the filter pages held in
 * state themselves (so a fully cached filter on the heap costs twice its size). {@link #HEAP_SHARE}
 * of the JVM's maximum heap, split over the TaskManager's slots, leaves the rest to them; below
 * {@link #MIN_BUDGET_BYTES} (the old fixed default) the budget is that minimum. A filter larger
 * than the budget is served by CLOCK from the budget; {@code --cache-memory} sets an explicit size
 * instead.
 */
public final class PageCacheSizing {

  /**
   * Share of the JVM's maximum heap that the page caches of all slots of a TaskManager may take.
   */
  public static final double HEAP_SHARE = 0.25;

  /** The budget per subtask never goes below this (the fixed default before sizing). */
  public static final long MIN_BUDGET_BYTES = 8L << 20;

  private PageCacheSizing() {}

  /**
   * Pages for a subtask that owns {@code shardsHere} shards of filter {@code perShard}, on a
   * TaskManager with {@code maxHeapBytes} of heap and {@code slots} slots.
   */
  public static int pages(FilterSpec perShard, int shardsHere, long maxHeapBytes, int slots) {
    long want = filterPages(perShard) * Math.max(1, shardsHere);
    return (int)
        Math.max(
            1, Math.min(Math.min(want, budgetPages(maxHeapBytes, slots)), PageCache.MAX_PAGES));
  }

  /**
   * The most pages one shard's filter can occupy: stable its memory, scalable its memory cap, any
   * other kind (aged: fixed by its window) the size of a new filter.
   */
  public static long filterPages(FilterSpec perShard) {
    long bytes =
        perShard instanceof StableSpec s
            ? s.memoryBytes()
            : perShard instanceof ScalableSpec s
                ? s.maxMemoryBytes()
                : Filters.open(perShard.newHeader(0L), new HeapPageStore()).sizeBytes();
    return Math.max(1, (bytes + PageStore.PAGE_BYTES - 1) / PageStore.PAGE_BYTES);
  }

  /** Pages the heap share allows one subtask. */
  public static long budgetPages(long maxHeapBytes, int slots) {
    long bytes = (long) (maxHeapBytes * HEAP_SHARE) / Math.max(1, slots);
    return Math.max(bytes, MIN_BUDGET_BYTES) / PageStore.PAGE_BYTES;
  }

  /** How many of the shards 0..shards-1 fall into {@code range} (Flink's key-group assignment). */
  public static int shardsIn(KeyGroupRange range, int shards, int maxParallelism) {
    int n = 0;
    for (int s = 0; s < shards; s++) {
      if (range.contains(KeyGroupRangeAssignment.assignToKeyGroup(s, maxParallelism))) {
        n++;
      }
    }
    return n;
  }
}
