package io.urldedup.jobbench;

import io.urldedup.operators.UrlRecord;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Counts what a job emits against the truth. Per line: an emitted first occurrence is right, an
 * emitted repeat is a false negative (a duplicate let through), a first occurrence never emitted is
 * a false positive (a new URL suppressed). Per page (the truth's canonical URL): a page emitted
 * again is a false negative, a page never emitted a false positive; this is the count that holds
 * when parallel readers decide which occurrence comes first. One writer per dedup subtask (chained
 * to it); the bit sets are shared by the writers of this JVM.
 */
final class TruthSink implements Sink<UrlRecord> {

  private static final long serialVersionUID = 1L;

  private static BenchProbe.Bits seenLines;
  private static BenchProbe.Bits emittedPages;

  private final String truthBits;

  TruthSink(String truthBits) {
    this.truthBits = truthBits;
  }

  @Override
  public SinkWriter<UrlRecord> createWriter(WriterInitContext context) throws IOException {
    TruthBits truth = TruthBits.read(Path.of(truthBits));
    synchronized (TruthSink.class) {
      if (seenLines == null) {
        seenLines = new BenchProbe.Bits(truth.lines);
        emittedPages = new BenchProbe.Bits(truth.lines);
      }
    }
    return new Writer(truth, seenLines, emittedPages);
  }

  private static final class Writer implements SinkWriter<UrlRecord> {
    private final TruthBits truth;
    private final BenchProbe.Bits seen;
    private final BenchProbe.Bits pages;
    private boolean started;
    private boolean ended;
    private long cpuStart;

    Writer(TruthBits truth, BenchProbe.Bits seen, BenchProbe.Bits pages) {
      this.truth = truth;
      this.seen = seen;
      this.pages = pages;
    }

    @Override
    public void write(UrlRecord r, Context context) {
      if (!started) {
        started = true;
        cpuStart = BenchProbe.threadCpu();
        BenchProbe.keyedCpuStartByThread.put(Thread.currentThread().getId(), cpuStart);
      }
      BenchProbe.emitted.increment();
      byte[] b = r.headers.lastValue(NumberedLines.LINE_HEADER);
      if (b == null || b.length != 8) {
        BenchProbe.unnumbered.increment();
        return;
      }
      long n = 0;
      for (int i = 0; i < 8; i++) {
        n = (n << 8) | (b[i] & 0xFF);
      }
      int line = (int) n;
      if (seen.getAndSet(line)) {
        BenchProbe.emittedTwice.increment(); // only after a replay; the runs do not restart
        return;
      }
      if (truth.firsts.get(line)) {
        BenchProbe.emittedFirsts.increment();
      } else {
        BenchProbe.emittedRepeats.increment();
      }
      if (pages.getAndSet(truth.ids[line])) {
        BenchProbe.urlsEmittedAgain.increment();
      } else {
        BenchProbe.urlsEmitted.increment();
      }
    }

    @Override
    public void flush(boolean endOfInput) {
      if (endOfInput && !ended) {
        ended = true;
        BenchProbe.max(BenchProbe.endOfInputNanos, System.nanoTime());
        if (started) {
          BenchProbe.keyedCpu.add(BenchProbe.threadCpu() - cpuStart);
          BenchProbe.keyedCpuStartByThread.remove(Thread.currentThread().getId());
        }
        BenchProbe.max(BenchProbe.processCpuEnd, BenchProbe.processCpu());
        BenchProbe.writersEnded.increment();
      }
    }

    @Override
    public void close() {}
  }
}
