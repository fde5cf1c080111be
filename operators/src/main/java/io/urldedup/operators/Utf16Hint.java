package io.urldedup.operators;

/**
 * Whether a rejected value looks like UTF-16 text: it starts with a UTF-16 byte order mark ({@code
 * FF FE} or {@code FE FF}), or most of its bytes at even offsets, or at odd ones, are NUL and most
 * of the others are not, as in ASCII text encoded as UTF-16 (a zeroed value is not text). Every
 * line of such a file is rejected ({@code bad_utf8} for the first, {@code relative_url} or {@code
 * empty} for the rest, their NULs read as characters), and the reasons alone do not say why; the
 * dead letter's detail then ends in {@link #HINT}. Only on the reject path: it scans the value.
 */
final class Utf16Hint {

  static final String HINT =
      "; looks like UTF-16: urldedup reads UTF-8 (convert it: iconv -f UTF-16 -t UTF-8)";

  private Utf16Hint() {}

  static boolean looksLikeUtf16(byte[] v) {
    if (v == null || v.length < 2) {
      return false;
    }
    if ((v[0] == (byte) 0xFF && v[1] == (byte) 0xFE)
        || (v[0] == (byte) 0xFE && v[1] == (byte) 0xFF)) {
      return true;
    }
    int[] nul = new int[2];
    for (int i = 0; i < v.length; i++) {
      if (v[i] == 0) {
        nul[i & 1]++;
      }
    }
    int pairs = v.length / 2;
    int most = Math.max(nul[0], nul[1]);
    int least = Math.min(nul[0], nul[1]);
    return most * 3 >= pairs * 2 && least * 3 <= pairs;
  }
}
