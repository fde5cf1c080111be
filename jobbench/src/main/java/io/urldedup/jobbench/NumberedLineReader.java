package io.urldedup.jobbench;

import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordHeaders;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;

/** Lines of a file as records numbered from the split's line, read through a 1 MiB buffer. */
final class NumberedLineReader implements Iterator<RawRecord> {

  private final RandomAccessFile file;
  private final byte[] buf = new byte[1 << 20];
  private int pos;
  private int end;
  private long bufStart;
  private long line;
  private boolean eof;
  private RawRecord next;

  NumberedLineReader(String path, long offset, long line) throws IOException {
    this.file = new RandomAccessFile(path, "r");
    file.seek(offset);
    this.bufStart = offset;
    this.line = line;
  }

  long offset() {
    return bufStart + pos;
  }

  long line() {
    return line;
  }

  @Override
  public boolean hasNext() {
    if (next == null && !eof) {
      try {
        next = read();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return next != null;
  }

  @Override
  public RawRecord next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    RawRecord r = next;
    next = null;
    if (BenchProbe.firstRecordNanos == 0) {
      BenchProbe.firstRecordNanos = System.nanoTime();
      BenchProbe.sourceCpuStart = BenchProbe.threadCpu();
      BenchProbe.processCpuStart = BenchProbe.processCpu();
    }
    BenchProbe.linesRead = line;
    return r;
  }

  private RawRecord read() throws IOException {
    byte[] acc = null;
    while (true) {
      if (pos == end && !fill()) {
        eof = true;
        file.close();
        BenchProbe.sourceCpuEnd = BenchProbe.threadCpu();
        return acc == null ? null : record(acc, 0, acc.length);
      }
      int s = pos;
      while (pos < end && buf[pos] != '\n') {
        pos++;
      }
      if (pos < end) {
        pos++;
        int len = pos - 1 - s;
        if (acc == null) {
          return record(buf, s, len);
        }
        byte[] joined = Arrays.copyOf(acc, acc.length + len);
        System.arraycopy(buf, s, joined, acc.length, len);
        return record(joined, 0, joined.length);
      }
      // the line continues in the next buffer
      byte[] part = Arrays.copyOfRange(buf, s, end);
      if (acc == null) {
        acc = part;
      } else {
        byte[] joined = Arrays.copyOf(acc, acc.length + part.length);
        System.arraycopy(part, 0, joined, acc.length, part.length);
        acc = joined;
      }
    }
  }

  private boolean fill() throws IOException {
    bufStart += end;
    pos = 0;
    end = 0;
    int n = file.read(buf, 0, buf.length);
    if (n <= 0) {
      return false;
    }
    end = n;
    return true;
  }

  private RawRecord record(byte[] b, int off, int len) {
    long n = line++;
    byte[] ln = new byte[8];
    for (int i = 0; i < 8; i++) {
      ln[i] = (byte) (n >>> (56 - 8 * i));
    }
    return new RawRecord(null, Arrays.copyOfRange(b, off, off + len),
        RecordHeaders.of(LINE, ln), null);
  }

  private static final String LINE = NumberedLineSource.LINE_HEADER;
}
