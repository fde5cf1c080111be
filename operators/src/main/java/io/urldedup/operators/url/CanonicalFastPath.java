package io.urldedup.operators.url;

/**
 * One pass over a URL's bytes that recognizes the common case, a URL already in canonical form,
 * without building anything: lower-case {@code http://} or {@code https://}, a host of lower-case
 * letters, digits, '-' and '_' in non-empty labels (no trailing dot, a last label that does not
 * start with a digit, so never an IPv4 candidate), an optional port without leading zeros that is
 * not the default, a path starting with '/' without dot segments, and an optional non-empty query,
 * both of printable ASCII outside the percent-encode sets with escapes that are upper-case and not
 * of unreserved characters. For such input the parser's output equals the input (proven by the
 * differential test). Anything else, and anything an active opt-in rule could change, is left to
 * {@link WhatwgUrlParser}: a miss costs only this scan.
 */
final class CanonicalFastPath {

  /** Bytes allowed as they are in a canonical host label. */
  private static final boolean[] HOST = new boolean[256];

  /** Bytes allowed as they are in a canonical path ('%' checked apart). */
  private static final boolean[] PATH = new boolean[256];

  /** Bytes allowed as they are in a canonical query ('%' checked apart). */
  private static final boolean[] QUERY = new boolean[256];

  static {
    for (int c = 'a'; c <= 'z'; c++) {
      HOST[c] = true;
    }
    for (int c = '0'; c <= '9'; c++) {
      HOST[c] = true;
    }
    HOST['-'] = true;
    HOST['_'] = true;
    for (int c = 0x21; c < 0x7F; c++) {
      PATH[c] = !PercentEncodeSet.PATH[c] && c != '\\' && c != '%' && c != '/';
      QUERY[c] = !PercentEncodeSet.SPECIAL_QUERY[c] && c != '%';
    }
  }

  private CanonicalFastPath() {}

  /** Whether {@code b[s, e)} is canonical under {@code rules}; if so sets {@code out} to it. */
  static boolean matches(byte[] b, int s, int e, CanonicalizationRules rules, CanonicalUrl out) {
    int i = s + 7;
    if (e - s < 8 || b[s] != 'h' || b[s + 1] != 't' || b[s + 2] != 't' || b[s + 3] != 'p') {
      return false;
    }
    boolean https = b[s + 4] == 's';
    if (https) {
      i++;
    }
    if (b[i - 3] != ':' || b[i - 2] != '/' || b[i - 1] != '/') {
      return false;
    }
    // host: labels of HOST bytes
    int hostStart = i;
    int label = i;
    while (i < e) {
      byte c = b[i];
      if (HOST[c & 0xFF]) {
        i++;
      } else if (c == '.') {
        if (i == label) {
          return false;
        }
        label = ++i;
      } else {
        break;
      }
    }
    int hostEnd = i;
    if (i == label || i >= e || Ascii.isDigit(b[label])) {
      return false; // empty or trailing-dot last label, no path, IPv4 candidate
    }
    if (rules.stripWww()
        && hostEnd - hostStart > 4
        && b[hostStart] == 'w'
        && b[hostStart + 1] == 'w'
        && b[hostStart + 2] == 'w'
        && b[hostStart + 3] == '.') {
      return false;
    }
    if (b[i] == ':') {
      i++;
      int p = i;
      int port = 0;
      while (i < e && Ascii.isDigit(b[i]) && i - p < 5) {
        port = port * 10 + (b[i++] - '0');
      }
      int digits = i - p;
      if (digits == 0
          || (b[p] == '0' && digits > 1)
          || port > 65535
          || port == (https ? 443 : 80)
          || i >= e) {
        return false;
      }
    }
    if (b[i] != '/') {
      return false;
    }
    int pathStart = i;
    boolean pathParams = rules.touchesPathParams();
    boolean collapse = rules.collapseSlashes();
    while (i < e) {
      byte c = b[i];
      if (c == '/') {
        // a segment "." or ".." would be resolved
        int n = i + 1;
        if (n < e && b[n] == '.') {
          int m = n + 1 < e && b[n + 1] == '.' ? n + 2 : n + 1;
          if (m == e || b[m] == '/' || b[m] == '?') {
            return false;
          }
        }
        if (collapse && n < e && b[n] == '/') {
          return false;
        }
        i++;
      } else if (PATH[c & 0xFF]) {
        if (c == ';' && pathParams) {
          return false;
        }
        i++;
      } else if (c == '%') {
        if (!isCanonicalEscape(b, i, e)) {
          return false;
        }
        i += 3;
      } else if (c == '?') {
        break;
      } else {
        return false;
      }
    }
    int queryStart = -1;
    if (i < e) {
      if (i + 1 == e || rules.touchesQuery()) {
        return false; // an empty query is dropped; query rules may change it
      }
      queryStart = i++;
      while (i < e) {
        byte c = b[i];
        if (QUERY[c & 0xFF]) {
          i++;
        } else if (c == '%' && isCanonicalEscape(b, i, e)) {
          i += 3;
        } else {
          return false;
        }
      }
    }
    out.set(b, s, e, hostStart, hostEnd, pathStart, queryStart, true);
    return true;
  }

  /** {@code %XX} with upper-case hex digits, not an escape of an unreserved character. */
  private static boolean isCanonicalEscape(byte[] b, int i, int e) {
    if (i + 2 >= e) {
      return false;
    }
    byte h1 = b[i + 1];
    byte h2 = b[i + 2];
    if (Ascii.hex(h1) < 0 || Ascii.hex(h2) < 0 || h1 >= 'a' || h2 >= 'a') {
      return false;
    }
    return !Ascii.isUnreserved(Ascii.hex(h1) << 4 | Ascii.hex(h2));
  }
}
