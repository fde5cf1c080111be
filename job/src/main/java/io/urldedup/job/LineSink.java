package io.urldedup.job;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.util.function.SerializableFunction;

/**
 * The embedded mode's sink: one line per record to a local file or stdout ({@code -}). Run it with
 * parallelism 1 (one writer owns the file). Not transactional (the embedded mode runs without
 * restarts, so nothing is replayed into it): a line is written at most {@value #FLUSH_MILLIS} ms
 * after its record arrives, and at every checkpoint and the end of input.
 *
 * <p>A failed write fails the run and names the flag and the cause ({@code --output -: write
 * failed: Broken pipe}). stdout is written through its file descriptor, not {@code System.out}: a
 * {@code PrintStream} swallows write errors, so {@code > /dev/full} or a closed pipe would lose the
 * output silently.
 */
public final class LineSink<T> implements Sink<T> {

  static final long FLUSH_MILLIS = 100;
  static final int BUFFER_BYTES = 1 << 16;

  /**
   * One stream for the process's stdout, shared by the output and the dead letters ({@code -} for
   * both): each writer hands over whole lines under its lock, so lines never interleave.
   */
  private static final OutputStream STDOUT = new FileOutputStream(FileDescriptor.out);

  private final String flag;
  private final String path;
  private final SerializableFunction<T, byte[]> format;

  /**
   * @param flag the flag that named the path, for error messages ({@code --output})
   */
  public LineSink(String flag, String path, SerializableFunction<T, byte[]> format) {
    this.flag = flag;
    this.path = path;
    this.format = format;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
    String label = flag + " " + path;
    if ("-".equals(path)) {
      return new Writer<>(label, STDOUT, false, format, context.getProcessingTimeService());
    }
    OutputStream os = new FileOutputStream(path, context.getRestoredCheckpointId().isPresent());
    return new Writer<>(label, os, true, format, context.getProcessingTimeService());
  }

  private static final class Writer<T> implements SinkWriter<T> {
    private final String label;
    private final OutputStream out;
    private final boolean owned;
    private final SerializableFunction<T, byte[]> format;
    private final ProcessingTimeService time;
    private final byte[] buf = new byte[BUFFER_BYTES];
    private int len;
    private boolean flushScheduled;
    private boolean failed;
    private boolean closed;

    Writer(
        String label,
        OutputStream out,
        boolean owned,
        SerializableFunction<T, byte[]> format,
        ProcessingTimeService time) {
      this.label = label;
      this.out = out;
      this.owned = owned;
      this.format = format;
      this.time = time;
    }

    @Override
    public void write(T element, Context context) throws IOException {
      byte[] b = format.apply(element);
      if (len + b.length + 1 > buf.length) {
        drain();
      }
      if (b.length + 1 > buf.length) {
        byte[] line = new byte[b.length + 1];
        System.arraycopy(b, 0, line, 0, b.length);
        line[b.length] = '\n';
        put(line, line.length);
        return;
      }
      System.arraycopy(b, 0, buf, len, b.length);
      len += b.length;
      buf[len++] = '\n';
      if (!flushScheduled) {
        flushScheduled = true;
        time.registerTimer(
            time.getCurrentProcessingTime() + FLUSH_MILLIS,
            t -> {
              flushScheduled = false;
              if (!closed) {
                drain();
              }
            });
      }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
      drain();
    }

    private void drain() throws IOException {
      if (len > 0) {
        int n = len;
        len = 0;
        put(buf, n);
      }
    }

    private void put(byte[] b, int n) throws IOException {
      try {
        synchronized (out) {
          out.write(b, 0, n);
        }
      } catch (IOException e) {
        failed = true;
        // the cause's message is what a user needs ("No space left on device", "Broken pipe")
        throw new IOException(label + ": write failed: " + e.getMessage(), e);
      }
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      if (!failed) {
        drain();
      }
      if (owned) {
        try {
          out.close();
        } catch (IOException e) {
          // after a failed write the run has failed already, with that write's error
          if (!failed) {
            throw new IOException(label + ": close failed: " + e.getMessage(), e);
          }
        }
      }
    }
  }
}
