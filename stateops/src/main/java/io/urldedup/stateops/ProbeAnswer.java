package io.urldedup.stateops;

/**
 * One probed URL's answer from {@link ProbeReader} (a Flink POJO). {@code index} is the URL's
 * position in the query; {@code slice} the oldest scalable slice holding it, -1 if unseen or
 * stable. A record with index -1 reports a shard's stored {@link io.urldedup.state.UrlMapping}
 * (seed fingerprint, shards, canonicalization) instead, so that the caller can refuse a wrong seed.
 */
public class ProbeAnswer {

  public int index;
  public int shard;
  public boolean seen;
  public int slice;
  public long seedFingerprint;
  public int shards;
  public long canonicalizationFingerprint;
  public String canonicalizationSettings;

  public ProbeAnswer() {}

  static ProbeAnswer of(int index, int shard, boolean seen, int slice) {
    ProbeAnswer a = new ProbeAnswer();
    a.index = index;
    a.shard = shard;
    a.seen = seen;
    a.slice = slice;
    return a;
  }

  static ProbeAnswer mapping(int shard, io.urldedup.state.UrlMapping m) {
    ProbeAnswer a = of(-1, shard, false, -1);
    a.seedFingerprint = m.seedFingerprint();
    a.shards = m.shards();
    a.canonicalizationFingerprint = m.canonicalizationFingerprint();
    a.canonicalizationSettings = m.canonicalizationSettings();
    return a;
  }

  /** The mapping a record with index -1 reports. */
  public io.urldedup.state.UrlMapping storedMapping() {
    return new io.urldedup.state.UrlMapping(
        seedFingerprint,
        shards,
        canonicalizationFingerprint,
        canonicalizationSettings == null ? "" : canonicalizationSettings);
  }
}
