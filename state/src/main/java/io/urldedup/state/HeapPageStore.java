package io.urldedup.state;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Pages on the Java heap, for tests and benchmarks. Page ids are (group = id >>> 48, index = low 48
 * bits), the layout {@link FilterHeader#pageId} uses for (slice, page): each group is a dense array
 * grown on demand, so a lookup is two array loads; ids with an index beyond 2^30 go to a map. A
 * page is allocated (zeroed) on first access. Not thread-safe.
 */
public final class HeapPageStore implements PageStore {

  private static final int GROUP_SHIFT = FilterHeader.SLICE_SHIFT;
  private static final long INDEX_MASK = (1L << GROUP_SHIFT) - 1;
  private static final long DENSE_LIMIT = 1L << 30;

  private long[][][] groups = new long[1][][];
  private final Map<Long, long[]> sparse = new HashMap<>();
  private long pages;
  private long dirtyMarks;

  @Override
  public long[] page(long pageId) {
    int group = (int) (pageId >>> GROUP_SHIFT);
    long index = pageId & INDEX_MASK;
    if (index < DENSE_LIMIT && group < groups.length) {
      long[][] g = groups[group];
      if (g != null && index < g.length) {
        long[] p = g[(int) index];
        if (p != null) {
          return p;
        }
      }
    }
    return slowPage(pageId, group, index);
  }

  private long[] slowPage(long pageId, int group, long index) {
    if (index >= DENSE_LIMIT) {
      return sparse.computeIfAbsent(
          pageId,
          id -> {
            pages++;
            return new long[PAGE_WORDS];
          });
    }
    if (group >= groups.length) {
      long[][][] grown = new long[Math.max(group + 1, groups.length * 2)][][];
      System.arraycopy(groups, 0, grown, 0, groups.length);
      groups = grown;
    }
    long[][] g = groups[group];
    if (g == null || index >= g.length) {
      long size = Math.max(index + 1, g == null ? 16 : Math.min(DENSE_LIMIT, 2L * g.length));
      long[][] grown = new long[(int) size][];
      if (g != null) {
        System.arraycopy(g, 0, grown, 0, g.length);
      }
      groups[group] = g = grown;
    }
    long[] p = g[(int) index];
    if (p == null) {
      p = g[(int) index] = new long[PAGE_WORDS];
      pages++;
    }
    return p;
  }

  @Override
  public void markDirty(long pageId) {
    dirtyMarks++;
  }

  /** Whether the page was ever accessed (never-accessed pages are zeros). */
  public boolean contains(long pageId) {
    int group = (int) (pageId >>> GROUP_SHIFT);
    long index = pageId & INDEX_MASK;
    if (index >= DENSE_LIMIT) {
      return sparse.containsKey(pageId);
    }
    return group < groups.length
        && groups[group] != null
        && index < groups[group].length
        && groups[group][(int) index] != null;
  }

  /** Ids of allocated pages, in ascending unsigned order of (group, index) for dense ids. */
  public void forEachPageId(LongConsumer action) {
    for (int group = 0; group < groups.length; group++) {
      long[][] g = groups[group];
      if (g == null) {
        continue;
      }
      for (int i = 0; i < g.length; i++) {
        if (g[i] != null) {
          action.accept(((long) group << GROUP_SHIFT) | i);
        }
      }
    }
    sparse.keySet().stream().sorted(Long::compareUnsigned).forEach(action::accept);
  }

  /** Bytes of pages allocated so far. */
  public long bytes() {
    return pages * PAGE_BYTES;
  }

  /** How often {@link #markDirty} was called (tests check that duplicates do not dirty pages). */
  public long dirtyMarks() {
    return dirtyMarks;
  }
}
