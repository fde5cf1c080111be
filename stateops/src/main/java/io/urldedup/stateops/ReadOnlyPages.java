package io.urldedup.stateops;

import io.urldedup.state.PageStore;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;

/**
 * A shard's pages in a snapshot as a {@link PageStore} that cannot be written: probe's filters read
 * through it. A page never written reads as zeros. Pages are kept in a small LRU cache ({@link
 * #CACHE_PAGES}): on RocksDB every {@code MapState.get} deserializes a 4 KiB page, and the URLs
 * probed in a shard share its pages.
 */
final class ReadOnlyPages implements PageStore {

  /** 4 MiB per shard being read; one open at a time per reader subtask. */
  static final int CACHE_PAGES = 1024;

  /**
   * For readers of the header's counters only ({@code inspect}'s model figures): any page access is
   * a bug.
   */
  static final PageStore NONE =
      new PageStore() {
        @Override
        public long[] page(long pageId) {
          throw new UnsupportedOperationException(
              "this reader uses the header's counters, not pages");
        }

        @Override
        public void markDirty(long pageId) {
          throw new UnsupportedOperationException("snapshots are read, never written here");
        }
      };

  private static final long[] ZEROS = new long[PAGE_WORDS];

  private final MapState<Long, long[]> state;
  private final Map<Long, long[]> cache =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, long[]> eldest) {
          return size() > CACHE_PAGES;
        }
      };
  private long reads;

  ReadOnlyPages(MapState<Long, long[]> state) {
    this.state = state;
  }

  @Override
  public long[] page(long pageId) {
    long[] p = cache.get(pageId);
    if (p == null) {
      try {
        p = state.get(pageId);
      } catch (Exception e) {
        throw new IllegalStateException("cannot read page " + pageId + " from the snapshot", e);
      }
      reads++;
      if (p == null) {
        p = ZEROS;
      }
      cache.put(pageId, p);
    }
    return p;
  }

  @Override
  public void markDirty(long pageId) {
    throw new UnsupportedOperationException("snapshots are read, never written here");
  }

  /** Pages fetched from state (cache misses). */
  long reads() {
    return reads;
  }
}
