package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import crawlercommons.domains.EffectiveTldFinder;

/**
 * The output record key of a canonical URL: its host (StormCrawler's byHost), its registrable
 * domain (byDomain: public suffix list via crawler-commons {@link EffectiveTldFinder}, private
 * suffixes such as blogspot.com counted as suffixes; IPs, unknown suffixes and bare suffixes fall
 * back to the host), or none. Keys are ASCII: canonical hosts are Punycode.
 */
public final class OutputKey {

  private final DecodeConfig.KeyMode mode;

  public OutputKey(DecodeConfig.KeyMode mode) {
    this.mode = mode;
  }

  /** The key bytes of the canonical URL whose host is {@code b[hostStart, hostEnd)}, or null. */
  public byte[] of(byte[] b, int hostStart, int hostEnd) {
    switch (mode) {
      case NONE:
        return null;
      case HOST:
        return java.util.Arrays.copyOfRange(b, hostStart, hostEnd);
      case DOMAIN:
      default:
        String host = new String(b, hostStart, hostEnd - hostStart,
            java.nio.charset.StandardCharsets.ISO_8859_1);
        return domainKey(host);
    }
  }

  private static byte[] domainKey(String host) {
    if (host.startsWith("[")) {
      return host.getBytes(UTF_8);
    }
    String domain = EffectiveTldFinder.getAssignedDomain(host, true, false);
    return (domain == null ? host : domain).getBytes(UTF_8);
  }

  /** The key bytes of a canonical URL (as made by {@link UrlCanonicalizer}), or null. */
  public byte[] of(String canonicalUrl) {
    switch (mode) {
      case NONE:
        return null;
      case HOST:
        return host(canonicalUrl).getBytes(UTF_8);
      case DOMAIN:
      default:
        String host = host(canonicalUrl);
        if (host.startsWith("[")) {
          return host.getBytes(UTF_8);
        }
        String domain = EffectiveTldFinder.getAssignedDomain(host, true, false);
        return (domain == null ? host : domain).getBytes(UTF_8);
    }
  }

  /** The host of a canonical URL: after {@code ://}, up to the port, path or query. */
  public static String host(String canonicalUrl) {
    int s = canonicalUrl.indexOf("://");
    s = s < 0 ? 0 : s + 3;
    int e = s;
    if (e < canonicalUrl.length() && canonicalUrl.charAt(e) == '[') {
      int close = canonicalUrl.indexOf(']', e);
      return close < 0 ? canonicalUrl.substring(s) : canonicalUrl.substring(s, close + 1);
    }
    while (e < canonicalUrl.length()) {
      char c = canonicalUrl.charAt(e);
      if (c == '/' || c == ':' || c == '?') {
        break;
      }
      e++;
    }
    return canonicalUrl.substring(s, e);
  }
}
