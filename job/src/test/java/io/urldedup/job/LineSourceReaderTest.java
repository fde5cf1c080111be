package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.RawRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.metrics.groups.SourceReaderMetricGroup;
import org.apache.flink.util.UserCodeClassLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LineSourceReader} as Flink drives it (split request, addSplits, pollNext until
 * END_OF_INPUT, snapshots), with a minimal context: empty inputs, restores at the end of the file
 * and between \r and \n, stdin as a stream.
 */
class LineSourceReaderTest {

  @TempDir Path dir;

  /** The enumerator's side: one split, then no more. */
  static final class Context implements SourceReaderContext {
    final List<LineSplit> toAssign = new ArrayList<>();
    LineSourceReader reader;
    int requests;

    @Override
    public void sendSplitRequest() {
      requests++;
      if (toAssign.isEmpty()) {
        reader.notifyNoMoreSplits();
      } else {
        reader.addSplits(List.of(toAssign.remove(0)));
      }
    }

    @Override
    public SourceReaderMetricGroup metricGroup() {
      throw new UnsupportedOperationException();
    }

    @Override
    public Configuration getConfiguration() {
      return new Configuration();
    }

    @Override
    public String getLocalHostName() {
      return "localhost";
    }

    @Override
    public int getIndexOfSubtask() {
      return 0;
    }

    @Override
    public void sendSourceEventToCoordinator(SourceEvent event) {}

    @Override
    public UserCodeClassLoader getUserCodeClassLoader() {
      throw new UnsupportedOperationException();
    }
  }

  static final class Output implements ReaderOutput<RawRecord> {
    final List<String> lines = new ArrayList<>();
    final List<String> origins = new ArrayList<>();

    @Override
    public void collect(RawRecord r) {
      lines.add(new String(r.value, StandardCharsets.UTF_8));
      origins.add(r.origin());
    }

    @Override
    public void collect(RawRecord r, long timestamp) {
      collect(r);
    }

    @Override
    public void emitWatermark(Watermark watermark) {}

    @Override
    public void markIdle() {}

    @Override
    public void markActive() {}

    @Override
    public SourceOutput<RawRecord> createOutputForSplit(String splitId) {
      return this;
    }

    @Override
    public void releaseOutputForSplit(String splitId) {}
  }

  static LineSourceReader reader(Context ctx, LineSplit split) {
    ctx.toAssign.add(split);
    ctx.reader = new LineSourceReader(ctx, LineHook.origins(split.name));
    ctx.reader.start();
    return ctx.reader;
  }

  /** Polls until END_OF_INPUT, waiting on isAvailable() as the task does (at most 10 s each). */
  static Output drain(LineSourceReader r, Output out) throws Exception {
    while (true) {
      InputStatus s = r.pollNext(out);
      if (s == InputStatus.END_OF_INPUT) {
        return out;
      }
      if (s == InputStatus.NOTHING_AVAILABLE) {
        r.isAvailable().get(10, TimeUnit.SECONDS);
      }
    }
  }

  /** Polls until {@code n} lines were emitted, waiting on isAvailable() in between. */
  static Output awaitLines(LineSourceReader r, Output out, int n) throws Exception {
    while (out.lines.size() < n) {
      if (r.pollNext(out) == InputStatus.NOTHING_AVAILABLE) {
        r.isAvailable().get(10, TimeUnit.SECONDS);
      }
    }
    return out;
  }

  @Test
  void anEmptyFileEndsAtOnce() throws Exception {
    Path f = Files.createFile(dir.resolve("empty.txt"));
    Context ctx = new Context();
    LineSourceReader r = reader(ctx, new LineSplit(f.toString(), "empty.txt", 0, 0));
    assertEquals(List.of(), drain(r, new Output()).lines);
    assertEquals(List.of(), r.snapshotState(1), "nothing left to read");
    r.close();
  }

  /** A checkpoint taken after the last line, before the end was seen: the restore reads nothing. */
  @Test
  void aRestoreAtTheEndOfTheFileEndsAtOnce() throws Exception {
    Path f = dir.resolve("in.txt");
    Files.writeString(f, "http://a.example/\nhttp://b.example/\n");
    Context first = new Context();
    LineSourceReader r = reader(first, new LineSplit(f.toString(), "in.txt", 0, 0));
    Output out = new Output();
    assertEquals(InputStatus.MORE_AVAILABLE, r.pollNext(out));
    assertEquals(InputStatus.MORE_AVAILABLE, r.pollNext(out));
    List<LineSplit> state = roundTrip(r.snapshotState(3));
    r.close();
    assertEquals(Files.size(f), state.get(0).offset);
    assertEquals(2, state.get(0).lines);

    Context second = new Context();
    LineSourceReader restored = reader(second, state.get(0));
    assertEquals(List.of(), drain(restored, new Output()).lines);
    restored.close();
  }

  /** Restored from every position of a file with \r\n, \r and \n ends: the rest, exactly once. */
  @Test
  void aRestoreResumesAfterTheLastEmittedLine() throws Exception {
    Path f = dir.resolve("mixed.txt");
    Files.writeString(
        f, "http://a.example/1\r\nhttp://a.example/2\rhttp://a.example/3\n\r\nhttp://a.example/5");
    List<String> all =
        List.of(
            "http://a.example/1",
            "http://a.example/2",
            "http://a.example/3",
            "",
            "http://a.example/5");
    for (int stopAfter = 0; stopAfter <= all.size(); stopAfter++) {
      Context first = new Context();
      LineSourceReader r = reader(first, new LineSplit(f.toString(), "mixed.txt", 0, 0));
      Output out = new Output();
      for (int i = 0; i < stopAfter; i++) {
        assertEquals(InputStatus.MORE_AVAILABLE, r.pollNext(out));
      }
      List<LineSplit> state = roundTrip(r.snapshotState(1));
      r.close();
      Context second = new Context();
      Output rest = drain(reader(second, state.get(0)), out);
      assertEquals(all, rest.lines, "restored after " + stopAfter);
      assertEquals(
          List.of("mixed.txt:1", "mixed.txt:2", "mixed.txt:3", "mixed.txt:4", "mixed.txt:5"),
          rest.origins);
    }
  }

  /** Restored between the \r and the \n of a line end (the \r was the last byte read). */
  @Test
  void aRestoreBetweenCrAndLfSkipsTheLf() throws Exception {
    Path f = dir.resolve("crlf.txt");
    Files.writeString(f, "a\r\nb\r\n");
    Context ctx = new Context();
    Output out = drain(reader(ctx, new LineSplit(f.toString(), "crlf.txt", 2, 1)), new Output());
    assertEquals(List.of("b"), out.lines);
    assertEquals(List.of("crlf.txt:2"), out.origins);
  }

  /** stdin: each line is available as it arrives; the end of the stream ends the input. */
  @Test
  @Timeout(30)
  void stdinIsReadAsAStream() throws Exception {
    InputStream saved = System.in;
    try (PipedOutputStream producer = new PipedOutputStream();
        PipedInputStream pipe = new PipedInputStream(producer)) {
      System.setIn(pipe);
      Context ctx = new Context();
      LineSourceReader r = reader(ctx, new LineSplit("-", "stdin", 0, 0));
      Output out = new Output();
      for (int i = 1; i <= 3; i++) {
        producer.write(("http://a.example/" + i + "\n").getBytes(StandardCharsets.US_ASCII));
        producer.flush();
        awaitLines(r, out, i); // while the producer keeps the pipe open
        assertEquals("stdin:" + i, out.origins.get(i - 1));
      }
      assertEquals(InputStatus.NOTHING_AVAILABLE, r.pollNext(out), "a quiet pipe is not the end");
      assertEquals(1, r.snapshotState(5).size());
      producer.write("http://a.example/4".getBytes(StandardCharsets.US_ASCII));
      producer.close();
      drain(r, out);
      assertEquals(
          List.of(
              "http://a.example/1",
              "http://a.example/2",
              "http://a.example/3",
              "http://a.example/4"),
          out.lines);
      r.close();
    } finally {
      System.setIn(saved);
    }
  }

  /** A stop signal ends a stdin input whose producer is still there: what was read is emitted. */
  @Test
  @Timeout(30)
  void aStopEndsStdinWhileThePipeStaysOpen() throws Exception {
    InputStream saved = System.in;
    try (PipedOutputStream producer = new PipedOutputStream();
        PipedInputStream pipe = new PipedInputStream(producer)) {
      System.setIn(pipe);
      Context ctx = new Context();
      LineSourceReader r = reader(ctx, new LineSplit("-", "stdin", 0, 0));
      producer.write("http://a.example/1\n".getBytes(StandardCharsets.US_ASCII));
      producer.flush();
      Output out = awaitLines(r, new Output(), 1);
      assertTrue(LineSourceReader.endAllInputs() >= 1);
      drain(r, out);
      assertEquals(List.of("http://a.example/1"), out.lines);
      r.close();
    } finally {
      System.setIn(saved);
    }
  }

  /**
   * A stop while the stdin thread waits for room in the full queue (a producer faster than the
   * job): the line in its hand and every complete line already in the reader's buffer are still
   * emitted, in order; only the part of a line whose end was not read is left.
   */
  @Test
  @Timeout(60)
  void aStopWithAFullQueueLosesNoLineThatWasRead() throws Exception {
    byte[] input = manyLines(3 * StreamPump.QUEUE_BYTES / 2);
    long[] bytesRead = {0};
    InputStream counted =
        new java.io.FilterInputStream(new java.io.ByteArrayInputStream(input)) {
          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, Math.min(len, 65536 + 17)); // buffer ends fall inside lines
            if (n > 0) {
              bytesRead[0] += n;
            }
            return n;
          }
        };
    InputStream saved = System.in;
    try {
      System.setIn(counted);
      Context ctx = new Context();
      LineSourceReader r = reader(ctx, new LineSplit("-", "stdin", 0, 0));
      Output out = awaitLines(r, new Output(), 1);
      // the pump fills the queue's 8 MiB and then waits for room
      long before = -1;
      while (before != bytesRead[0]) {
        before = bytesRead[0];
        Thread.sleep(300);
      }
      assertTrue(bytesRead[0] < input.length, "the queue bounds what is read ahead");
      LineSourceReader.endAllInputs();
      drain(r, out);
      long complete = 0;
      for (long i = 0; i < bytesRead[0]; i++) {
        if (input[(int) i] == '\n') {
          complete++;
        }
      }
      assertEquals(complete, out.lines.size(), "every line whose end was read is emitted");
      for (int i = 0; i < out.lines.size(); i++) {
        assertEquals("http://a.example/" + i, out.lines.get(i));
      }
      r.close();
    } finally {
      System.setIn(saved);
    }
  }

  private static byte[] manyLines(int bytes) {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream(bytes + 64);
    for (int i = 0; b.size() < bytes; i++) {
      b.writeBytes(("http://a.example/" + i + "\n").getBytes(StandardCharsets.US_ASCII));
    }
    return b.toByteArray();
  }

  @Test
  void stdinIsNeverRestored() {
    Context ctx = new Context();
    LineSourceReader r = reader(ctx, new LineSplit("-", "stdin", 0, 7));
    IOException e = assertThrows(IOException.class, () -> r.pollNext(new Output()));
    assertTrue(e.getMessage().contains("stdin cannot be re-read"), e.getMessage());
  }

  /** Through the checkpoint serializer, as a restore reads it. */
  static List<LineSplit> roundTrip(List<LineSplit> splits) throws IOException {
    LineFileSource.CheckpointSerializer s = new LineFileSource.CheckpointSerializer();
    return new ArrayList<>(s.deserialize(s.getVersion(), s.serialize(splits)));
  }
}
