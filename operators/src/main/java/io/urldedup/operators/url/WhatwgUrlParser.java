package io.urldedup.operators.url;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Arrays;
import java.util.Locale;

/**
 * The WHATWG URL Standard's basic URL parser (section 4.4) for absolute http and https URLs without
 * a base, on UTF-8 bytes, serializing as it goes, with the default canonicalization rules of
 * docs/canonicalization.md applied on the way: userinfo and fragment are not written,
 * percent-escapes are normalized (RFC 3986 6.2.2.1 and 6.2.2.2), one trailing dot of the host and
 * an empty query are dropped.
 *
 * <p>With a null base the state machine of a special scheme reduces to: trim leading and trailing
 * C0 controls and spaces; remove tabs and newlines; the first '#' starts the fragment; scheme; any
 * run of '/' and '\' (special authority ignore slashes); the authority up to the first '/', '\' or
 * '?', its userinfo ending at its last '@'; host and port split at the first ':' outside brackets;
 * path segments separated by '/' or '\' with single- and double-dot segments resolved; the query.
 * Each failure the standard has is a {@link InvalidUrlException} with a reason.
 *
 * <p>Input must be well-formed UTF-8 (callers check it). Not thread-safe; reuses its buffers.
 */
public final class WhatwgUrlParser {

  /**
   * Names this parser's canonical forms (the standard's revision of the test data it passes and the
   * default rules); part of the canonicalization fingerprint. Change it whenever a canonical form
   * can change.
   */
  public static final String VERSION = "whatwg-url-2026-07+defaults-1";

  private static final byte[] HTTP = "http://".getBytes(ISO_8859_1);
  private static final byte[] HTTPS = "https://".getBytes(ISO_8859_1);
  private static final int MAX_DETAIL = 60;

  /** Forbidden domain code points (ASCII): forbidden host code points, C0 controls, %, DEL. */
  private static final boolean[] FORBIDDEN_DOMAIN = new boolean[128];

  static {
    for (int c = 0; c <= 0x20; c++) {
      FORBIDDEN_DOMAIN[c] = true;
    }
    for (char c : "#%/:<>?@[\\]^|\u007f".toCharArray()) {
      FORBIDDEN_DOMAIN[c] = true;
    }
  }

  private final Idna idna = new Idna();
  private final int[] ipv6 = new int[8];
  private byte[] out = new byte[256];
  private int n;
  private byte[] clean = new byte[256];
  private byte[] host = new byte[64];
  private int[] segments = new int[16];

  /**
   * Parses {@code b[off, off+len)} and sets {@code result} to a view of this parser's buffer.
   *
   * @throws InvalidUrlException when the standard fails the input or it is not http(s)
   */
  public void parse(byte[] b, int off, int len, CanonicalUrl result) throws InvalidUrlException {
    int s = off;
    int e = off + len;
    while (s < e && (b[s] & 0xFF) <= 0x20) {
      s++;
    }
    while (e > s && (b[e - 1] & 0xFF) <= 0x20) {
      e--;
    }
    if (s == e) {
      throw new InvalidUrlException(InvalidUrlException.Reason.EMPTY, "empty URL");
    }
    for (int i = s; i < e; i++) {
      byte c = b[i];
      if (c == '\t' || c == '\n' || c == '\r') {
        e = withoutTabsAndNewlines(b, s, e);
        b = clean;
        s = 0;
        break;
      }
    }
    for (int i = s; i < e; i++) {
      if (b[i] == '#') {
        e = i; // the fragment: never part of the canonical form
        break;
      }
    }

    // scheme start and scheme states
    if (!Ascii.isAlpha(b[s])) {
      throw new InvalidUrlException(
          InvalidUrlException.Reason.RELATIVE_URL,
          "no scheme: a relative reference (absolute http or https URLs only)");
    }
    int colon = s + 1;
    while (colon < e && isSchemeChar(b[colon])) {
      colon++;
    }
    if (colon == e || b[colon] != ':') {
      throw new InvalidUrlException(
          InvalidUrlException.Reason.RELATIVE_URL,
          "no scheme: a relative reference (absolute http or https URLs only)");
    }
    boolean https;
    if (equalsIgnoreCase(b, s, colon, HTTP, 4)) {
      https = false;
    } else if (equalsIgnoreCase(b, s, colon, HTTPS, 5)) {
      https = true;
    } else {
      throw new InvalidUrlException(
          InvalidUrlException.Reason.UNSUPPORTED_SCHEME,
          "scheme '"
              + clip(new String(b, s, colon - s, ISO_8859_1).toLowerCase(Locale.ROOT))
              + "' (accepted: http, https)");
    }
    ensure(e - s + 16);
    byte[] prefix = https ? HTTPS : HTTP;
    System.arraycopy(prefix, 0, out, 0, prefix.length);
    n = prefix.length;

    // special authority (ignore) slashes, authority: userinfo ends at the last '@'
    int p = colon + 1;
    while (p < e && (b[p] == '/' || b[p] == '\\')) {
      p++;
    }
    int authEnd = p;
    int at = -1;
    while (authEnd < e) {
      byte c = b[authEnd];
      if (c == '/' || c == '\\' || c == '?') {
        break;
      }
      if (c == '@') {
        at = authEnd;
      }
      authEnd++;
    }
    int hs = at >= 0 ? at + 1 : p;
    if (at >= 0 && hs == authEnd) {
      throw new InvalidUrlException(
          InvalidUrlException.Reason.BAD_HOST, "no host after the userinfo");
    }

    // host state: the host ends at the first ':' outside brackets
    int portColon = -1;
    boolean inBrackets = false;
    for (int i = hs; i < authEnd; i++) {
      byte c = b[i];
      if (c == '[') {
        inBrackets = true;
      } else if (c == ']') {
        inBrackets = false;
      } else if (c == ':' && !inBrackets) {
        portColon = i;
        break;
      }
    }
    int he = portColon >= 0 ? portColon : authEnd;
    if (he == hs) {
      throw new InvalidUrlException(InvalidUrlException.Reason.BAD_HOST, "empty host");
    }
    int hostStart = n;
    parseHost(b, hs, he);
    int hostEnd = n;
    if (portColon >= 0) {
      parsePort(b, portColon + 1, authEnd, https);
    }

    // path start and path states
    int pathStart = n;
    int q = authEnd;
    if (q < e && (b[q] == '/' || b[q] == '\\')) {
      q++;
    }
    ensure(n + 3 * (e - q) + 2);
    int depth = 0;
    int queryStart = -1;
    while (true) {
      int segStart = n;
      out[n++] = '/';
      byte term = 0;
      while (q < e) {
        byte c = b[q];
        if (c == '/' || c == '\\' || c == '?') {
          term = c;
          break;
        }
        q = emit(b, q, e, PercentEncodeSet.PATH);
      }
      boolean slash = term == '/' || term == '\\';
      int segLen = n - segStart - 1;
      if (segLen == 2 && out[segStart + 1] == '.' && out[segStart + 2] == '.') {
        // double-dot segment (".", "%2e" in any case: escapes of '.' are decoded by emit)
        n = segStart;
        if (depth > 0) {
          depth--;
          n = segments[depth];
        }
        if (!slash) {
          out[n++] = '/';
        }
      } else if (segLen == 1 && out[segStart + 1] == '.') {
        n = segStart;
        if (!slash) {
          out[n++] = '/';
        }
      } else {
        if (depth == segments.length) {
          segments = Arrays.copyOf(segments, depth * 2);
        }
        segments[depth++] = segStart;
      }
      if (term == 0) {
        break;
      }
      q++;
      if (term == '?') {
        queryStart = n;
        out[n++] = '?';
        while (q < e) {
          q = emit(b, q, e, PercentEncodeSet.SPECIAL_QUERY);
        }
        if (n == queryStart + 1) {
          n = queryStart; // an empty query is dropped (docs/canonicalization.md)
          queryStart = -1;
        }
        break;
      }
    }
    result.set(out, 0, n, hostStart, hostEnd, pathStart, queryStart, false);
  }

  /**
   * Writes one byte of a path or query at {@code b[i]}, percent-encoded when {@code set} has it; an
   * escape {@code %XX} is normalized: decoded when unreserved (unless that would make a new escape
   * with a literal '%' before it), else hex in upper case.
   */
  private int emit(byte[] b, int i, int e, boolean[] set) {
    byte c = b[i];
    if (c == '%' && i + 2 < e) {
      int h1 = Ascii.hex(b[i + 1]);
      int h2 = Ascii.hex(b[i + 2]);
      if ((h1 | h2) >= 0) {
        int v = h1 << 4 | h2;
        if (Ascii.isUnreserved(v) && !(Ascii.hex((byte) v) >= 0 && afterLiteralPercent())) {
          out[n++] = (byte) v;
        } else {
          out[n++] = '%';
          out[n++] = Ascii.HEX_UPPER[h1];
          out[n++] = Ascii.HEX_UPPER[h2];
        }
        return i + 3;
      }
    }
    if (set[c & 0xFF]) {
      out[n++] = '%';
      out[n++] = Ascii.HEX_UPPER[(c >> 4) & 0xF];
      out[n++] = Ascii.HEX_UPPER[c & 0xF];
    } else {
      out[n++] = c;
    }
    return i + 1;
  }

  /**
   * Whether the output ends in a literal '%' or '%' and a hex digit: decoding an escaped hex digit
   * there would write a new escape ({@code %%41a} would become {@code %Aa}), so it stays escaped.
   */
  private boolean afterLiteralPercent() {
    return out[n - 1] == '%' || (out[n - 2] == '%' && Ascii.hex(out[n - 1]) >= 0);
  }

  /** The host parser for special schemes (3.5), then the trailing-dot rule. */
  private void parseHost(byte[] b, int s, int e) throws InvalidUrlException {
    if (b[s] == '[') {
      if (e - s < 2 || b[e - 1] != ']') {
        throw new InvalidUrlException(InvalidUrlException.Reason.BAD_HOST, "unclosed '[' in host");
      }
      if (!Ipv6Host.parse(b, s + 1, e - 1, ipv6)) {
        throw new InvalidUrlException(
            InvalidUrlException.Reason.BAD_HOST,
            "bad IPv6 address '" + clip(new String(b, s, e - s, UTF_8)) + "'");
      }
      ensure(n + 42);
      out[n++] = '[';
      n = Ipv6Host.serialize(ipv6, out, n);
      out[n++] = ']';
      return;
    }
    // percent-decode; domain to ASCII of an ASCII domain is ASCII lower-casing (beStrict false)
    if (host.length < e - s) {
      host = new byte[Math.max(e - s, 2 * host.length)];
    }
    int h = 0;
    boolean ascii = true;
    for (int i = s; i < e; i++) {
      byte c = b[i];
      if (c == '%' && i + 2 < e && (Ascii.hex(b[i + 1]) | Ascii.hex(b[i + 2])) >= 0) {
        c = (byte) (Ascii.hex(b[i + 1]) << 4 | Ascii.hex(b[i + 2]));
        i += 2;
      }
      ascii &= c >= 0;
      host[h++] = c;
    }
    int hostStart = n;
    if (ascii) {
      ensure(n + h);
      for (int i = 0; i < h; i++) {
        out[n++] = Ascii.lower(host[i]);
      }
    } else {
      // UTF-8 decode without BOM: malformed bytes become U+FFFD, which UTS #46 disallows
      String a = idna.toAscii(new String(host, 0, h, UTF_8));
      if (a == null) {
        throw new InvalidUrlException(
            InvalidUrlException.Reason.BAD_HOST,
            "IDNA (UTS #46) "
                + idna.error()
                + " in host '"
                + clip(new String(host, 0, h, UTF_8))
                + "'");
      }
      ensure(n + a.length());
      for (int i = 0; i < a.length(); i++) {
        char c = a.charAt(i);
        if (c >= 0x80) {
          throw new InvalidUrlException(
              InvalidUrlException.Reason.BAD_HOST, "IDNA left non-ASCII in host");
        }
        out[n++] = (byte) c;
      }
    }
    if (n == hostStart) {
      throw new InvalidUrlException(
          InvalidUrlException.Reason.BAD_HOST, "empty host after IDNA mapping");
    }
    for (int i = hostStart; i < n; i++) {
      if (FORBIDDEN_DOMAIN[out[i]]) {
        throw new InvalidUrlException(
            InvalidUrlException.Reason.BAD_HOST,
            "forbidden code point "
                + printable(out[i])
                + " in host '"
                + clip(new String(out, hostStart, n - hostStart, ISO_8859_1))
                + "'");
      }
    }
    if (Ipv4Host.endsInNumber(out, hostStart, n)) {
      long ip = Ipv4Host.parse(out, hostStart, n);
      if (ip == Ipv4Host.FAILURE) {
        throw new InvalidUrlException(
            InvalidUrlException.Reason.BAD_HOST,
            "host ends in a number but is no"
                + " IPv4 address: '"
                + clip(new String(out, hostStart, n - hostStart, ISO_8859_1))
                + "'");
      }
      n = Ipv4Host.serialize(ip, out, hostStart);
      return;
    }
    n = HostTrailingDot.end(out, hostStart, n);
  }

  /** The port state: digits only, at most 65535; the scheme's default port is omitted. */
  private void parsePort(byte[] b, int s, int e, boolean https) throws InvalidUrlException {
    int v = 0;
    for (int i = s; i < e; i++) {
      if (!Ascii.isDigit(b[i])) {
        throw new InvalidUrlException(
            InvalidUrlException.Reason.BAD_PORT,
            "port '" + clip(new String(b, s, e - s, UTF_8)) + "' (accepted: 0 to 65535)");
      }
      v = v * 10 + (b[i] - '0');
      if (v > 65535) {
        throw new InvalidUrlException(
            InvalidUrlException.Reason.BAD_PORT,
            "port '" + clip(new String(b, s, e - s, UTF_8)) + "' (accepted: 0 to 65535)");
      }
    }
    if (s == e || v == (https ? 443 : 80)) {
      return;
    }
    ensure(n + 6);
    out[n++] = ':';
    n = appendDecimal(v, out, n);
  }

  private static int appendDecimal(int v, byte[] a, int at) {
    int digits = v >= 10000 ? 5 : v >= 1000 ? 4 : v >= 100 ? 3 : v >= 10 ? 2 : 1;
    for (int i = at + digits - 1; i >= at; i--) {
      a[i] = (byte) ('0' + v % 10);
      v /= 10;
    }
    return at + digits;
  }

  private int withoutTabsAndNewlines(byte[] b, int s, int e) {
    if (clean.length < e - s) {
      clean = new byte[Math.max(e - s, 2 * clean.length)];
    }
    int k = 0;
    for (int i = s; i < e; i++) {
      byte c = b[i];
      if (c != '\t' && c != '\n' && c != '\r') {
        clean[k++] = c;
      }
    }
    return k;
  }

  private void ensure(int capacity) {
    if (out.length < capacity) {
      out = Arrays.copyOf(out, Math.max(capacity, 2 * out.length));
    }
  }

  private static boolean isSchemeChar(byte c) {
    return Ascii.isAlpha(c) || Ascii.isDigit(c) || c == '+' || c == '-' || c == '.';
  }

  private static boolean equalsIgnoreCase(byte[] b, int s, int e, byte[] lower, int len) {
    if (e - s != len) {
      return false;
    }
    for (int i = 0; i < len; i++) {
      if (Ascii.lower(b[s + i]) != lower[i]) {
        return false;
      }
    }
    return true;
  }

  private static String printable(byte c) {
    return c <= 0x20 || c == 0x7F
        ? String.format(Locale.ROOT, "U+%04X", c & 0xFF)
        : "'" + (char) c + "'";
  }

  /** Details quote untrusted input, which must not blow up a dead-letter record or a log line. */
  private static String clip(String s) {
    return s.length() <= MAX_DETAIL ? s : s.substring(0, MAX_DETAIL) + "...";
  }
}
