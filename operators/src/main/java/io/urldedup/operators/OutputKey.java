package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import crawlercommons.domains.EffectiveTldFinder;
import java.util.Arrays;

/**
 * The output record key of a canonical URL: its host (StormCrawler's byHost), its registrable
 * domain (byDomain: public suffix list via crawler-commons {@link EffectiveTldFinder}, private
 * suffixes such as blogspot.com counted as suffixes; IPs, unknown suffixes and bare suffixes fall
 * back to the host), or none. Keys are ASCII: canonical hosts are Punycode. Not thread-safe.
 */
public final class OutputKey {

  private final DecodeConfig.KeyMode mode;
  private byte[] lastHost;
  private byte[] lastKey;

  public OutputKey(DecodeConfig.KeyMode mode) {
    this.mode = mode;
  }

  /**
   * The key bytes of the canonical URL whose host is {@code b[hostStart, hostEnd)}, or null. The
   * last host's key is reused (links come in bursts per host): records may share a key array,
   * which nobody mutates.
   */
  public byte[] of(byte[] b, int hostStart, int hostEnd) {
    if (mode == DecodeConfig.KeyMode.NONE) {
      return null;
    }
    if (lastHost != null && Arrays.equals(lastHost, 0, lastHost.length, b, hostStart, hostEnd)) {
      return lastKey;
    }
    lastHost = Arrays.copyOfRange(b, hostStart, hostEnd);
    lastKey = mode == DecodeConfig.KeyMode.HOST ? lastHost
        : domainKey(new String(lastHost, java.nio.charset.StandardCharsets.ISO_8859_1));
    return lastKey;
  }

  /** The key bytes of a canonical URL string (its host: after "://", up to ':', '/' or '?'). */
  public byte[] of(String canonicalUrl) {
    byte[] b = canonicalUrl.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    int s = canonicalUrl.indexOf("://");
    s = s < 0 ? 0 : s + 3;
    int e = s;
    if (e < b.length && b[e] == '[') {
      while (e < b.length && b[e] != ']') {
        e++;
      }
      e = Math.min(e + 1, b.length);
    } else {
      while (e < b.length && b[e] != '/' && b[e] != ':' && b[e] != '?') {
        e++;
      }
    }
    return of(b, s, e);
  }

  private static byte[] domainKey(String host) {
    if (host.startsWith("[")) {
      return host.getBytes(UTF_8);
    }
    String domain = EffectiveTldFinder.getAssignedDomain(host, true, false);
    return (domain == null ? host : domain).getBytes(UTF_8);
  }
}
