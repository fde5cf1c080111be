package io.urldedup.bench;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Deterministic, realistic crawler URLs (about 93 bytes on average), UTF-8, stored back to back in
 * one byte array: URL i is {@code bytes[offsets[i], offsets[i + 1])}. Flat because the 256 MiB
 * benchmark needs 2^22 URLs (about 390 MB): as 2^22 separate arrays they would add 16 bytes of
 * header each and scatter the reads that the flat array streams.
 */
final class UrlPool {

  private static final String[] TLDS = {"com", "org", "net", "de", "co.uk", "io", "fr", "info"};
  private static final String[] WORDS = {
    "news",
    "article",
    "product",
    "category",
    "blog",
    "2024",
    "en",
    "search",
    "static",
    "images",
    "world",
    "sport",
    "tech",
    "shop",
    "item",
    "page",
    "forum",
    "thread",
    "user",
    "docs"
  };

  final byte[] bytes;
  final int[] offsets;

  private UrlPool(byte[] bytes, int[] offsets) {
    this.bytes = bytes;
    this.offsets = offsets;
  }

  /**
   * URLs 0..n-1 of the generator seeded with {@code seed}; a pool of n is a prefix of a larger one.
   */
  static UrlPool generate(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    byte[] bytes = new byte[n * 100 + 4096];
    int[] offsets = new int[n + 1];
    int at = 0;
    for (int i = 0; i < n; i++) {
      byte[] u = url(rnd, i).getBytes(StandardCharsets.UTF_8);
      if (at + u.length > bytes.length) {
        bytes =
            Arrays.copyOf(
                bytes,
                (int)
                    Math.min(
                        Integer.MAX_VALUE - 8,
                        bytes.length + (bytes.length >> 3) + (long) u.length));
      }
      System.arraycopy(u, 0, bytes, at, u.length);
      at += u.length;
      offsets[i + 1] = at;
    }
    return new UrlPool(bytes, offsets);
  }

  int size() {
    return offsets.length - 1;
  }

  int offset(int i) {
    return offsets[i];
  }

  int length(int i) {
    return offsets[i + 1] - offsets[i];
  }

  static String url(SplittableRandom rnd, long i) {
    StringBuilder sb = new StringBuilder(128);
    sb.append(rnd.nextInt(4) == 0 ? "http://" : "https://");
    if (rnd.nextBoolean()) {
      sb.append("www.");
    }
    sb.append(word(rnd))
        .append('-')
        .append(word(rnd))
        .append(rnd.nextInt(1000))
        .append('.')
        .append(TLDS[rnd.nextInt(TLDS.length)]);
    int segments = 1 + rnd.nextInt(4);
    for (int s = 0; s < segments; s++) {
      sb.append('/').append(word(rnd));
    }
    sb.append('/');
    int slug = 2 + rnd.nextInt(5);
    for (int s = 0; s < slug; s++) {
      if (s > 0) {
        sb.append('-');
      }
      sb.append(word(rnd));
    }
    sb.append(".html");
    if (rnd.nextInt(3) > 0) {
      sb.append("?id=").append(i).append("&ref=").append(Long.toHexString(rnd.nextLong() >>> 24));
      if (rnd.nextBoolean()) {
        sb.append("&utm_source=").append(word(rnd));
      }
    }
    return sb.toString();
  }

  private static String word(SplittableRandom rnd) {
    return WORDS[rnd.nextInt(WORDS.length)];
  }

  double meanLength() {
    return offsets[size()] / (double) size();
  }
}
