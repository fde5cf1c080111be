package io.urldedup.stateops;

/**
 * One probed URL's answer from {@link ProbeReader} (a Flink POJO). {@code index} is the URL's
 * position in the query; {@code slice} the oldest scalable slice holding it, -1 if unseen or
 * stable. A record with index -1 reports a shard's stored seed fingerprint instead, so that the
 * caller can refuse a wrong seed.
 */
public class ProbeAnswer {

  public int index;
  public int shard;
  public boolean seen;
  public int slice;
  public long seedFingerprint;

  public ProbeAnswer() {}

  static ProbeAnswer of(int index, int shard, boolean seen, int slice) {
    ProbeAnswer a = new ProbeAnswer();
    a.index = index;
    a.shard = shard;
    a.seen = seen;
    a.slice = slice;
    return a;
  }

  static ProbeAnswer fingerprint(int shard, long seedFingerprint) {
    ProbeAnswer a = of(-1, shard, false, -1);
    a.seedFingerprint = seedFingerprint;
    return a;
  }
}
