package io.urldedup.job;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.util.function.SerializableFunction;

/**
 * The embedded mode's sink: one line per record to a local file or stdout ({@code -}). Run it with
 * parallelism 1 (one writer owns the file). Not transactional: the embedded mode runs without
 * restarts, so nothing is replayed into it.
 */
public final class LineSink<T> implements Sink<T> {

  private final String path;
  private final SerializableFunction<T, byte[]> format;

  public LineSink(String path, SerializableFunction<T, byte[]> format) {
    this.path = path;
    this.format = format;
  }

  @Override
  public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
    if ("-".equals(path)) {
      // unbuffered here: each line is one synchronized write to stdout, so output and dead
      // letters both sent to '-' never interleave inside a line
      return new Writer<>(new NonClosing(System.out), format);
    }
    OutputStream os = new FileOutputStream(path, context.getRestoredCheckpointId().isPresent());
    return new Writer<>(new BufferedOutputStream(os, 1 << 16), format);
  }

  private static final class Writer<T> implements SinkWriter<T> {
    private final OutputStream out;
    private final SerializableFunction<T, byte[]> format;

    Writer(OutputStream out, SerializableFunction<T, byte[]> format) {
      this.out = out;
      this.format = format;
    }

    @Override
    public void write(T element, Context context) throws IOException {
      byte[] b = format.apply(element);
      byte[] line = Arrays.copyOf(b, b.length + 1);
      line[b.length] = '\n';
      out.write(line);
    }

    @Override
    public void flush(boolean endOfInput) throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.close();
    }
  }

  /** stdout belongs to the process, not to the writer. */
  private static final class NonClosing extends OutputStream {
    private final OutputStream out;

    NonClosing(OutputStream out) {
      this.out = out;
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    @Override
    public void close() throws IOException {
      out.flush();
    }
  }
}
