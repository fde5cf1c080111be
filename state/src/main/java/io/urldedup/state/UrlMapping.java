package io.urldedup.state;

import java.io.Serializable;

/**
 * What decides which filter bits a URL lands on, besides the filter's own parameters: the hash
 * seed (as its one-way fingerprint, never the seed), the shard count (which shard's filter) and
 * the canonicalization (which string is hashed). State written under one mapping answers
 * "unseen" for old URLs under another, so {@link FilterHeader} records it and refuses a restore
 * that changes it.
 *
 * <p>Zero means "unknown": headers of format version 1 predate the shard count and the
 * canonicalization fingerprint; an unknown value accepts any current value and adopts it.
 *
 * @param seedFingerprint              {@link UrlHasher#seedFingerprint()}
 * @param shards                       {@code --shards}, or {@link #UNKNOWN}
 * @param canonicalizationFingerprint  a 64-bit hash of the canonicalization settings, or {@link #UNKNOWN}
 * @param canonicalizationSettings     the settings that fingerprint hashes, one {@code key=value} a line,
 *                                     keys that are flags spelled as flags ({@code --strip-www=true}), so a
 *                                     refusal can name what changed; never secret; "" when unknown
 */
public record UrlMapping(long seedFingerprint, int shards, long canonicalizationFingerprint,
    String canonicalizationSettings) implements Serializable {

  /** The value of an unrecorded shard count or canonicalization fingerprint. */
  public static final int UNKNOWN = 0;
  /** Bound on the persisted settings text (UTF-8 bytes). */
  public static final int MAX_SETTINGS_BYTES = 1 << 16;

  public UrlMapping {
    if (shards < 0) {
      throw new IllegalArgumentException("--shards must be positive; got " + shards);
    }
    if (canonicalizationSettings == null) {
      canonicalizationSettings = "";
    }
    if (canonicalizationSettings.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_SETTINGS_BYTES) {
      throw new IllegalArgumentException("canonicalization settings longer than " + MAX_SETTINGS_BYTES
          + " bytes (a very long --strip-params list?)");
    }
  }

  /** Only the seed is known: for tools and tests that have no shards or canonicalization. */
  public static UrlMapping seedOnly(long seedFingerprint) {
    return new UrlMapping(seedFingerprint, UNKNOWN, UNKNOWN, "");
  }
}
