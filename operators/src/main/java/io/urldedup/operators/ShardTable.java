package io.urldedup.operators;

/**
 * A subtask's open shards by shard number: open addressing on a primitive key, so the record path
 * looks its shard up without boxing. Shards are only added (a shard stays open until the operator
 * closes).
 */
final class ShardTable {

  private int[] keys = new int[16];
  private OpenShard[] values = new OpenShard[16];
  private int size;

  OpenShard get(int shard) {
    int mask = keys.length - 1;
    for (int i = mix(shard) & mask; ; i = (i + 1) & mask) {
      OpenShard s = values[i];
      if (s == null) {
        return null;
      }
      if (keys[i] == shard) {
        return s;
      }
    }
  }

  void put(OpenShard s) {
    // at most half full: probes stay short
    if (2 * (size + 1) > keys.length) {
      int[] oldKeys = keys;
      OpenShard[] oldValues = values;
      keys = new int[oldKeys.length * 2];
      values = new OpenShard[oldKeys.length * 2];
      size = 0;
      for (int i = 0; i < oldKeys.length; i++) {
        if (oldValues[i] != null) {
          insert(oldKeys[i], oldValues[i]);
        }
      }
    }
    insert(s.shard, s);
  }

  private void insert(int shard, OpenShard s) {
    int mask = keys.length - 1;
    int i = mix(shard) & mask;
    while (values[i] != null) {
      i = (i + 1) & mask;
    }
    keys[i] = shard;
    values[i] = s;
    size++;
  }

  /** The table itself, with null holes: iterating it allocates nothing. */
  OpenShard[] all() {
    return values;
  }

  /**
   * Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4): consecutive shard numbers spread over the table.
   */
  private static int mix(int x) {
    x *= 0x9E3779B9;
    return x ^ (x >>> 16);
  }
}
