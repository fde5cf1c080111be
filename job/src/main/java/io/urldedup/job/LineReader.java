package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordHeaders;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Reads a file line by line as raw bytes (the record value is byte-exact, as from Kafka), without
 * the line terminator ({@code \n} or {@code \r\n}). The file's length at open bounds the input.
 * A line longer than {@link #MAX_LINE_BYTES} is cut there; the decoder rejects it as too long.
 */
final class LineReader implements Iterator<RawRecord> {

  static final int MAX_LINE_BYTES = 1 << 20;

  private final String name;
  private final long end;
  private final InputStream in;
  private long offset;
  private long lines;
  private byte[] buf = new byte[256];
  private boolean closed;

  LineReader(Path path, String name, long offset, long lines) throws IOException {
    this.name = name;
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    this.end = ch.size();
    ch.position(offset);
    this.in = new BufferedInputStream(Channels.newInputStream(ch), 1 << 16);
    this.offset = offset;
    this.lines = lines;
  }

  long offset() {
    return offset;
  }

  long lines() {
    return lines;
  }

  @Override
  public boolean hasNext() {
    if (offset < end) {
      return true;
    }
    close();
    return false;
  }

  @Override
  public RawRecord next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    int len = 0;
    try {
      int b;
      while (offset < end && (b = in.read()) >= 0) {
        offset++;
        if (b == '\n') {
          break;
        }
        if (len < MAX_LINE_BYTES) {
          if (len == buf.length) {
            buf = Arrays.copyOf(buf, Math.min(MAX_LINE_BYTES, buf.length * 2));
          }
          buf[len++] = (byte) b;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + name, e);
    }
    if (len > 0 && buf[len - 1] == '\r') {
      len--;
    }
    lines++;
    return new RawRecord(null, Arrays.copyOf(buf, len), RecordHeaders.EMPTY, name + ":" + lines);
  }

  private void close() {
    if (!closed) {
      closed = true;
      try {
        in.close();
      } catch (IOException ignored) {
        // read-only file: nothing to lose
      }
    }
  }
}
