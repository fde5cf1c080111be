package io.urldedup.jobbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.urldedup.operators.RawRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NumberedLineReaderTest {

  @TempDir
  Path dir;

  private static long lineOf(RawRecord r) {
    byte[] b = r.headers.lastValue(NumberedLineSource.LINE_HEADER);
    long n = 0;
    for (byte x : b) {
      n = (n << 8) | (x & 0xFF);
    }
    return n;
  }

  /** Lines longer than the 1 MiB buffer, an empty line, no final newline; resume at a split. */
  @Test
  void numbersEveryLineAcrossBufferBoundariesAndResumes() throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      lines.add("http://h" + i + ".example/" + "p".repeat(i % 7 == 0 ? 1500 : 40));
    }
    lines.add(1234, "");
    lines.add(2000, "http://long.example/" + "x".repeat(3 << 20));
    Path f = dir.resolve("in.txt");
    Files.writeString(f, String.join("\n", lines), StandardCharsets.UTF_8);

    NumberedLineReader r = new NumberedLineReader(f.toString(), 0, 0);
    long offsetAt1500 = -1;
    for (int i = 0; i < lines.size(); i++) {
      RawRecord rec = r.next();
      assertEquals(i, lineOf(rec));
      assertArrayEquals(lines.get(i).getBytes(StandardCharsets.UTF_8), rec.value, "line " + i);
      if (i == 1499) {
        offsetAt1500 = r.offset();
        assertEquals(1500, r.line());
      }
    }
    assertFalse(r.hasNext());

    NumberedLineReader resumed = new NumberedLineReader(f.toString(), offsetAt1500, 1500);
    for (int i = 1500; i < lines.size(); i++) {
      RawRecord rec = resumed.next();
      assertEquals(i, lineOf(rec));
      assertArrayEquals(lines.get(i).getBytes(StandardCharsets.UTF_8), rec.value, "resumed line " + i);
    }
    assertFalse(resumed.hasNext());
  }

  @Test
  void truthBitsRoundTripAndPrefixCounts() throws Exception {
    Path truth = dir.resolve("truth.txt");
    Files.writeString(truth, "first\thttp://a/\nrepeat\thttp://a/\nfirst\thttp://b/\nrepeat\thttp://b/\n"
        + "first\thttp://c/\n", StandardCharsets.UTF_8);
    TruthBits t = TruthBits.fromTruthFile(truth);
    Path bits = dir.resolve("truth.bits");
    t.write(bits);
    TruthBits back = TruthBits.read(bits);
    assertEquals(5, back.lines);
    assertEquals(3, back.uniques());
    assertEquals(0, back.uniquesBefore(0));
    assertEquals(1, back.uniquesBefore(2));
    assertEquals(2, back.uniquesBefore(3));
    assertEquals(3, back.uniquesBefore(99));
  }
}
