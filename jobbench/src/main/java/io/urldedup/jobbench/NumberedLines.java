package io.urldedup.jobbench;

import io.urldedup.job.LineHook;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordHeaders;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;

/**
 * The benchmark's lines, read by the job's own source ({@code LineFileSource}): each record carries
 * its 0-based line number in the header {@link #LINE_HEADER} (8 bytes, big endian), which the
 * decoder passes through to the sink, so the sink can check every emitted record against the truth
 * file. All jobs of a comparison read through it, so its cost is the same in each.
 *
 * <p>Its probes: the first record's time, this reader's thread CPU from its first record to the end
 * of its range, the lines read (in total and, per checkpoint, the line range this reader had read
 * before the barrier, so a checkpoint's size can be divided by the unique URLs it covers). One
 * instance per reader (the source is deserialized per subtask).
 */
final class NumberedLines implements LineHook {

  private static final long serialVersionUID = 2L;

  static final String LINE_HEADER = "line";

  private transient boolean started;
  private transient long firstIndex;
  private transient long cpuStart;
  private transient long unpublished;

  @Override
  public RawRecord record(byte[] buf, int off, int len, long index) {
    if (!started) {
      started = true;
      firstIndex = index;
      cpuStart = BenchProbe.threadCpu();
      BenchProbe.sourceCpuStartByThread.put(Thread.currentThread().getId(), cpuStart);
      if (BenchProbe.firstRecordNanos.get() == 0) {
        BenchProbe.setOnce(BenchProbe.processCpuStart, BenchProbe.processCpu());
        BenchProbe.setOnce(BenchProbe.firstRecordNanos, System.nanoTime());
      }
    }
    if (++unpublished == 4096) {
      BenchProbe.linesRead.add(unpublished);
      unpublished = 0;
    }
    byte[] ln = new byte[8];
    for (int i = 0; i < 8; i++) {
      ln[i] = (byte) (index >>> (56 - 8 * i));
    }
    return new RawRecord(
        null, Arrays.copyOfRange(buf, off, off + len), RecordHeaders.of(LINE_HEADER, ln), null);
  }

  @Override
  public void snapshot(long checkpointId, long lines) {
    if (started) {
      BenchProbe.rangesAtCheckpoint
          .computeIfAbsent(checkpointId, k -> Collections.synchronizedList(new ArrayList<>()))
          .add(new long[] {firstIndex, lines});
    }
  }

  @Override
  public void end(long lines) {
    BenchProbe.linesRead.add(unpublished);
    unpublished = 0;
    if (started) {
      BenchProbe.sourceCpu.add(BenchProbe.threadCpu() - cpuStart);
      BenchProbe.sourceCpuStartByThread.remove(Thread.currentThread().getId());
    }
    BenchProbe.sourcesEnded.increment();
  }
}
