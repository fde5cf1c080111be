package io.urldedup.operators;

import org.apache.flink.streaming.api.operators.KeyContext;

/**
 * The shard the keyed state backend is set to, as the operator's parts switch it (to write a
 * shard's state, or read a page on a cache miss). Remembering it makes a switch to the shard
 * already selected free: {@code setCurrentKey} boxes the key and computes its key group.
 */
final class ShardKeys {

  /** No shard selected (outside records and timers before any switch). */
  static final int NONE = Integer.MIN_VALUE;

  private final KeyContext context;
  private int current = NONE;

  ShardKeys(KeyContext context) {
    this.context = context;
  }

  void select(int shard) {
    if (shard != current) {
      context.setCurrentKey(shard);
      current = shard;
    }
  }

  /** The runtime selected {@code shard} itself (a record's or a timer's key). */
  void entered(int shard) {
    current = shard;
  }

  /** Takes the key the runtime left selected (NONE if none); restore it with {@link #restore}. */
  int sync() {
    Object key = context.getCurrentKey();
    current = key == null ? NONE : (Integer) key;
    return current;
  }

  /** Selects {@code shard} again after other shards' work, unless it is NONE. */
  void restore(int shard) {
    if (shard != NONE) {
      select(shard);
    }
  }

  int current() {
    return current;
  }
}
