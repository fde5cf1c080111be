package io.urldedup.jobbench;

import io.urldedup.operators.UrlRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.util.BitSet;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Counts what a job emits against the truth: an emitted first occurrence is right, an emitted
 * repeat is a false negative (a duplicate let through), a first occurrence never emitted is a
 * false positive (a new URL suppressed). Parallelism 1: one bit set of the whole stream.
 */
final class TruthSink implements Sink<UrlRecord> {

  private static final long serialVersionUID = 1L;

  private final String truthBits;

  TruthSink(String truthBits) {
    this.truthBits = truthBits;
  }

  @Override
  public SinkWriter<UrlRecord> createWriter(WriterInitContext context) throws IOException {
    return new Writer(TruthBits.read(Path.of(truthBits)).firsts);
  }

  private static final class Writer implements SinkWriter<UrlRecord> {
    private final BitSet firsts;
    private final BitSet seen = new BitSet();
    private long emitted;
    private long firstsOk;
    private long repeats;
    private long twice;
    private long unnumbered;

    Writer(BitSet firsts) {
      this.firsts = firsts;
    }

    @Override
    public void write(UrlRecord r, Context context) {
      if (emitted++ == 0) {
        BenchProbe.keyedCpuStart = BenchProbe.threadCpu();
      }
      byte[] b = r.headers.lastValue(NumberedLines.LINE_HEADER);
      if (b == null || b.length != 8) {
        unnumbered++;
        return;
      }
      long n = 0;
      for (int i = 0; i < 8; i++) {
        n = (n << 8) | (b[i] & 0xFF);
      }
      int line = (int) n;
      if (seen.get(line)) {
        twice++; // only after a replay; the runs do not restart
        return;
      }
      seen.set(line);
      if (firsts.get(line)) {
        firstsOk++;
      } else {
        repeats++;
      }
      if ((emitted & 0xFFF) == 0) {
        publish(); // a run cut by its timeout still reports its accuracy so far
      }
    }

    @Override
    public void flush(boolean endOfInput) {
      if (endOfInput && BenchProbe.endOfInputNanos == 0) {
        BenchProbe.endOfInputNanos = System.nanoTime();
        BenchProbe.keyedCpuEnd = BenchProbe.threadCpu();
        BenchProbe.processCpuEnd = BenchProbe.processCpu();
      }
      publish();
    }

    private void publish() {
      BenchProbe.emitted = emitted;
      BenchProbe.emittedFirsts = firstsOk;
      BenchProbe.emittedRepeats = repeats;
      BenchProbe.emittedTwice = twice;
      BenchProbe.unnumbered = unnumbered;
    }

    @Override
    public void close() {
      publish();
    }
  }
}
