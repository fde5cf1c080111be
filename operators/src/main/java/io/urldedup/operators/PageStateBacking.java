package io.urldedup.operators;

import org.apache.flink.api.common.state.MapState;

/**
 * The page cache's backing store: each shard's pages in its keyed {@code MapState}, reached under
 * the shard's own key (the key context is restored after a write-back, which happens in the middle
 * of another shard's record). With insert logs an eviction of a non-idempotent shard's dirty page
 * marks the shard for materialization ({@link ShardCheckpointer}).
 */
final class PageStateBacking implements PageCache.Backing {

  private final MapState<Long, long[]> pageState;
  private final boolean logged;
  private final boolean copyState;
  private final ShardTable shards;
  private final ShardKeys keys;

  /** The checkpointer's own write-backs (materializations), as opposed to the cache's evictions. */
  boolean materializing;

  /**
   * @param logged the shards' state has insert logs: evictions write pages ahead of the log
   * @param copyState the backend keeps objects (heap): copy pages on the way out
   */
  PageStateBacking(
      MapState<Long, long[]> pageState,
      boolean logged,
      boolean copyState,
      ShardTable shards,
      ShardKeys keys) {
    this.pageState = pageState;
    this.logged = logged;
    this.copyState = copyState;
    this.shards = shards;
    this.keys = keys;
  }

  @Override
  public boolean read(int shard, long pageId, long[] dst) throws Exception {
    keys.select(shard);
    long[] stored = pageState.get(pageId);
    if (stored == null) {
      return false;
    }
    if (stored.length != dst.length) {
      throw new IllegalStateException(
          "page "
              + pageId
              + " of shard "
              + shard
              + " has "
              + stored.length
              + " words, expected "
              + dst.length);
    }
    System.arraycopy(stored, 0, dst, 0, dst.length);
    return true;
  }

  @Override
  public void write(int shard, long pageId, long[] words) throws Exception {
    if (logged && !materializing) {
      // an eviction: the base now holds later operations than its header and log say
      OpenShard s = shards.get(shard);
      if (s != null && !s.idempotent) {
        s.mustMaterialize = true;
      }
    }
    int back = keys.current();
    keys.select(shard);
    pageState.put(pageId, copyState ? words.clone() : words);
    keys.restore(back);
  }
}
