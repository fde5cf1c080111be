package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.urldedup.operators.RawRecord;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link LineReader}: line ends, the 1 MiB cut, buffer boundaries, positions to resume at. */
class LineReaderTest {

  static final int MAX = LineReader.MAX_LINE_BYTES;

  static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  /** At most {@code chunk} bytes per read: every line end falls on every buffer boundary. */
  static InputStream trickle(byte[] data, int chunk) {
    return new ByteArrayInputStream(data) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
  }

  static List<String> readAll(InputStream in) throws IOException {
    LineReader r = new LineReader(in, 0, 0, false, Long.MAX_VALUE, LineHook.origins("t"));
    List<String> lines = new ArrayList<>();
    for (RawRecord rec; (rec = r.next()) != null; ) {
      assertEquals("t:" + (lines.size() + 1), rec.origin());
      lines.add(new String(rec.value, StandardCharsets.ISO_8859_1));
    }
    assertNull(r.next(), "stays at the end");
    return lines;
  }

  @Test
  void emptyInputHasNoLines() throws IOException {
    assertEquals(List.of(), readAll(new ByteArrayInputStream(new byte[0])));
  }

  /** \n, \r and \r\n each end one line, whichever read the bytes come in. */
  @Test
  void crLfAndCrLfAreLineEndsAtEveryBoundary() throws IOException {
    byte[] data = ascii("a\nb\rc\r\nd\r\re\n\nf\r\n\r\ng");
    List<String> expected = List.of("a", "b", "c", "d", "", "e", "", "f", "", "g");
    for (int chunk = 1; chunk <= data.length; chunk++) {
      assertEquals(expected, readAll(trickle(data, chunk)), "chunk " + chunk);
    }
    assertEquals(
        List.of("http://a.com/1", "http://a.com/2"),
        readAll(new ByteArrayInputStream(ascii("http://a.com/1\rhttp://a.com/2\r"))));
    assertEquals(List.of("x"), readAll(new ByteArrayInputStream(ascii("x\r\n"))));
  }

  /**
   * A line over 1 MiB is one record of MAX + 1 bytes (so it is too long for every decoder) and the
   * next line follows whole: each line end (\n, \r, \r\n, end of input) after a cut line.
   */
  @Test
  void aLineOverTheLimitIsCutOnceAndReadingResumesAtItsEnd() throws IOException {
    byte[] exact = new byte[MAX];
    Arrays.fill(exact, (byte) 'e');
    byte[] over = new byte[3 * MAX + 17];
    Arrays.fill(over, (byte) 'x');
    for (String end : new String[] {"\n", "\r", "\r\n"}) {
      byte[] data =
          concat(exact, ascii(end), over, ascii(end), ascii("http://next.example/" + end), over);
      for (int chunk : new int[] {1 << 20, 4093, 1 << 16}) {
        LineReader r =
            new LineReader(
                trickle(data, chunk), 0, 0, false, Long.MAX_VALUE, LineHook.origins("t"));
        assertEquals(MAX, r.next().value.length, "a line of exactly 1 MiB is whole");
        RawRecord cut = r.next();
        assertEquals(MAX + 1, cut.value.length);
        assertEquals("t:2", cut.origin());
        RawRecord next = r.next();
        assertEquals("http://next.example/", new String(next.value, StandardCharsets.US_ASCII));
        assertEquals("t:3", next.origin());
        assertEquals(MAX + 1, r.next().value.length, "cut at the end of input");
        assertNull(r.next());
        assertEquals(4, r.lines());
        assertEquals(data.length, r.offset());
      }
    }
  }

  /**
   * Lines crossing the 1 MiB buffer, an empty line, no final line end; a reader opened at any
   * record's {@code offset()} and {@code lines()} continues with exactly the following records.
   */
  @Test
  void resumesAtEveryRecordsPosition() throws IOException {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      lines.add("http://h" + i + ".example/" + "p".repeat(i % 7 == 0 ? 1500 : 40));
    }
    lines.add(1234, "");
    byte[] data = ascii(String.join("\r\n", lines));
    LineReader r =
        new LineReader(
            new ByteArrayInputStream(data), 0, 0, false, data.length, LineHook.origins("t"));
    long[] offsets = new long[lines.size()];
    for (int i = 0; i < lines.size(); i++) {
      assertArrayEquals(ascii(lines.get(i)), r.next().value, "line " + i);
      offsets[i] = r.offset();
      assertEquals(i + 1, r.lines());
    }
    assertNull(r.next());
    for (int at : new int[] {0, 1233, 1234, 1500, lines.size() - 2, lines.size() - 1}) {
      long off = offsets[at];
      LineReader resumed =
          new LineReader(
              new ByteArrayInputStream(data, (int) off, data.length - (int) off),
              off,
              at + 1,
              false,
              data.length - off,
              LineHook.origins("t"));
      for (int i = at + 1; i < lines.size(); i++) {
        RawRecord rec = resumed.next();
        assertArrayEquals(ascii(lines.get(i)), rec.value, "resumed after " + at + ", line " + i);
        assertEquals("t:" + (i + 1), rec.origin());
      }
      assertNull(resumed.next(), "resumed after " + at);
    }
  }

  /** Resumed between the \r and the \n of a line end: the \n is not an empty line. */
  @Test
  void resumedAfterACrSkipsItsLf() throws IOException {
    byte[] rest = ascii("\nb\n");
    LineReader r =
        new LineReader(
            new ByteArrayInputStream(rest), 2, 1, true, rest.length, LineHook.origins("t"));
    RawRecord b = r.next();
    assertEquals("b", new String(b.value, StandardCharsets.US_ASCII));
    assertEquals("t:2", b.origin());
    assertNull(r.next());
  }

  /** The limit (a file's length at open) bounds the input: bytes appended later are not read. */
  @Test
  void readsNoFurtherThanTheLimit() throws IOException {
    byte[] data = ascii("a\nb\nappended\n");
    LineReader r =
        new LineReader(new ByteArrayInputStream(data), 0, 0, false, 4, LineHook.origins("t"));
    assertEquals("a", new String(r.next().value, StandardCharsets.US_ASCII));
    assertEquals("b", new String(r.next().value, StandardCharsets.US_ASCII));
    assertNull(r.next());
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }
}
