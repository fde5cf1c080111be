package io.urldedup.operators.url;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * The result of canonicalizing one URL: a view {@code bytes[start, end)} of ASCII bytes, either
 * into the input itself (it was canonical already) or into the canonicalizer's buffer, valid until
 * its next call. Host offsets are absolute indices into {@code bytes}. Reused: one instance per
 * task, no allocation per URL.
 */
public final class CanonicalUrl {

  public byte[] bytes;
  public int start;
  public int end;
  public int hostStart;
  public int hostEnd;

  /** Where the path starts (its first '/'). */
  public int pathStart;

  /** Where the query starts (its '?'), or -1 without a query. */
  public int queryStart;

  /** Whether {@code bytes} is the caller's input (the fast path matched). */
  public boolean isInput;

  void set(
      byte[] bytes,
      int start,
      int end,
      int hostStart,
      int hostEnd,
      int pathStart,
      int queryStart,
      boolean isInput) {
    this.bytes = bytes;
    this.start = start;
    this.end = end;
    this.hostStart = hostStart;
    this.hostEnd = hostEnd;
    this.pathStart = pathStart;
    this.queryStart = queryStart;
    this.isInput = isInput;
  }

  public int length() {
    return end - start;
  }

  /** The canonical URL as a string (it is ASCII). */
  @Override
  public String toString() {
    return new String(bytes, start, end - start, ISO_8859_1);
  }

  /** The canonical host (Punycode, IPv4 dotted, IPv6 in brackets). */
  public String host() {
    return new String(bytes, hostStart, hostEnd - hostStart, ISO_8859_1);
  }
}
