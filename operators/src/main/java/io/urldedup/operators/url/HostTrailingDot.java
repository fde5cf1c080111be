package io.urldedup.operators.url;

/**
 * Default rule "host trailing dot dropped": {@code example.com.} names the same DNS node as {@code
 * example.com} (RFC 1034 3.1: the final dot is the root label) and HTTP servers treat both as one
 * site. Exactly one trailing dot is dropped, and only from a host with another character before it:
 * {@code a..} and {@code .} are kept as written (no DNS name; merging them would be a guess), which
 * keeps the rule idempotent.
 */
public final class HostTrailingDot {

  private HostTrailingDot() {}

  /** The end of the host {@code b[s, e)} after the rule. */
  public static int end(byte[] b, int s, int e) {
    return e - s >= 2 && b[e - 1] == '.' && b[e - 2] != '.' ? e - 1 : e;
  }

  /** The rule on a host string (for tests and the docs). */
  public static String apply(String host) {
    byte[] b = host.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    return host.substring(0, end(b, 0, b.length));
  }
}
