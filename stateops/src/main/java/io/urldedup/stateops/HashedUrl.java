package io.urldedup.stateops;

import io.urldedup.operators.UrlRecord;

/**
 * What the dedup operator's decision depends on, and nothing else: shard, hash and the force flag
 * (a Flink POJO of 21 bytes). Bootstrap partitions this, not the whole record (URL, value, key,
 * headers), when its filters run in more subtasks than its reader: a batch exchange spills it.
 */
public class HashedUrl {

  public int shard;
  public long h1;
  public long h2;
  public boolean force;

  public HashedUrl() {}

  static HashedUrl of(UrlRecord r) {
    HashedUrl u = new HashedUrl();
    u.shard = r.shard;
    u.h1 = r.h1;
    u.h2 = r.h2;
    u.force = r.force;
    return u;
  }
}
