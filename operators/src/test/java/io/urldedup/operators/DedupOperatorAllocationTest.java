package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.state.FilterSpec;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.util.OutputTag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The per-record path allocates nothing once the shards are open and their pages cached (heap
 * backend, cache holding the working set): the whole point of a page cache over keyed state.
 * Measured with the JVM's per-thread allocation counter around 200k records; the harness's own
 * output copying is replaced by a counting output. The gauge refresh (every 5 s) is excluded.
 */
class DedupOperatorAllocationTest {

  /** Counts records and keeps nothing. */
  static final class CountingOutput implements Output<StreamRecord<UrlRecord>> {
    long records;

    @Override
    public void collect(StreamRecord<UrlRecord> record) {
      records++;
    }

    @Override
    public <X> void collect(OutputTag<X> outputTag, StreamRecord<X> record) {}

    @Override
    public void emitWatermark(Watermark mark) {}

    @Override
    public void emitWatermarkStatus(
        org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus s) {}

    @Override
    public void emitWatermark(org.apache.flink.runtime.event.WatermarkEvent watermark) {}

    @Override
    public void emitLatencyMarker(LatencyMarker latencyMarker) {}

    @Override
    public void emitRecordAttributes(
        org.apache.flink.streaming.runtime.streamrecord.RecordAttributes a) {}

    @Override
    public void close() {}
  }

  @ParameterizedTest
  @EnumSource(FilterSpec.Kind.class)
  void steadyStateRecordsAllocateNothing(FilterSpec.Kind kind) throws Exception {
    FilterSpec spec = DedupOperatorTestKit.spec(kind);
    CountingOutput out = new CountingOutput();
    var h =
        DedupOperatorTestKit.harness(
            spec, DedupOperatorTestKit.MAPPING, 1024, Backend.HASHMAP, 1, 0);
    h.setOutputCreator(serializer -> out);
    h.open();
    // gauges are recomputed at most every 5 s, off the per-record budget; keep them out of the
    // window
    ((DedupOperator) h.getOperator()).health().periodNanos = Long.MAX_VALUE;
    List<StreamRecord<UrlRecord>> records = new ArrayList<>();
    for (UrlRecord r : urls("alloc", 0, 400)) {
      records.add(new StreamRecord<>(r));
    }
    for (int round = 0; round < 20; round++) { // opens shards, fills the cache, warms the JIT
      for (StreamRecord<UrlRecord> r : records) {
        h.processElement(r);
      }
    }
    assertEquals(400, out.records, "each URL emitted once");

    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long tid = Thread.currentThread().getId();
    int rounds = 500;
    long before = mx.getThreadAllocatedBytes(tid);
    for (int round = 0; round < rounds; round++) {
      for (StreamRecord<UrlRecord> r : records) {
        h.processElement(r);
      }
    }
    long bytes = mx.getThreadAllocatedBytes(tid) - before;
    double perRecord = bytes / (double) (rounds * records.size());
    assertEquals(400, out.records, "repeats are all duplicates");
    // a byte per record of slack for the allocation counter's own noise
    assertTrue(perRecord < 1.0, kind + ": " + perRecord + " bytes allocated per record");
    h.close();
  }
}
