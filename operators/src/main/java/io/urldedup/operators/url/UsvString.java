package io.urldedup.operators.url;

/**
 * UTF-8 of a Java string as a scalar value string (WebIDL USVString conversion, which the URL
 * Standard's input goes through): an unpaired surrogate, as a JSON {@code \ud800} escape can make,
 * becomes U+FFFD. {@link String#getBytes} would make it '?', another character.
 */
public final class UsvString {

  private UsvString() {}

  public static byte[] utf8(String s) {
    int len = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        len++;
      } else if (c < 0x800) {
        len += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        len += 4;
        i++;
      } else {
        len += 3;
      }
    }
    byte[] b = new byte[len];
    int k = 0;
    for (int i = 0; i < s.length(); i++) {
      int c = s.charAt(i);
      if (c < 0x80) {
        b[k++] = (byte) c;
        continue;
      }
      if (c < 0x800) {
        b[k++] = (byte) (0xC0 | c >> 6);
        b[k++] = (byte) (0x80 | (c & 0x3F));
        continue;
      }
      if (Character.isHighSurrogate((char) c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        int cp = Character.toCodePoint((char) c, s.charAt(++i));
        b[k++] = (byte) (0xF0 | cp >> 18);
        b[k++] = (byte) (0x80 | (cp >> 12 & 0x3F));
        b[k++] = (byte) (0x80 | (cp >> 6 & 0x3F));
        b[k++] = (byte) (0x80 | (cp & 0x3F));
        continue;
      }
      if (Character.isSurrogate((char) c)) {
        c = 0xFFFD;
      }
      b[k++] = (byte) (0xE0 | c >> 12);
      b[k++] = (byte) (0x80 | (c >> 6 & 0x3F));
      b[k++] = (byte) (0x80 | (c & 0x3F));
    }
    return b;
  }
}
