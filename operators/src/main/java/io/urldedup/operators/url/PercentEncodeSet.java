package io.urldedup.operators.url;

/**
 * The WHATWG URL Standard's percent-encode sets (section 1.3) for the bytes of UTF-8 text: a byte
 * is encoded as {@code %XX} when its set contains it. Bytes from 0x80 up are the UTF-8 of code
 * points above U+007E, which every set contains.
 */
final class PercentEncodeSet {

  /**
   * Special-query set (http, https): the query set (C0 controls, bytes above U+007E, space, ", #,
   * &lt;, &gt;) and '.
   */
  static final boolean[] SPECIAL_QUERY = set(" \"#<>'");

  /** Path set: query set and ?, ^, `, {, }. */
  static final boolean[] PATH = set(" \"#<>?^`{}");

  private PercentEncodeSet() {}

  private static boolean[] set(String extra) {
    boolean[] s = new boolean[256];
    for (int b = 0; b < 256; b++) {
      s[b] = b < 0x20 || b > 0x7E;
    }
    for (int i = 0; i < extra.length(); i++) {
      s[extra.charAt(i)] = true;
    }
    return s;
  }
}
