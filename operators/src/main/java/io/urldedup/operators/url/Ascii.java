package io.urldedup.operators.url;

import java.util.Arrays;

/** ASCII byte classes and hex digits used by the parser, the rules and the fast path. */
final class Ascii {

  static final byte[] HEX_UPPER = {
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'
  };

  private static final byte[] HEX_VALUE = new byte[256];

  /** RFC 3986 2.3 unreserved: ALPHA / DIGIT / "-" / "." / "_" / "~". */
  private static final boolean[] UNRESERVED = new boolean[256];

  static {
    Arrays.fill(HEX_VALUE, (byte) -1);
    for (int c = '0'; c <= '9'; c++) {
      HEX_VALUE[c] = (byte) (c - '0');
      UNRESERVED[c] = true;
    }
    for (int c = 'a'; c <= 'f'; c++) {
      HEX_VALUE[c] = (byte) (c - 'a' + 10);
      HEX_VALUE[c - 32] = (byte) (c - 'a' + 10);
    }
    for (int c = 'a'; c <= 'z'; c++) {
      UNRESERVED[c] = true;
      UNRESERVED[c - 32] = true;
    }
    UNRESERVED['-'] = true;
    UNRESERVED['.'] = true;
    UNRESERVED['_'] = true;
    UNRESERVED['~'] = true;
  }

  private Ascii() {}

  /** The value of a hex digit, or -1. */
  static int hex(byte b) {
    return HEX_VALUE[b & 0xFF];
  }

  static boolean isUnreserved(int b) {
    return UNRESERVED[b & 0xFF];
  }

  static boolean isAlpha(byte b) {
    int c = b | 0x20;
    return c >= 'a' && c <= 'z';
  }

  static boolean isDigit(byte b) {
    return b >= '0' && b <= '9';
  }

  static byte lower(byte b) {
    return b >= 'A' && b <= 'Z' ? (byte) (b + 32) : b;
  }
}
