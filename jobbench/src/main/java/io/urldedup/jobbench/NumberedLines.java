package io.urldedup.jobbench;

import io.urldedup.job.LineHook;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordHeaders;
import java.util.Arrays;

/**
 * The benchmark's lines, read by the job's own source ({@code LineFileSource}): each record
 * carries its 0-based line number in the header {@link #LINE_HEADER} (8 bytes, big endian), which
 * the decoder passes through to the sink, so the sink can check every emitted record against the
 * truth file. All jobs of a comparison read through it, so its cost is the same in each.
 *
 * <p>Its probes: the first record's time and CPU, the lines read (in total and at each checkpoint,
 * so a checkpoint's size can be divided by the unique URLs it covers), the source thread's CPU at
 * the end of the input.
 */
final class NumberedLines implements LineHook {

  static final String LINE_HEADER = "line";

  @Override
  public RawRecord record(byte[] buf, int off, int len, long index) {
    if (BenchProbe.firstRecordNanos == 0) {
      BenchProbe.firstRecordNanos = System.nanoTime();
      BenchProbe.sourceCpuStart = BenchProbe.threadCpu();
      BenchProbe.processCpuStart = BenchProbe.processCpu();
    }
    BenchProbe.linesRead = index + 1;
    byte[] ln = new byte[8];
    for (int i = 0; i < 8; i++) {
      ln[i] = (byte) (index >>> (56 - 8 * i));
    }
    return new RawRecord(null, Arrays.copyOfRange(buf, off, off + len), RecordHeaders.of(LINE_HEADER, ln), null);
  }

  @Override
  public void snapshot(long checkpointId, long lines) {
    BenchProbe.linesAtCheckpoint.put(checkpointId, lines);
  }

  @Override
  public void end(long lines) {
    BenchProbe.sourceCpuEnd = BenchProbe.threadCpu();
  }
}
