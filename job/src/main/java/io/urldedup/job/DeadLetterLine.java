package io.urldedup.job;

import io.urldedup.operators.DeadLetter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The embedded mode's dead-letter line: {@code reason<TAB>detail<TAB>origin<TAB>value}, each field
 * escaped so that a line is one record whatever the input bytes were: {@code \\}, {@code \t},
 * {@code \n}, {@code \r}, other bytes below 0x20 and 0x7f and above as {@code \xHH}; a null value
 * (Kafka tombstone) as {@code \N}. Printable ASCII is unchanged, so URLs read as they came.
 */
public final class DeadLetterLine {

  private DeadLetterLine() {}

  public static byte[] format(DeadLetter d) {
    ByteArrayOutputStream out =
        new ByteArrayOutputStream(64 + (d.value == null ? 0 : d.value.length));
    escape(d.reason == null ? null : d.reason.label().getBytes(StandardCharsets.US_ASCII), out);
    out.write('\t');
    escape(d.detail == null ? null : d.detail.getBytes(StandardCharsets.UTF_8), out);
    out.write('\t');
    escape(d.origin == null ? null : d.origin.getBytes(StandardCharsets.UTF_8), out);
    out.write('\t');
    escape(d.value, out);
    return out.toByteArray();
  }

  static void escape(byte[] bytes, ByteArrayOutputStream out) {
    if (bytes == null) {
      out.write('\\');
      out.write('N');
      return;
    }
    for (byte x : bytes) {
      int b = x & 0xff;
      switch (b) {
        case '\\':
          out.write('\\');
          out.write('\\');
          break;
        case '\t':
          out.write('\\');
          out.write('t');
          break;
        case '\n':
          out.write('\\');
          out.write('n');
          break;
        case '\r':
          out.write('\\');
          out.write('r');
          break;
        default:
          if (b < 0x20 || b >= 0x7f) {
            out.write('\\');
            out.write('x');
            out.write(Character.forDigit(b >> 4, 16));
            out.write(Character.forDigit(b & 0xf, 16));
          } else {
            out.write(b);
          }
      }
    }
  }
}
