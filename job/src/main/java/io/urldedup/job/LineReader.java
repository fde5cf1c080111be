package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into lines, as raw bytes (the record value is byte-exact, as from Kafka),
 * through one 1 MiB buffer. {@code \n}, {@code \r} and {@code \r\n} each end a line (a lone {@code
 * \r} is a line end, as in old Mac files, so CR-only input is not one huge record). The last line
 * needs no terminator. A line over {@link #MAX_LINE_BYTES} is cut: its record holds the first
 * {@code MAX_LINE_BYTES + 1} bytes (so every decoder rejects it as {@code too_long}: one dead
 * letter, whose detail says "more than 1048576 bytes": the true length is not kept) and reading
 * resumes after its line end. Nothing is skipped without a record.
 *
 * <p>{@link #offset()} and {@link #lines()} are the position after the last record returned: a
 * reader opened there ({@link #LineReader(InputStream, long, long, boolean, long, LineHook)})
 * continues with the next record. Not thread-safe.
 */
final class LineReader {

  /** A record holds at most this + 1 bytes of a line ({@link RecordDecoder#CUT_BYTES}). */
  static final int MAX_LINE_BYTES = RecordDecoder.CUT_BYTES - 1;

  static final int BUFFER_BYTES = 1 << 20;

  private final InputStream in;
  private final LineHook hook;
  private final byte[] buf;

  /** Bytes still to read from {@code in} (a file's length at open bounds it). */
  private long remaining;

  private int pos;
  private int lim;

  /** Stream offset of {@code buf[0]}. */
  private long bufStart;

  private long lines;

  /** The last line ended with {@code \r}: a {@code \n} right after it belongs to that line end. */
  private boolean afterCr;

  private boolean eof;

  /** A line spanning buffers, up to {@code MAX_LINE_BYTES + 1} bytes. */
  private byte[] acc = new byte[0];

  private int accLen;

  /**
   * @param offset stream offset of the first byte {@code in} returns
   * @param afterCr the byte before {@code offset} is a {@code \r} (a restore between {@code \r} and
   *     {@code \n})
   * @param limit bytes to read at most ({@code Long.MAX_VALUE}: to the end of the stream)
   */
  LineReader(InputStream in, long offset, long lines, boolean afterCr, long limit, LineHook hook) {
    this.in = in;
    this.hook = hook;
    this.buf = new byte[(int) Math.min(BUFFER_BYTES, Math.max(1, limit))];
    this.bufStart = offset;
    this.lines = lines;
    this.afterCr = afterCr;
    this.remaining = limit;
  }

  /** Stream offset after the last record returned (including its line end). */
  long offset() {
    return bufStart + pos;
  }

  /** Records returned, including those before the start offset. */
  long lines() {
    return lines;
  }

  /** The next line's record, or null at the end of the stream. Blocks while the stream does. */
  RawRecord next() throws IOException {
    accLen = 0;
    boolean started = false;
    while (true) {
      if (pos == lim && !fill()) {
        return started ? emit(acc, 0, accLen) : null;
      }
      if (afterCr) {
        afterCr = false;
        if (buf[pos] == '\n') {
          pos++;
          continue;
        }
      }
      started = true;
      int s = pos;
      int p = pos;
      int l = lim;
      byte[] b = buf;
      // bytes above '\r' are never line ends: one comparison for almost every byte of a URL
      while (p < l && (b[p] > '\r' || (b[p] != '\n' && b[p] != '\r'))) {
        p++;
      }
      if (p < l) {
        passLineEnd(p);
        if (accLen == 0) {
          return emit(b, s, Math.min(p - s, MAX_LINE_BYTES + 1));
        }
        append(b, s, p - s);
        return emit(acc, 0, accLen);
      }
      pos = l;
      append(b, s, l - s);
    }
  }

  /**
   * The next line that is complete in the buffer, or null when the buffer holds none (only part of
   * a line, or nothing): never reads from the stream. After a stop signal the lines already read
   * from the stream are processed; a line whose end has not arrived is not.
   */
  RawRecord nextBuffered() {
    if (afterCr && pos < lim) {
      afterCr = false;
      if (buf[pos] == '\n') {
        pos++;
      }
    }
    int s = pos;
    int p = pos;
    while (p < lim && buf[p] != '\n' && buf[p] != '\r') {
      p++;
    }
    if (p == lim) {
      return null;
    }
    passLineEnd(p);
    return emit(buf, s, Math.min(p - s, MAX_LINE_BYTES + 1));
  }

  /** Moves past the line end at {@code buf[p]}: a {@code \r\n} is one, split across reads too. */
  private void passLineEnd(int p) {
    pos = p + 1;
    if (buf[p] == '\r') {
      if (pos < lim) {
        if (buf[pos] == '\n') {
          pos++;
        }
      } else {
        afterCr = true;
      }
    }
  }

  private RawRecord emit(byte[] b, int off, int len) {
    return hook.record(b, off, len, lines++);
  }

  /**
   * Keeps at most {@code MAX_LINE_BYTES + 1} bytes of a line: the rest is dropped, the cut shows.
   */
  private void append(byte[] b, int off, int len) {
    int n = Math.min(len, MAX_LINE_BYTES + 1 - accLen);
    if (n <= 0) {
      return;
    }
    if (accLen + n > acc.length) {
      acc = Arrays.copyOf(acc, Math.min(MAX_LINE_BYTES + 1, Math.max(accLen + n, acc.length * 2)));
    }
    System.arraycopy(b, off, acc, accLen, n);
    accLen += n;
  }

  private boolean fill() throws IOException {
    bufStart += lim;
    pos = 0;
    lim = 0;
    if (eof || remaining <= 0) {
      eof = true;
      return false;
    }
    int n = in.read(buf, 0, (int) Math.min(buf.length, remaining));
    if (n <= 0) {
      eof = true;
      return false;
    }
    lim = n;
    remaining -= n;
    return true;
  }
}
