package io.urldedup.state;

import net.openhft.hashing.LongTupleHashFunction;

/**
 * The one hash computation per URL: XXH3-128 over the URL's UTF-8 bytes with a secret seed.
 *
 * <p>Everything downstream (shard choice, block choice, probe positions, stable-filter decay
 * positions, the latter together with the filter's insert counter) is derived from the two 64-bit
 * halves, so a URL is hashed exactly once.
 *
 * <p>The seed is secret so that an adversary cannot compute which shard, block and bits a URL sets:
 * without it they cannot search offline for URLs that pollute one block or that cover a victim
 * URL's bits (Gerbet, Kaafar, Mehta 2015); their URLs act as random keys. XXH3 is not a keyed PRF:
 * pairs of URLs that collide under every seed may exist, but such a pair only hides the attacker's
 * own second URL. SeedPollutionTest measures both cases. Only {@link #seedFingerprint()} may be
 * persisted or shown.
 *
 * <p>{@code hashBytes} is used rather than {@code hashChars}: it is 2-3x faster and it is the hash
 * of the bytes that crawlers actually exchange.
 *
 * <p>Thread-safe and allocation-free.
 */
public final class UrlHasher {

  private final LongTupleHashFunction xx128;
  private final long fingerprint;

  public UrlHasher(long seed) {
    this.xx128 = LongTupleHashFunction.xx128(seed);
    this.fingerprint = SeedFingerprint.of(seed);
  }

  /**
   * Writes the 128-bit hash of {@code bytes[off, off+len)} into {@code out[0]} and {@code out[1]}.
   */
  public void hash(byte[] bytes, int off, int len, long[] out) {
    xx128.hashBytes(bytes, off, len, out);
  }

  /** A one-way fingerprint of the seed, safe to persist in state and to print. */
  public long seedFingerprint() {
    return fingerprint;
  }

  /**
   * Maps a 64-bit hash uniformly onto [0, n) without division bias and without 32-bit truncation:
   * the high 64 bits of the unsigned 128-bit product {@code h * n} (Lemire 2019).
   */
  public static long reduce(long h, long n) {
    return Math.multiplyHigh(h, n) + ((h >> 63) & n);
  }

  /** The shard of a URL: derived from the second half so that it is independent of block choice. */
  public static int shard(long h1, long h2, int shards) {
    return (int) reduce(Long.rotateLeft(h2, 17) ^ h1, shards);
  }
}
