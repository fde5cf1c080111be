package io.urldedup.operators.url;

/**
 * WHATWG URL Standard 3.5 IPv4 host parsing: the "ends in a number" checker, the IPv4 parser (one
 * to four parts, each decimal, octal with a leading 0 or hex with 0x; the last part fills the
 * remaining bytes: {@code 127.1}, {@code 0x7f.1}, {@code 2130706433} are all 127.0.0.1) and the
 * dotted-decimal serializer. Works on the lower-cased ASCII domain bytes.
 */
final class Ipv4Host {

  /** Returned by {@link #parse} for input the standard rejects. */
  static final long FAILURE = -1;

  private static final long TOO_BIG = 1L << 40;

  private Ipv4Host() {}

  /** Whether the domain {@code b[s, e)} ends in a number (then it must parse as IPv4). */
  static boolean endsInNumber(byte[] b, int s, int e) {
    if (e > s && b[e - 1] == '.') {
      e--;
      if (e == s) {
        return false; // the only part is empty
      }
    }
    int last = e;
    while (last > s && b[last - 1] != '.') {
      last--;
    }
    if (last == e) {
      return false; // empty last part (an inner "..")
    }
    boolean digits = true;
    for (int i = last; i < e; i++) {
      digits &= Ascii.isDigit(b[i]);
    }
    if (digits) {
      return true;
    }
    if (e - last < 2 || b[last] != '0' || (b[last + 1] | 0x20) != 'x') {
      return false;
    }
    for (int i = last + 2; i < e; i++) {
      if (Ascii.hex(b[i]) < 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The 32-bit address of {@code b[s, e)}, or {@link #FAILURE}. The standard collects the parts in
   * a list; here every part but the last is at most 255 (else failure), so the parts before the
   * last are packed into one long as they come, and no list is allocated per host.
   */
  static long parse(byte[] b, int s, int e) {
    if (e > s && b[e - 1] == '.' && e - 1 > s) {
      e--; // a trailing empty part is dropped (when it is not the only one)
    }
    long prefix = 0; // the parts before the current one, 8 bits each
    int n = 0; // parts before the current one
    int p = s;
    while (true) {
      int q = p;
      while (q < e && b[q] != '.') {
        q++;
      }
      if (n == 4) {
        return FAILURE; // a fifth part
      }
      long v = number(b, p, q);
      if (v < 0) {
        return FAILURE;
      }
      if (q >= e) {
        // the last of n + 1 parts fills the 4 - n bytes the others leave
        if (v >= 1L << (8 * (4 - n))) {
          return FAILURE;
        }
        return (prefix << (8 * (4 - n))) + v;
      }
      if (v > 255) {
        return FAILURE;
      }
      prefix = (prefix << 8) | v;
      n++;
      p = q + 1;
    }
  }

  /** The IPv4 number parser: decimal, 0-prefixed octal, 0x-prefixed hex; -1 on failure. */
  private static long number(byte[] b, int s, int e) {
    if (s == e) {
      return -1;
    }
    int radix = 10;
    if (e - s >= 2 && b[s] == '0' && (b[s + 1] | 0x20) == 'x') {
      radix = 16;
      s += 2;
    } else if (e - s >= 2 && b[s] == '0') {
      radix = 8;
      s++;
    }
    long v = 0;
    for (int i = s; i < e; i++) {
      int d = Ascii.hex(b[i]);
      if (d < 0 || d >= radix) {
        return -1;
      }
      v = Math.min(v * radix + d, TOO_BIG);
    }
    return v;
  }

  /** Appends the dotted-decimal form of {@code ip}; returns the new end. */
  static int serialize(long ip, byte[] out, int at) {
    for (int i = 3; i >= 0; i--) {
      int octet = (int) (ip >>> (8 * i)) & 0xFF;
      if (octet >= 100) {
        out[at++] = (byte) ('0' + octet / 100);
      }
      if (octet >= 10) {
        out[at++] = (byte) ('0' + octet / 10 % 10);
      }
      out[at++] = (byte) ('0' + octet % 10);
      if (i > 0) {
        out[at++] = '.';
      }
    }
    return at;
  }
}
