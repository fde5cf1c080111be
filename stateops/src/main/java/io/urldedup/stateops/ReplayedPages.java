package io.urldedup.stateops;

import io.urldedup.state.PageStore;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.state.MapState;

/**
 * A shard's pages as a reader sees them: the stored pages, overlaid with the pages its insert log
 * changes when replayed ({@code --materialize-every} above 1). The snapshot itself is never
 * written: a page the replay touches is copied out of it first. Without a log this is {@link
 * ReadOnlyPages} and the stored entries.
 */
final class ReplayedPages implements PageStore {

  private final MapState<Long, long[]> stored;
  private final ReadOnlyPages base;

  /** Pages the replay fetched (copies, possibly changed); null while nothing is replayed. */
  private Map<Long, long[]> overlay;

  ReplayedPages(MapState<Long, long[]> stored) {
    this.stored = stored;
    this.base = new ReadOnlyPages(stored);
  }

  /** From now on pages are copied on access, so that a replay can change them. */
  void startReplay() {
    if (overlay == null) {
      overlay = new HashMap<>();
    }
  }

  @Override
  public long[] page(long pageId) {
    if (overlay == null) {
      return base.page(pageId);
    }
    long[] p = overlay.get(pageId);
    if (p == null) {
      p = base.page(pageId).clone();
      overlay.put(pageId, p);
    }
    return p;
  }

  @Override
  public void markDirty(long pageId) {
    if (overlay == null) {
      base.markDirty(pageId);
    }
  }

  /**
   * Every page of the shard (stored, or created by the replay), replayed content where the replay
   * touched it; in ascending page id. A page that is all zeros and never stored is left out, as the
   * operator's cache leaves it out.
   */
  void forEach(BiConsumer<Long, long[]> action) throws Exception {
    if (overlay == null) {
      for (Map.Entry<Long, long[]> e : stored.entries()) {
        action.accept(e.getKey(), e.getValue());
      }
      return;
    }
    TreeMap<Long, long[]> all = new TreeMap<>();
    for (Map.Entry<Long, long[]> e : stored.entries()) {
      all.put(e.getKey(), e.getValue());
    }
    for (Map.Entry<Long, long[]> e : overlay.entrySet()) {
      if (all.containsKey(e.getKey()) || !isZero(e.getValue())) {
        all.put(e.getKey(), e.getValue());
      }
    }
    all.forEach(action);
  }

  private static boolean isZero(long[] page) {
    for (long w : page) {
      if (w != 0) {
        return false;
      }
    }
    return true;
  }
}
