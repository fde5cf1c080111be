package io.urldedup.state;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * What decides which filter bits a URL lands on, besides the filter's own parameters: the hash seed
 * (as its one-way fingerprint, never the seed), the shard count (which shard's filter) and the
 * canonicalization (which string is hashed). State written under one mapping answers "unseen" for
 * old URLs under another, so {@link FilterHeader} records it and refuses a restore that changes it.
 *
 * <p>Zero means "unknown": headers of format version 1 predate the shard count and the
 * canonicalization fingerprint; an unknown value accepts any current value and adopts it.
 *
 * @param seedFingerprint {@link UrlHasher#seedFingerprint()}
 * @param shards {@code --shards}, or {@link #UNKNOWN}
 * @param canonicalizationFingerprint a 64-bit hash of the canonicalization settings, or {@link
 *     #UNKNOWN}
 * @param canonicalizationSettings the settings that fingerprint hashes, one {@code key=value} a
 *     line, keys that are flags spelled as flags ({@code --strip-www=true}), so a refusal can name
 *     what changed; never secret; "" when unknown
 */
public record UrlMapping(
    long seedFingerprint,
    int shards,
    long canonicalizationFingerprint,
    String canonicalizationSettings)
    implements Serializable {

  /** The value of an unrecorded shard count or canonicalization fingerprint. */
  public static final int UNKNOWN = 0;

  /** Bound on the persisted settings text (UTF-8 bytes). */
  public static final int MAX_SETTINGS_BYTES = 1 << 16;

  public UrlMapping {
    if (shards < 0) {
      throw new InvalidSpecException("{shards} must be positive; got " + shards);
    }
    if (canonicalizationSettings == null) {
      canonicalizationSettings = "";
    }
    if (canonicalizationSettings.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
        > MAX_SETTINGS_BYTES) {
      throw new InvalidSpecException(
          "canonicalization settings longer than "
              + MAX_SETTINGS_BYTES
              + " bytes (a very long {stripParams} list?)");
    }
  }

  /** Only the seed is known: for tools and tests that have no shards or canonicalization. */
  public static UrlMapping seedOnly(long seedFingerprint) {
    return new UrlMapping(seedFingerprint, UNKNOWN, UNKNOWN, "");
  }

  /**
   * Throws {@link IncompatibleStateException} if state written under this mapping cannot serve a
   * job under {@code now}: another seed; another shard count (every URL would move to another
   * shard); other canonicalization settings unless {@code allowCanonicalizationChange}. An {@link
   * #UNKNOWN} shard count or canonicalization on either side accepts the other. The one rule for
   * restores ({@link FilterHeader#checkCompatible}) and for {@code probe}.
   */
  public void checkServes(UrlMapping now, boolean allowCanonicalizationChange) {
    if (now.seedFingerprint != seedFingerprint) {
      throw new IncompatibleStateException(
          String.format(
              "state was written with a different {hashSeed} (fingerprint %016x vs %016x); restore with the original"
                  + " seed or start from empty state",
              seedFingerprint, now.seedFingerprint));
    }
    if (shards != UNKNOWN && now.shards != UNKNOWN && shards != now.shards) {
      throw new IncompatibleStateException(
          "state was written with {shards} "
              + shards
              + " but this job has {shards} "
              + now.shards
              + ": every URL would move to another shard and old URLs would come back as unseen;"
              + " restore with {shards} "
              + shards
              + " or start from empty state");
    }
    String canonicalization = canonicalizationChange(now);
    if (canonicalization != null && !allowCanonicalizationChange) {
      throw new IncompatibleStateException(
          "state was written with other canonicalization settings ("
              + canonicalization
              + "): stored URLs were canonicalized the old way, so they can come back as unseen;"
              + " restore with the original values, start from empty state, or give {allowCanonicalizationChange}"
              + " to accept that");
    }
  }

  /**
   * What differs between this canonicalization and {@code now}'s, naming the flags ({@code
   * --strip-www true in state vs false now}); null if nothing does or either is UNKNOWN. Never
   * secret: the settings hold no seed.
   */
  public String canonicalizationChange(UrlMapping now) {
    if (canonicalizationFingerprint == UNKNOWN
        || now.canonicalizationFingerprint == UNKNOWN
        || canonicalizationFingerprint == now.canonicalizationFingerprint) {
      return null;
    }
    Map<String, String> was = settings(canonicalizationSettings);
    Map<String, String> is = settings(now.canonicalizationSettings);
    Set<String> keys = new LinkedHashSet<>(was.keySet());
    keys.addAll(is.keySet());
    Differences diff = new Differences();
    for (String key : keys) {
      diff.add(key, was.getOrDefault(key, "(unset)"), is.getOrDefault(key, "(unset)"));
    }
    return diff.isEmpty()
        ? String.format(
            "canonicalization fingerprint %016x in state vs %016x now",
            canonicalizationFingerprint, now.canonicalizationFingerprint)
        : diff.toString();
  }

  private static Map<String, String> settings(String text) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        out.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return out;
  }
}
