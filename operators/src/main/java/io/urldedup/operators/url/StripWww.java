package io.urldedup.operators.url;

import crawlercommons.domains.EffectiveTldFinder;

/**
 * Opt-in rule {@code --strip-www}: a leading {@code www.} is removed while what remains is still a
 * registrable domain or below it (public suffix list, crawler-commons {@link EffectiveTldFinder}):
 * {@code www.example.com} becomes {@code example.com}, but {@code www.co.uk} stays. Repeated, so
 * that {@code www.www.example.com} is idempotent. Merges two hosts, which most sites serve alike
 * and some do not. Pure.
 */
public final class StripWww {

  private StripWww() {}

  /**
   * @param host a canonical host
   */
  public static String apply(String host) {
    String h = host;
    while (h.startsWith("www.")) {
      String rest = h.substring(4);
      if (rest.startsWith("[") || EffectiveTldFinder.getAssignedDomain(rest, true, false) == null) {
        break;
      }
      h = rest;
    }
    return h;
  }
}
