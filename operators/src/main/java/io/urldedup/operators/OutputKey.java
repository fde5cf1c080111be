package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import crawlercommons.domains.EffectiveTldFinder;
import java.util.Arrays;

/**
 * The output record key of a canonical URL: its host (StormCrawler's byHost), its registrable
 * domain (byDomain: public suffix list via crawler-commons {@link EffectiveTldFinder}, private
 * suffixes such as blogspot.com counted as suffixes; IPs, unknown suffixes and bare suffixes fall
 * back to the host), or none. Keys are ASCII: canonical hosts are Punycode.
 *
 * <p>The key is set as a range of the URL's bytes: the host is a part of the canonical URL and a
 * registrable domain a suffix of the host, so no key is copied per URL. The domain lookup is
 * remembered for the last host (links come in bursts per host). Not thread-safe.
 */
public final class OutputKey {

  private final DecodeConfig.KeyMode mode;

  /** The last host looked up ({@code lastHost[0, lastHostLength)}) and where its domain starts. */
  private byte[] lastHost = new byte[64];

  private int lastHostLength = -1;
  private int lastDomainStart;

  /** The last host's domain when it is not a suffix of the host (never seen; kept as a guard). */
  private byte[] lastDomain;

  public OutputKey(DecodeConfig.KeyMode mode) {
    this.mode = mode;
  }

  /** Sets {@code r}'s key for the canonical URL whose host is {@code b[hostStart, hostEnd)}. */
  public void set(UrlRecord r, byte[] b, int hostStart, int hostEnd) {
    switch (mode) {
      case NONE:
        r.setKey(null, 0, 0);
        return;
      case HOST:
        r.setKey(b, hostStart, hostEnd - hostStart);
        return;
      default:
        int n = hostEnd - hostStart;
        if (n != lastHostLength || !Arrays.equals(lastHost, 0, n, b, hostStart, hostEnd)) {
          lookUp(b, hostStart, n);
        }
        if (lastDomain != null) {
          r.setKey(lastDomain, 0, lastDomain.length);
        } else {
          r.setKey(b, hostStart + lastDomainStart, n - lastDomainStart);
        }
    }
  }

  private void lookUp(byte[] b, int hostStart, int n) {
    if (lastHost.length < n) {
      lastHost = new byte[Math.max(n, 2 * lastHost.length)];
    }
    System.arraycopy(b, hostStart, lastHost, 0, n);
    lastHostLength = n;
    lastDomain = null;
    lastDomainStart = 0;
    String host = new String(lastHost, 0, n, ISO_8859_1);
    if (host.startsWith("[")) {
      return; // IPv6: the host
    }
    String domain = EffectiveTldFinder.getAssignedDomain(host, true, false);
    if (domain == null || domain.equals(host)) {
      return;
    }
    int start = n - domain.length();
    if (start > 0 && host.endsWith(domain) && host.charAt(start - 1) == '.') {
      lastDomainStart = start;
    } else {
      lastDomain = domain.getBytes(UTF_8);
    }
  }
}
