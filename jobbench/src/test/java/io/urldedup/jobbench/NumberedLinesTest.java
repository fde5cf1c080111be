package io.urldedup.jobbench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.urldedup.operators.RawRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NumberedLinesTest {

  @TempDir Path dir;

  private static long lineOf(RawRecord r) {
    byte[] b = r.headers.lastValue(NumberedLines.LINE_HEADER);
    long n = 0;
    for (byte x : b) {
      n = (n << 8) | (x & 0xFF);
    }
    return n;
  }

  /** The line number (all 8 bytes of it) in the header, the bytes copied, no origin. */
  @Test
  void numbersEachLineInItsHeader() {
    byte[] buf = "xxhttp://a.example/yy".getBytes(StandardCharsets.US_ASCII);
    NumberedLines hook = new NumberedLines();
    RawRecord r = hook.record(buf, 2, 17, 0x0102030405060708L);
    assertEquals(0x0102030405060708L, lineOf(r));
    assertArrayEquals("http://a.example/".getBytes(StandardCharsets.US_ASCII), r.value);
    assertNull(r.origin());
    buf[2] = 'X';
    assertEquals('h', r.value[0], "the record keeps its own copy");
    hook.snapshot(7, 42);
    // this reader's range of lines read before checkpoint 7: from its first line to 42
    long[] range = BenchProbe.rangesAtCheckpoint.get(7L).get(0);
    assertEquals(0x0102030405060708L, range[0]);
    assertEquals(42L, range[1]);
  }

  @Test
  void truthBitsRoundTripAndPrefixCounts() throws Exception {
    Path truth = dir.resolve("truth.txt");
    Files.writeString(
        truth,
        "first\thttp://a/\nrepeat\thttp://a/\nfirst\thttp://b/\nrepeat\thttp://b/\n"
            + "first\thttp://c/\n",
        StandardCharsets.UTF_8);
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
    assertEquals(1, back.uniquesIn(1, 3));
    // page ids in order of first occurrence, the same for every occurrence of a page
    assertArrayEquals(new int[] {0, 0, 1, 1, 2}, back.ids);
  }
}
