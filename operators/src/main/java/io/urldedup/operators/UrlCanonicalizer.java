package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import crawlercommons.domains.EffectiveTldFinder;
import crawlercommons.filters.basic.BasicURLNormalizer;
import java.net.IDN;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Canonical form of crawler URLs: crawler-commons {@link BasicURLNormalizer} (fragment removed,
 * scheme and host lower-cased, IDN to Punycode, default port dropped, dot segments removed,
 * percent-encoding normalized, query parameters sorted by name) plus two opt-in rules: removal of
 * named query and path parameters (case-insensitive, e.g. {@code ;jsessionid=}) and removal of a
 * leading {@code www.}. Only absolute http and https URLs are accepted; userinfo is dropped.
 *
 * <p>Around crawler-commons 1.6 this class guards against:
 * <ul>
 *   <li>issue #559: {@code normalizeUrlFile} splits path and query at an index taken before the
 *       path was unescaped, so a decoded escape ({@code /p%2d1/?zz=1&aa=2}) shifts the split: the
 *       result is garbage ({@code /p-1/?z?aa=2}) or a {@code StringIndexOutOfBoundsException}.
 *       Workaround: the path and query are escaped and unescaped with the normalizer's own
 *       {@code escapePath}/{@code unescapePath} first, so its internal unescape no longer changes
 *       lengths;</li>
 *   <li>escapes in hosts: the host is URL-decoded and the URL rebuilt from the decoded text, so
 *       {@code http://ex%2Fample.com/x} becomes {@code http://ex/ample.com/ample.com/x} (another
 *       host). Workaround: hosts are checked here before and after, and a host whose escapes decode
 *       to anything but host characters is rejected;</li>
 *   <li>issue #587 (fixed after 1.6): IPv6 literals are escaped and rejected. Workaround: the
 *       literal is swapped for a placeholder name during normalization and put back after;</li>
 *   <li>schemeless input is silently prefixed with {@code http://} ({@code foo.html} becomes
 *       {@code http://foo.html/}): such references are rejected as relative here;</li>
 *   <li>leading {@code /..} removal in {@code getFileWithNormalizedPath} tests
 *       {@code file.charAt(3)} instead of {@code charAt(start + 3)}: after a leading {@code /..}
 *       a segment starting with {@code ..} is cut into the host ({@code http://example.com/../..x}
 *       becomes {@code http://example.comx}: another host). Workaround: dot segments are removed
 *       here first (RFC 3986 5.2.4), so the normalizer never sees a leading {@code /..};</li>
 *   <li>ports above 65535 pass: they are rejected here.</li>
 * </ul>
 *
 * <p>Not thread-safe (one instance per task); not serializable (build it in {@code open()}).
 */
public final class UrlCanonicalizer {

  private static final String IPV6_PLACEHOLDER = "ipv6-literal.invalid";

  private final BasicURLNormalizer normalizer =
      BasicURLNormalizer.newBuilder().idnNormalization(BasicURLNormalizer.IdnNormalization.PUNYCODE)
          .build();
  private final Set<String> stripParams;
  private final boolean stripWww;

  /** @param stripParams lower-case names to remove (empty: rule off); @param stripWww www rule */
  public UrlCanonicalizer(Collection<String> stripParams, boolean stripWww) {
    this.stripParams = new TreeSet<>();
    for (String p : stripParams) {
      this.stripParams.add(p.toLowerCase(Locale.ROOT));
    }
    this.stripWww = stripWww;
  }

  public static UrlCanonicalizer of(DecodeConfig config) {
    return new UrlCanonicalizer(config.stripParams(), config.stripWww());
  }

  /**
   * The canonical form of {@code input}. Leading and trailing spaces, tabs, CR and LF are ignored.
   *
   * @throws UrlRejectedException with the reason when the input is no usable absolute http(s) URL
   */
  public String canonicalize(String input) throws UrlRejectedException {
    int start = 0;
    int end = input.length();
    while (start < end && isTrimmable(input.charAt(start))) {
      start++;
    }
    while (end > start && isTrimmable(input.charAt(end - 1))) {
      end--;
    }
    if (start == end) {
      throw new UrlRejectedException(RejectReason.EMPTY, "empty URL");
    }
    checkChars(input, start, end);
    int hash = input.indexOf('#', start);
    if (hash >= 0 && hash < end) {
      end = hash;
    }
    String s = input.substring(start, end);

    int colon = schemeEnd(s);
    if (colon < 0) {
      throw new UrlRejectedException(RejectReason.RELATIVE_URL,
          "no scheme: a relative reference (absolute http or https URLs only)");
    }
    String scheme = s.substring(0, colon).toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new UrlRejectedException(RejectReason.UNSUPPORTED_SCHEME,
          "scheme '" + clip(scheme) + "' (accepted: http, https)");
    }
    if (!s.startsWith("//", colon + 1)) {
      throw new UrlRejectedException(RejectReason.BAD_HOST,
          "no authority: expected '//' after '" + scheme + ":'");
    }
    int authStart = colon + 3;
    int authEnd = authStart;
    while (authEnd < s.length() && s.charAt(authEnd) != '/' && s.charAt(authEnd) != '?') {
      authEnd++;
    }
    String authority = s.substring(authStart, authEnd);
    // userinfo is dropped (as the normalizer does): credentials have no place in a frontier
    String hostPort = authority.substring(authority.lastIndexOf('@') + 1);

    String ipv6 = null;
    String host;
    String expectedHost;
    String portText;
    if (hostPort.startsWith("[")) {
      int close = hostPort.indexOf(']');
      if (close < 0) {
        throw new UrlRejectedException(RejectReason.BAD_HOST, "unclosed '[' in host");
      }
      ipv6 = ipv6Literal(hostPort.substring(1, close));
      String rest = hostPort.substring(close + 1);
      if (!rest.isEmpty() && rest.charAt(0) != ':') {
        throw new UrlRejectedException(RejectReason.BAD_HOST,
            "unexpected '" + clip(rest) + "' after IPv6 literal");
      }
      portText = rest.isEmpty() ? "" : rest.substring(1);
      host = IPV6_PLACEHOLDER;
      expectedHost = IPV6_PLACEHOLDER;
    } else {
      int pc = hostPort.lastIndexOf(':');
      host = pc >= 0 ? hostPort.substring(0, pc) : hostPort;
      portText = pc >= 0 ? hostPort.substring(pc + 1) : "";
      expectedHost = checkHost(host);
    }
    checkPort(portText);

    // #559 workaround: make the normalizer's own unescape of path and query length-preserving.
    String tail = s.substring(authEnd);
    if (tail.indexOf('%') >= 0) {
      // without escapes in the input, the normalizer's unescape has nothing to decode
      tail = BasicURLNormalizer.unescapePath(BasicURLNormalizer.escapePath(tail));
    }
    String rebuilt = scheme + "://" + host + (portText.isEmpty() ? "" : ":" + portText)
        + withoutDotSegments(tail);

    String c = normalize(rebuilt);
    if (!stripParams.isEmpty()) {
      String stripped = stripParams(c, scheme.length() + 3);
      if (stripped != c) {
        // removing ";sid=1" from "/.;sid=1/" leaves a dot segment: normalize once more
        int path = stripped.indexOf('/', scheme.length() + 3);
        c = normalize(stripped.substring(0, path) + withoutDotSegments(stripped.substring(path)));
      }
    }
    return finish(c, scheme, expectedHost, ipv6);
  }

  /** Leading-"/.." workaround: no dot segments left in the path for the normalizer to remove. */
  private static String withoutDotSegments(String pathAndQuery) {
    int qm = pathAndQuery.indexOf('?');
    return qm < 0 ? removeDotSegments(pathAndQuery)
        : removeDotSegments(pathAndQuery.substring(0, qm)) + pathAndQuery.substring(qm);
  }

  private String normalize(String url) throws UrlRejectedException {
    String c;
    try {
      c = normalizer.filter(url);
    } catch (RuntimeException e) {
      throw new UrlRejectedException(RejectReason.UNPARSEABLE,
          "URL normalizer failed: " + e.getClass().getSimpleName());
    }
    if (c == null) {
      throw new UrlRejectedException(RejectReason.UNPARSEABLE, "rejected by the URL normalizer");
    }
    return c;
  }

  /** Applies the opt-in rules and checks the normalizer's output. */
  private String finish(String c, String scheme, String expectedHost, String ipv6)
      throws UrlRejectedException {
    String prefix = scheme + "://";
    if (!c.startsWith(prefix)) {
      throw new UrlRejectedException(RejectReason.UNPARSEABLE, "normalizer changed the scheme");
    }
    int hs = prefix.length();
    int he = hs;
    while (he < c.length() && c.charAt(he) != '/' && c.charAt(he) != ':' && c.charAt(he) != '?') {
      he++;
    }
    String host = c.substring(hs, he);
    if (!host.equals(expectedHost)) {
      // a normalizer bug moved text between host and path: never emit another host
      throw new UrlRejectedException(RejectReason.UNPARSEABLE,
          "normalizer changed the host to '" + clip(host) + "'");
    }
    String newHost = host;
    if (ipv6 != null) {
      newHost = "[" + ipv6 + "]";
    } else {
      checkCanonicalHost(host);
      // repeated, so that the rule is idempotent on www.www.example.com
      while (stripWww && newHost.startsWith("www.")) {
        String rest = newHost.substring(4);
        if (EffectiveTldFinder.getAssignedDomain(rest, true, false) == null) {
          break;
        }
        newHost = rest;
      }
    }
    if (newHost != host) {
      c = c.substring(0, hs) + newHost + c.substring(he);
    }
    return c;
  }

  /**
   * Removes named {@code ;name=value} path parameters and {@code name=value} query parameters
   * from a normalized URL; returns {@code c} itself when nothing was removed.
   */
  private String stripParams(String c, int hostStart) {
    int pathStart = c.indexOf('/', hostStart);
    if (pathStart < 0) {
      return c;
    }
    int q = c.indexOf('?', pathStart);
    int pathEnd = q < 0 ? c.length() : q;
    boolean changed = false;
    StringBuilder out = new StringBuilder(c.length());
    out.append(c, 0, pathStart);
    int i = pathStart;
    while (i < pathEnd) {
      char ch = c.charAt(i);
      if (ch == ';') {
        int j = i + 1;
        while (j < pathEnd && c.charAt(j) != ';' && c.charAt(j) != '/') {
          j++;
        }
        if (isStripped(c, i + 1, j)) {
          changed = true;
          i = j;
          continue;
        }
        out.append(c, i, j);
        i = j;
      } else {
        out.append(ch);
        i++;
      }
    }
    if (q >= 0) {
      List<String> kept = new ArrayList<>();
      int p = q + 1;
      while (p <= c.length()) {
        int amp = c.indexOf('&', p);
        int e = amp < 0 ? c.length() : amp;
        if (isStripped(c, p, e)) {
          changed = true;
        } else if (e > p) {
          kept.add(c.substring(p, e));
        }
        p = e + 1;
      }
      for (int k = 0; k < kept.size(); k++) {
        out.append(k == 0 ? '?' : '&').append(kept.get(k));
      }
    }
    return changed ? out.toString() : c;
  }

  /** Whether {@code c[from, to)}, a {@code name[=value]} pair, has a stripped name. */
  private boolean isStripped(String c, int from, int to) {
    int eq = c.indexOf('=', from);
    int nameEnd = eq < 0 || eq > to ? to : eq;
    if (nameEnd == from) {
      return false;
    }
    return stripParams.contains(c.substring(from, nameEnd).toLowerCase(Locale.ROOT));
  }

  /**
   * RFC 3986 5.2.4 remove_dot_segments for an absolute path ({@code ""} or starting with '/'):
   * {@code .} segments dropped, {@code ..} drops the previous segment, never above the root.
   */
  static String removeDotSegments(String path) {
    if (!path.contains("/.")) {
      return path;
    }
    String[] segs = path.substring(1).split("/", -1);
    List<String> out = new ArrayList<>(segs.length);
    for (int i = 0; i < segs.length; i++) {
      boolean last = i == segs.length - 1;
      if (segs[i].equals(".") || segs[i].equals("..")) {
        if (segs[i].equals("..") && !out.isEmpty()) {
          out.remove(out.size() - 1);
        }
        if (last) {
          out.add("");
        }
      } else {
        out.add(segs[i]);
      }
    }
    return "/" + String.join("/", out);
  }

  private static boolean isTrimmable(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == 0x0B;
  }

  /** Control characters (C0, DEL, C1) and unpaired surrogates (from JSON escapes). */
  private static void checkChars(String s, int start, int end) throws UrlRejectedException {
    for (int i = start; i < end; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
        throw new UrlRejectedException(RejectReason.CONTROL_CHARS,
            String.format(Locale.ROOT, "control character U+%04X at index %d", (int) c, i - start));
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          throw new UrlRejectedException(RejectReason.BAD_UTF8, String.format(Locale.ROOT,
              "unpaired surrogate U+%04X at index %d", (int) c, i - start));
        }
      }
    }
  }

  /** Index of the scheme's ':' (RFC 3986 3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )), or -1. */
  private static int schemeEnd(String s) {
    if (s.isEmpty() || !isAsciiLetter(s.charAt(0))) {
      return -1;
    }
    for (int i = 1; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == ':') {
        return i;
      }
      if (!(isAsciiLetter(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.')) {
        return -1;
      }
    }
    return -1;
  }

  private static boolean isAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isHostChar(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '.' || c == '_';
  }

  private static int hex(char c) {
    return Character.digit(c, 16);
  }

  /**
   * Checks a host as written and returns the host the normalizer must make of it. Accepted:
   * letters, digits, '-', '.', '_', non-ASCII (IDN), and escapes that decode (strict UTF-8) to
   * the same. Anything else would let the normalizer build another host.
   */
  private static String checkHost(String host) throws UrlRejectedException {
    if (host.isEmpty()) {
      throw new UrlRejectedException(RejectReason.BAD_HOST, "empty host");
    }
    String decoded = host;
    if (host.indexOf('%') >= 0) {
      byte[] bytes = new byte[host.length()];
      int n = 0;
      StringBuilder sb = new StringBuilder(host.length());
      for (int i = 0; i < host.length(); i++) {
        char c = host.charAt(i);
        if (c == '%') {
          int h1 = i + 2 < host.length() ? hex(host.charAt(i + 1)) : -1;
          int h2 = h1 >= 0 ? hex(host.charAt(i + 2)) : -1;
          if (h2 < 0) {
            throw new UrlRejectedException(RejectReason.BAD_HOST, "bad percent-escape in host");
          }
          bytes[n++] = (byte) (h1 * 16 + h2);
          i += 2;
        } else {
          if (n > 0) {
            sb.append(decodeStrict(bytes, n));
            n = 0;
          }
          sb.append(c);
        }
      }
      if (n > 0) {
        sb.append(decodeStrict(bytes, n));
      }
      decoded = sb.toString();
    }
    boolean ascii = true;
    for (int i = 0; i < decoded.length(); i++) {
      char c = decoded.charAt(i);
      if (c >= 0x80) {
        ascii = false;
      } else if (!isHostChar(c)) {
        throw new UrlRejectedException(RejectReason.BAD_HOST, "character '" + printable(c)
            + "' in host" + (decoded != host ? " (after decoding escapes)" : ""));
      }
    }
    // the host the normalizer must produce: lower case, Punycode, one trailing dot removed
    String expected = decoded.toLowerCase(Locale.ROOT);
    if (!ascii) {
      try {
        expected = IDN.toASCII(expected);
      } catch (RuntimeException e) {
        throw new UrlRejectedException(RejectReason.BAD_HOST,
            "internationalized host not convertible to Punycode");
      }
    }
    return expected.endsWith(".") ? expected.substring(0, expected.length() - 1) : expected;
  }

  private static String decodeStrict(byte[] b, int n) throws UrlRejectedException {
    try {
      return UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b, 0, n))
          .toString();
    } catch (CharacterCodingException e) {
      throw new UrlRejectedException(RejectReason.BAD_HOST,
          "percent-escapes in host are not UTF-8");
    }
  }

  /** DNS limits (RFC 1035 2.3.4): labels of 1 to 63 octets, at most 253 octets in all. */
  private static void checkCanonicalHost(String host) throws UrlRejectedException {
    if (host.isEmpty()) {
      throw new UrlRejectedException(RejectReason.BAD_HOST, "empty host");
    }
    if (host.length() > 253) {
      throw new UrlRejectedException(RejectReason.BAD_HOST,
          "host is " + host.length() + " characters (at most 253)");
    }
    int label = 0;
    for (int i = 0; i <= host.length(); i++) {
      char c = i < host.length() ? host.charAt(i) : '.';
      if (c == '.') {
        if (label == 0) {
          throw new UrlRejectedException(RejectReason.BAD_HOST, "empty label in host");
        }
        if (label > 63) {
          throw new UrlRejectedException(RejectReason.BAD_HOST,
              "host label of " + label + " characters (at most 63)");
        }
        label = 0;
      } else if (isHostChar(c) && !(c >= 'A' && c <= 'Z')) {
        label++;
      } else {
        throw new UrlRejectedException(RejectReason.BAD_HOST,
            "character '" + printable(c) + "' in normalized host");
      }
    }
  }

  private static void checkPort(String p) throws UrlRejectedException {
    if (p.isEmpty()) {
      return;
    }
    if (p.length() > 5) {
      throw new UrlRejectedException(RejectReason.BAD_PORT,
          "port '" + clip(p) + "' (accepted: 1 to 65535)");
    }
    int v = 0;
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c < '0' || c > '9') {
        throw new UrlRejectedException(RejectReason.BAD_PORT,
            "port '" + clip(p) + "' (accepted: 1 to 65535)");
      }
      v = v * 10 + (c - '0');
    }
    if (v < 1 || v > 65535) {
      throw new UrlRejectedException(RejectReason.BAD_PORT, "port " + v + " (accepted: 1 to 65535)");
    }
  }

  /**
   * The canonical text of an IPv6 literal: {@link Inet6Address#getHostAddress()} (full form, lower
   * case). Bracketed literals are parsed numerically by {@link InetAddress}: no DNS lookup.
   */
  private static String ipv6Literal(String lit) throws UrlRejectedException {
    if (lit.isEmpty() || lit.length() > 45 || lit.indexOf(':') < 0) {
      throw new UrlRejectedException(RejectReason.BAD_HOST, "bad IPv6 literal");
    }
    for (int i = 0; i < lit.length(); i++) {
      char c = lit.charAt(i);
      if (!(hex(c) >= 0 || c == ':' || c == '.')) {
        throw new UrlRejectedException(RejectReason.BAD_HOST, "bad IPv6 literal");
      }
    }
    try {
      InetAddress a = InetAddress.getByName("[" + lit + "]");
      if (a instanceof Inet6Address) {
        return a.getHostAddress();
      }
      return lit.toLowerCase(Locale.ROOT);
    } catch (UnknownHostException | RuntimeException e) {
      throw new UrlRejectedException(RejectReason.BAD_HOST, "bad IPv6 literal");
    }
  }

  private static String printable(char c) {
    return c < 0x20 || c == 0x7F ? String.format(Locale.ROOT, "U+%04X", (int) c) : String.valueOf(c);
  }

  private static String clip(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
