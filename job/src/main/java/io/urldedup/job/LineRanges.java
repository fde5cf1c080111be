package io.urldedup.job;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a file into byte ranges for parallel readers, each starting right after a line end (as
 * {@link LineReader} ends lines: {@code \n}, {@code \r\n}, a lone {@code \r}), each with the number
 * of lines before it, so every record keeps its {@code name:line} origin. One sequential count of
 * line ends up to the last cut (a byte loop over a 1 MiB buffer: about a second per GB), done once
 * when the job starts, not on restore (the ranges are in the checkpoint).
 *
 * <p>Ranges are about equal in bytes and at least {@code minBytes} long: a small file stays one
 * range, read in order.
 */
final class LineRanges {

  private static final int BUFFER = 1 << 20;

  private LineRanges() {}

  /**
   * At most {@code parts} ranges of {@code path} covering it exactly, the last one to the end
   * ({@link LineSplit#TO_END}).
   */
  static List<LineSplit> split(String path, String name, int parts, long minBytes)
      throws IOException {
    try (FileChannel f = FileChannel.open(Path.of(path), StandardOpenOption.READ)) {
      long size = f.size();
      int n = (int) Math.max(1, Math.min(parts, size / Math.max(1, minBytes)));
      List<LineSplit> out = new ArrayList<>(n);
      if (n == 1) {
        out.add(new LineSplit(path, name, 0, 0));
        return out;
      }
      ByteBuffer buf = ByteBuffer.allocate(BUFFER);
      byte[] b = buf.array();
      long pos = 0; // file offset of b[0]
      long lines = 0; // line ends in [0, pos + i)
      long start = 0;
      long startLines = 0;
      boolean cr = false; // the byte before pos + i was a '\r'
      int next = 1; // the next cut to place, at or after next * size / n
      long target = size / n;
      scan:
      while (pos < size) {
        buf.clear();
        int got = f.read(buf, pos);
        if (got <= 0) {
          break;
        }
        for (int i = 0; i < got; i++) {
          byte c = b[i];
          // a boundary is right after a line end: after '\n', or after a '\r' not followed by '\n'
          boolean boundary = false;
          if (cr) {
            cr = false;
            if (c != '\n') {
              lines++; // the lone '\r' before this byte ended a line
              boundary = true;
            }
          }
          if (boundary && pos + i >= target) {
            out.add(new LineSplit(path, name, start, startLines, pos + i, next - 1));
            start = pos + i;
            startLines = lines;
            if (++next == n) {
              break scan;
            }
            target = size / n * next;
          }
          if (c == '\n') {
            lines++;
            if (pos + i + 1 >= target && pos + i + 1 < size) {
              out.add(new LineSplit(path, name, start, startLines, pos + i + 1, next - 1));
              start = pos + i + 1;
              startLines = lines;
              if (++next == n) {
                break scan;
              }
              target = size / n * next;
            }
          } else if (c == '\r') {
            cr = true;
          }
        }
        pos += got;
      }
      out.add(new LineSplit(path, name, start, startLines, LineSplit.TO_END, out.size()));
      return out;
    }
  }
}
