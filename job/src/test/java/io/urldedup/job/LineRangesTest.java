package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.job.LineSourceReaderTest.Context;
import io.urldedup.job.LineSourceReaderTest.Output;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file read as byte ranges gives exactly the records, and origins, of the file read whole: every
 * range starts right after a line end, with the count of lines before it. Line ends are mixed
 * ({@code \n}, {@code \r\n}, lone {@code \r}), lines empty to long, so cuts fall next to each kind
 * and inside runs of line ends; ranges are also restored from a checkpoint mid-range.
 */
class LineRangesTest {

  @TempDir Path dir;

  @Test
  void rangesReadAsTheWholeFile() throws Exception {
    SplittableRandom r = new SplittableRandom(7);
    for (int trial = 0; trial < 40; trial++) {
      Path f = dir.resolve("in-" + trial + ".txt");
      Files.write(f, randomLines(r, 1 + r.nextInt(400)));
      Output whole =
          LineSourceReaderTest.drain(
              LineSourceReaderTest.reader(new Context(), new LineSplit(f.toString(), "in", 0, 0)),
              new Output());
      int parts = 1 + r.nextInt(6);
      List<LineSplit> ranges = LineRanges.split(f.toString(), "in", parts, 1);
      assertTrue(ranges.size() <= parts);
      assertEquals(0, ranges.get(0).offset);
      assertEquals(LineSplit.TO_END, ranges.get(ranges.size() - 1).end);
      Output split = new Output();
      for (int i = 0; i < ranges.size(); i++) {
        LineSplit s = ranges.get(i);
        assertEquals(i, s.index);
        if (i > 0) {
          assertEquals(ranges.get(i - 1).end, s.offset, "ranges are contiguous");
        }
        // through the checkpoint serializer, as a restore would see them
        LineSplit restored = LineSourceReaderTest.roundTrip(List.of(s)).get(0);
        LineSourceReaderTest.drain(LineSourceReaderTest.reader(new Context(), restored), split);
      }
      assertEquals(whole.lines, split.lines, "trial " + trial + ", " + ranges);
      assertEquals(whole.origins, split.origins, "trial " + trial + ", " + ranges);
    }
  }

  @Test
  void aSmallFileIsOneRange() throws Exception {
    Path f = dir.resolve("small.txt");
    Files.write(f, "http://a/\nhttp://b/\n".getBytes(StandardCharsets.US_ASCII));
    List<LineSplit> ranges = LineRanges.split(f.toString(), "small", 4, 1 << 20);
    assertEquals(1, ranges.size());
    assertEquals(LineSplit.TO_END, ranges.get(0).end);
  }

  @Test
  void versionOneSplitsRestoreAsWholeFileSplits() throws Exception {
    org.apache.flink.core.memory.DataOutputSerializer out =
        new org.apache.flink.core.memory.DataOutputSerializer(64);
    out.writeUTF("/x/in.txt");
    out.writeUTF("in.txt");
    out.writeLong(120);
    out.writeLong(3);
    LineSplit s = new LineFileSource.SplitSerializer().deserialize(1, out.getCopyOfBuffer());
    assertEquals(120, s.offset);
    assertEquals(3, s.lines);
    assertEquals(LineSplit.TO_END, s.end);
    assertEquals("0", s.splitId());
  }

  private static byte[] randomLines(SplittableRandom r, int n) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    String[] ends = {"\n", "\r\n", "\r"};
    List<String> words = new ArrayList<>(List.of("", "x", "http://example.com/a", "\u00e9\u00e9"));
    for (int i = 0; i < n; i++) {
      String w =
          r.nextInt(10) == 0 ? "y".repeat(r.nextInt(300)) : words.get(r.nextInt(words.size()));
      b.writeBytes(w.getBytes(StandardCharsets.UTF_8));
      if (i < n - 1 || r.nextBoolean()) {
        b.writeBytes(ends[r.nextInt(ends.length)].getBytes(StandardCharsets.US_ASCII));
      }
    }
    return b.toByteArray();
  }
}
