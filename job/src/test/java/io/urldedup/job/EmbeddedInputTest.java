package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded mode's input and output edge cases of issue 11, through {@link UrlDedupJob#run} on a
 * mini-cluster: empty inputs (file and stdin), CR line ends, a line over 1 MiB, an output that
 * cannot be written. (stdin as a stream, signals and stdout errors need a process of their own:
 * {@link EmbeddedProcessTest}.)
 */
class EmbeddedInputTest {

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(2);

  @TempDir Path dir;

  record Run(int code, String err) {}

  Run run(String... flags) throws Exception {
    List<String> args =
        new ArrayList<>(List.of("run", "--hash-seed", "0x6a09e667f3bcc908", "--parallelism", "1"));
    args.addAll(Arrays.asList(flags));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            args.toArray(String[]::new),
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, err.toString(StandardCharsets.UTF_8));
  }

  @Test
  @Timeout(120)
  void anEmptyFileIsARunOfNothing() throws Exception {
    Path in = Files.createFile(dir.resolve("empty.txt"));
    Path out = dir.resolve("out.txt");
    Run r = run("--input", in.toString(), "--output", out.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals("urldedup: in=0 emitted=0 duplicates=0 invalid=0 forced=0\n", r.err());
    assertEquals(0, Files.size(out));
  }

  @Test
  @Timeout(120)
  void anEmptyStdinIsARunOfNothing() throws Exception {
    InputStream saved = System.in;
    try {
      System.setIn(new ByteArrayInputStream(new byte[0]));
      Path out = dir.resolve("out.txt");
      Run r = run("--input", "-", "--output", out.toString());
      assertEquals(0, r.code(), r.err());
      assertEquals("urldedup: in=0 emitted=0 duplicates=0 invalid=0 forced=0\n", r.err());
      assertEquals(0, Files.size(out));
    } finally {
      System.setIn(saved);
    }
  }

  /** {@code printf 'http://a.com/1\rhttp://a.com/2\r'}: two URLs, not one control_chars record. */
  @Test
  @Timeout(120)
  void crEndsALine() throws Exception {
    Path in = dir.resolve("cr.txt");
    Files.writeString(in, "http://a.com/1\rhttp://a.com/2\r\nhttp://a.com/1\r");
    Path out = dir.resolve("out.txt");
    Run r =
        run(
            "--input",
            in.toString(),
            "--output",
            out.toString(),
            "--dlq",
            dir.resolve("dlq.tsv").toString());
    assertEquals(0, r.code(), r.err());
    assertEquals("urldedup: in=3 emitted=2 duplicates=1 invalid=0 forced=0\n", r.err());
    assertEquals(List.of("http://a.com/1", "http://a.com/2"), Files.readAllLines(out));
  }

  /**
   * A 3 MiB line between two URLs: one too_long dead letter (holding the line's first 1 MiB + 1
   * byte), the next line read whole, every line counted.
   */
  @Test
  @Timeout(120)
  void aLineOverOneMibIsOneTooLongDeadLetter() throws Exception {
    byte[] huge = new byte[3 << 20];
    Arrays.fill(huge, (byte) 'x');
    byte[] data =
        LineReaderTest.concat(
            "http://a.com/1\n".getBytes(StandardCharsets.US_ASCII),
            huge,
            "\rhttp://a.com/2\r\nhttp://a.com/1\n".getBytes(StandardCharsets.US_ASCII));
    Path in = Files.write(dir.resolve("long.txt"), data);
    Path out = dir.resolve("out.txt");
    Path dlq = dir.resolve("dlq.tsv");
    Run r = run("--input", in.toString(), "--output", out.toString(), "--dlq", dlq.toString());
    assertEquals(0, r.code(), r.err());
    assertEquals(
        "urldedup: in=4 emitted=2 duplicates=1 invalid=1 forced=0\n"
            + "urldedup: invalid by reason: too_long=1\n",
        r.err());
    assertEquals(List.of("http://a.com/1", "http://a.com/2"), Files.readAllLines(out));
    List<String> dead = Files.readAllLines(dlq);
    assertEquals(1, dead.size());
    String[] f = dead.get(0).split("\t", -1);
    assertEquals("too_long", f[0]);
    assertEquals(
        "URL is more than 1048576 bytes (--max-url-bytes 8192)", f[1], "not the length of the cut");
    assertEquals(in + ":2", f[2]);
    assertEquals(LineReader.MAX_LINE_BYTES + 1, f[3].length());
  }

  /**
   * {@code iconv -t UTF-16}: every line is a dead letter, and their details say the file looks like
   * UTF-16 (the last "line" is the lone NUL after the last line end: one byte, no hint).
   */
  @Test
  @Timeout(120)
  void aUtf16FileSaysItLooksLikeUtf16() throws Exception {
    Path in =
        Files.write(
            dir.resolve("u16.txt"),
            LineReaderTest.concat(
                new byte[] {(byte) 0xFF, (byte) 0xFE},
                "http://a.com/1\nhttp://a.com/2\n".getBytes(StandardCharsets.UTF_16LE)));
    Path dlq = dir.resolve("dlq.tsv");
    Run r =
        run(
            "--input",
            in.toString(),
            "--output",
            dir.resolve("out.txt").toString(),
            "--dlq",
            dlq.toString());
    assertEquals(0, r.code(), r.err());
    assertTrue(
        r.err().contains("urldedup: in=3 emitted=0 duplicates=0 invalid=3 forced=0\n"), r.err());
    List<String> dead = Files.readAllLines(dlq);
    assertEquals(3, dead.size());
    for (String d : dead.subList(0, 2)) {
      assertTrue(
          d.split("\t")[1].endsWith(
              "; looks like UTF-16: urldedup reads UTF-8 (convert it: iconv -f UTF-16"
                  + " -t UTF-8)"),
          d);
    }
  }

  /**
   * {@code --output /dev/full}: the run fails and says why (not "TaskExecutor is shutting down").
   */
  @Test
  @Timeout(120)
  void anOutputThatCannotBeWrittenFailsTheRunWithTheCause() throws Exception {
    Path in = dir.resolve("in.txt");
    Files.writeString(in, "http://a.com/1\nhttp://a.com/2\n");
    JobExecutionException e =
        assertThrows(
            JobExecutionException.class,
            () -> run("--input", in.toString(), "--output", "/dev/full"));
    assertEquals(
        "--output /dev/full: write failed: No space left on device", UrlDedupJob.rootCause(e));
  }
}
