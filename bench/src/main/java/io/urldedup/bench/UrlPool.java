package io.urldedup.bench;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/** Deterministic, realistic crawler URLs (about 95 bytes on average) as UTF-8 byte arrays. */
final class UrlPool {

  private static final String[] TLDS = {"com", "org", "net", "de", "co.uk", "io", "fr", "info"};
  private static final String[] WORDS = {"news", "article", "product", "category", "blog", "2024", "en", "search",
      "static", "images", "world", "sport", "tech", "shop", "item", "page", "forum", "thread", "user", "docs"};

  private UrlPool() {}

  static byte[][] generate(int n, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    byte[][] urls = new byte[n][];
    for (int i = 0; i < n; i++) {
      urls[i] = url(rnd, i).getBytes(StandardCharsets.UTF_8);
    }
    return urls;
  }

  static String url(SplittableRandom rnd, long i) {
    StringBuilder sb = new StringBuilder(128);
    sb.append(rnd.nextInt(4) == 0 ? "http://" : "https://");
    if (rnd.nextBoolean()) {
      sb.append("www.");
    }
    sb.append(word(rnd)).append('-').append(word(rnd)).append(rnd.nextInt(1000)).append('.')
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

  static double meanLength(byte[][] urls) {
    long total = 0;
    for (byte[] u : urls) {
      total += u.length;
    }
    return total / (double) urls.length;
  }
}
