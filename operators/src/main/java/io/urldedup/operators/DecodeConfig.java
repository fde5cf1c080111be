package io.urldedup.operators;

import io.urldedup.operators.url.CanonicalizationRules;
import io.urldedup.operators.url.WhatwgUrlParser;
import io.urldedup.state.InvalidSpecException;
import io.urldedup.state.UrlHasher;
import io.urldedup.state.UrlMapping;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * How {@link DecodeFunction} reads and canonicalizes records. Immutable and serializable (it
 * travels with the job graph). The hash seed is secret: {@link #toString()} never shows it.
 */
public final class DecodeConfig implements Serializable {

  private static final long serialVersionUID = 1L;

  /** Input value format ({@code --format}). */
  public enum Format {
    /** The whole value, trimmed of surrounding whitespace and CR, is the URL. */
    TEXT,
    /** A JSON object with a top-level string {@code url} and an optional boolean {@code force}. */
    JSON
  }

  /** Output record key ({@code --key}). */
  public enum KeyMode {
    /** The canonical host. */
    HOST,
    /** The registrable domain (public suffix list), the host for IPs and unknown suffixes. */
    DOMAIN,
    /** No key. */
    NONE
  }

  public static final int DEFAULT_MAX_URL_BYTES = 8192;
  public static final int MIN_MAX_URL_BYTES = 16;
  public static final int MAX_MAX_URL_BYTES = 65536;
  public static final int DEFAULT_SHARDS = 128;

  /**
   * Flink's largest max parallelism (KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM, 2^15):
   * the job sets max parallelism to max(shards, 128), so more shards could not be scheduled.
   */
  public static final int MAX_SHARDS = 1 << 15;

  /**
   * Version of the canonicalization code itself, part of {@link #canonicalizationFingerprint()}:
   * bump it in the same commit as any change that gives some URL another canonical form under the
   * same settings (a new built-in rule, a parser fix), so that a restore of older state is refused
   * (or, with {@code --allow-canonicalization-change}, accepted with a warning) instead of silently
   * re-emitting URLs.
   */
  public static final int CANONICALIZATION_VERSION = 2; // 2: the WHATWG URL parser

  /** Session-id parameters removed by {@code --strip-params default}. */
  public static final List<String> DEFAULT_STRIP_PARAMS =
      List.of("jsessionid", "phpsessid", "sid", "sessionid", "aspsessionid", "cfid", "cftoken");

  private final Format format;
  private final long hashSeed;
  private final int shards;
  private final int maxUrlBytes;
  private final KeyMode keyMode;
  private final List<String> stripParams;
  private final boolean stripWww;
  private final boolean sortParams;
  private final boolean dropEmptyParams;
  private final boolean collapseSlashes;

  private DecodeConfig(Builder b) {
    this.format = b.format;
    this.hashSeed = b.hashSeed;
    this.shards = b.shards;
    this.maxUrlBytes = b.maxUrlBytes;
    this.keyMode = b.keyMode;
    this.stripParams = Collections.unmodifiableList(new ArrayList<>(b.stripParams));
    this.stripWww = b.stripWww;
    this.sortParams = b.sortParams;
    this.dropEmptyParams = b.dropEmptyParams;
    this.collapseSlashes = b.collapseSlashes;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Format format() {
    return format;
  }

  /** The secret seed of {@code UrlHasher}; never log it. */
  public long hashSeed() {
    return hashSeed;
  }

  public int shards() {
    return shards;
  }

  public int maxUrlBytes() {
    return maxUrlBytes;
  }

  public KeyMode keyMode() {
    return keyMode;
  }

  /** Lower-case parameter names to remove from query and path parameters; empty = rule off. */
  public List<String> stripParams() {
    return stripParams;
  }

  public boolean stripWww() {
    return stripWww;
  }

  /** The opt-in canonicalization rules. */
  public CanonicalizationRules rules() {
    return new CanonicalizationRules(
        sortParams, dropEmptyParams, stripParams, stripWww, collapseSlashes);
  }

  /**
   * Every setting that changes canonical forms, one {@code key=value} a line: the code's {@link
   * #CANONICALIZATION_VERSION}, then each such flag spelled as on the command line ({@code
   * --strip-www=false}) with a value normalized so that equal behaviour gives equal text (parameter
   * names sorted). The filter header stores this text next to the fingerprint so that a refused
   * restore can name the flag that changed. Never holds the seed.
   *
   * <p>To add a rule or a parser version: add its line here (a {@code --flag=value} line for a
   * flag, a {@code name=value} line for a version of built-in behaviour); its value must be stable
   * across runs and JVMs. {@link #canonicalizationFingerprint()} follows automatically. Adding a
   * line changes the fingerprint of every existing job, so bump {@link #CANONICALIZATION_VERSION}
   * only when behaviour changes, and give a new flag's line only when the flag is set off its
   * default ({@code if (rule != DEFAULT) line(...)}) if its default keeps today's canonical forms:
   * then existing state keeps restoring without the allow flag.
   */
  public String canonicalizationSettings() {
    StringBuilder b = new StringBuilder();
    b.append("canonicalization-version=").append(CANONICALIZATION_VERSION).append('\n');
    b.append("parser=").append(WhatwgUrlParser.VERSION).append('\n');
    List<String> params = new ArrayList<>(stripParams);
    Collections.sort(params);
    b.append("--strip-params=")
        .append(params.isEmpty() ? "none" : String.join(",", params))
        .append('\n');
    b.append("--strip-www=").append(stripWww).append('\n');
    // rules added with the WHATWG parser: a line only when on, so that the default text is stable
    if (sortParams) {
      b.append("--sort-params=true\n");
    }
    if (dropEmptyParams) {
      b.append("--drop-empty-params=true\n");
    }
    if (collapseSlashes) {
      b.append("--collapse-slashes=true\n");
    }
    return b.toString();
  }

  /**
   * A 64-bit fingerprint of {@link #canonicalizationSettings()}: the first 8 bytes (little-endian)
   * of SHA-256 over a domain prefix and the settings text; never 0 (0 is "unknown" in state written
   * before the fingerprint existed). The settings hold every input that changes canonical forms
   * (see there how to add one) and no seed. Recorded in every shard's filter header; a restore
   * under another fingerprint is refused naming the flags that differ.
   */
  public long canonicalizationFingerprint() {
    return fingerprintOf(canonicalizationSettings());
  }

  /** The fingerprint of a {@link #canonicalizationSettings()} text (also of older versions'). */
  public static long fingerprintOf(String canonicalizationSettings) {
    try {
      java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
      sha.update(
          "urldedup-canonicalization-v1\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      sha.update(canonicalizationSettings.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      long fp =
          java.nio.ByteBuffer.wrap(sha.digest()).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
      return fp == UrlMapping.UNKNOWN ? 1 : fp;
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }

  /**
   * How URLs map onto filter state under this config: the seed's one-way fingerprint (derived here
   * and nowhere else), the shard count, the canonicalization fingerprint and settings.
   */
  public UrlMapping urlMapping() {
    return new UrlMapping(
        new UrlHasher(hashSeed).seedFingerprint(),
        shards,
        canonicalizationFingerprint(),
        canonicalizationSettings());
  }

  /** Everything but the seed. */
  @Override
  public String toString() {
    return "DecodeConfig{format="
        + format.name().toLowerCase(Locale.ROOT)
        + ", shards="
        + shards
        + ", maxUrlBytes="
        + maxUrlBytes
        + ", key="
        + keyMode.name().toLowerCase(Locale.ROOT)
        + ", stripParams="
        + stripParams
        + ", stripWww="
        + stripWww
        + ", rules="
        + rules()
        + ", hashSeed=<hidden>}";
  }

  /** Builder; each setter validates and its message names the flag and the accepted values. */
  public static final class Builder {
    private Format format = Format.TEXT;
    private long hashSeed;
    private int shards = DEFAULT_SHARDS;
    private int maxUrlBytes = DEFAULT_MAX_URL_BYTES;
    private KeyMode keyMode = KeyMode.HOST;
    private List<String> stripParams = List.of();
    private boolean stripWww;
    private boolean sortParams;
    private boolean dropEmptyParams;
    private boolean collapseSlashes;

    private Builder() {}

    public Builder format(Format f) {
      if (f == null) {
        throw new InvalidSpecException("{format}: missing value (accepted: text, json)");
      }
      this.format = f;
      return this;
    }

    /** {@code --format text|json}. */
    public Builder format(String f) {
      return format(parse(Format.class, "{format}", f, "text, json"));
    }

    public Builder hashSeed(long seed) {
      this.hashSeed = seed;
      return this;
    }

    /** {@code --shards N}, 1 to {@value #MAX_SHARDS}. */
    public Builder shards(int n) {
      if (n < 1 || n > MAX_SHARDS) {
        throw new InvalidSpecException(
            "{shards}: " + n + " is out of range (accepted: 1 to " + MAX_SHARDS + ")");
      }
      this.shards = n;
      return this;
    }

    /** {@code --max-url-bytes N}, {@value #MIN_MAX_URL_BYTES} to {@value #MAX_MAX_URL_BYTES}. */
    public Builder maxUrlBytes(int n) {
      if (n < MIN_MAX_URL_BYTES || n > MAX_MAX_URL_BYTES) {
        throw new InvalidSpecException(
            "{maxUrlBytes}: "
                + n
                + " is out of range (accepted: "
                + MIN_MAX_URL_BYTES
                + " to "
                + MAX_MAX_URL_BYTES
                + ")");
      }
      this.maxUrlBytes = n;
      return this;
    }

    public Builder keyMode(KeyMode k) {
      if (k == null) {
        throw new InvalidSpecException("{key}: missing value (accepted: host, domain, none)");
      }
      this.keyMode = k;
      return this;
    }

    /** {@code --key host|domain|none}. */
    public Builder keyMode(String k) {
      return keyMode(parse(KeyMode.class, "{key}", k, "host, domain, none"));
    }

    /**
     * {@code --strip-params none|default|NAME[,NAME...]}: {@code none} (or empty) turns the rule
     * off, {@code default} removes {@link #DEFAULT_STRIP_PARAMS}.
     */
    public Builder stripParams(String spec) {
      String s = spec == null ? "" : spec.trim();
      if (s.isEmpty() || s.equalsIgnoreCase("none")) {
        return stripParams(List.of());
      }
      if (s.equalsIgnoreCase("default")) {
        return stripParams(DEFAULT_STRIP_PARAMS);
      }
      return stripParams(Arrays.asList(s.split(",", -1)));
    }

    /** Parameter names to remove (matched case-insensitively). */
    public Builder stripParams(List<String> names) {
      List<String> out = new ArrayList<>();
      for (String raw : names) {
        String n = raw == null ? "" : raw.trim().toLowerCase(Locale.ROOT);
        if (!validParamName(n)) {
          throw new InvalidSpecException(
              "{stripParams}: bad parameter name '"
                  + raw
                  + "' (accepted: none, default, or a comma-separated list of names made of"
                  + " letters, digits, '-', '_', '.', '~', and '*' as a wildcard)");
        }
        if (!out.contains(n)) {
          out.add(n);
        }
      }
      this.stripParams = out;
      return this;
    }

    public Builder stripWww(boolean on) {
      this.stripWww = on;
      return this;
    }

    /** {@code --sort-params}. */
    public Builder sortParams(boolean on) {
      this.sortParams = on;
      return this;
    }

    /** {@code --drop-empty-params}. */
    public Builder dropEmptyParams(boolean on) {
      this.dropEmptyParams = on;
      return this;
    }

    /** {@code --collapse-slashes}. */
    public Builder collapseSlashes(boolean on) {
      this.collapseSlashes = on;
      return this;
    }

    public DecodeConfig build() {
      return new DecodeConfig(this);
    }

    private static boolean validParamName(String n) {
      if (n.isEmpty()) {
        return false;
      }
      for (int i = 0; i < n.length(); i++) {
        char c = n.charAt(i);
        boolean ok =
            (c >= 'a' && c <= 'z')
                || (c >= '0' && c <= '9')
                || c == '-'
                || c == '_'
                || c == '.'
                || c == '~'
                || c == '*';
        if (!ok) {
          return false;
        }
      }
      return true;
    }

    private static <E extends Enum<E>> E parse(Class<E> type, String flag, String v, String ok) {
      if (v != null) {
        for (E e : type.getEnumConstants()) {
          if (e.name().equalsIgnoreCase(v.trim())) {
            return e;
          }
        }
      }
      throw new InvalidSpecException(flag + ": unknown value '" + v + "' (accepted: " + ok + ")");
    }
  }
}
