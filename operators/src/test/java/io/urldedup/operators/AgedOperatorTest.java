package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.MAX_PARALLELISM;
import static io.urldedup.operators.DedupOperatorTestKit.checkpoint;
import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.FilterSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The aged filter in the operator with time windows: generations advance from the shard clock and
 * keyed timers; checkpoints carry both, so a restored operator continues with the same decisions; a
 * rescale keeps every URL of the window a duplicate.
 *
 * <p>The spec: a 60 s window at FPR 1e-4 (so a test's few hundred first occurrences expect 0.03
 * false positives, and a forgotten URL stays suppressed by a false positive with probability 1e-4),
 * sized for 200 new URLs/s per shard; the tests stay below that rate. After 90 s (more than the k +
 * l generations of 60 s / l, see {@code plan}) every URL is out of the filter.
 */
class AgedOperatorTest {

  static final long WINDOW = 60_000;
  static final AgedSpec SPEC = FilterSpec.agedTime(1e-4, WINDOW, 0, 200);
  static final long OOO = 5_000;

  @AfterAll
  static void cleanRocks() throws Exception {
    DedupOperatorTestKit.deleteRocksDir();
  }

  static KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> harness(
      GenerationTime time,
      Backend backend,
      int parallelism,
      int subtask,
      OperatorSubtaskState restore)
      throws Exception {
    return harness(time, backend, parallelism, subtask, restore, WallClock.SYSTEM);
  }

  static KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> harness(
      GenerationTime time,
      Backend backend,
      int parallelism,
      int subtask,
      OperatorSubtaskState restore,
      WallClock wallClock)
      throws Exception {
    DedupOperator op =
        new DedupOperator(
            DedupSettings.of(SPEC, DedupOperatorTestKit.MAPPING).withCachePages(64).withTime(time),
            wallClock);
    KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            op, r -> r.shard, Types.INT, MAX_PARALLELISM, parallelism, subtask);
    h.setStateBackend(DedupOperatorTestKit.stateBackend(backend));
    h.setCheckpointStorage(new JobManagerCheckpointStorage(64 << 20));
    h.initializeState(restore);
    h.open();
    return h;
  }

  /** One timestamped record; true if it was passed on. */
  static boolean process(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h, UrlRecord r, long ts)
      throws Exception {
    h.processElement(new StreamRecord<>(r, ts));
    boolean emitted = false;
    Object o;
    while ((o = h.getOutput().poll()) != null) {
      if (o instanceof StreamRecord<?>) {
        emitted = true;
      }
    }
    return emitted;
  }

  static int emitted(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h,
      List<UrlRecord> rs,
      long ts,
      List<Boolean> decisions)
      throws Exception {
    int n = 0;
    for (UrlRecord r : rs) {
      boolean e = process(h, r, ts);
      decisions.add(e);
      n += e ? 1 : 0;
    }
    return n;
  }

  /**
   * Moves time to {@code t}: processing time for processing, the watermark t for event time (timers
   * fire).
   */
  static void at(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h,
      GenerationTime time,
      long t)
      throws Exception {
    if (time.event()) {
      h.processWatermark(t - OOO);
    } else {
      h.setProcessingTime(t);
    }
  }

  /**
   * A crawl of 60 s windows: URLs A at t = 0; repeats of A at 30 s must all be duplicates (hard); a
   * checkpoint at 40 s is restored into a second operator and both get the same continuation, new
   * URLs every second until 90 s and A again at 90 s: every decision is identical, and A is emitted
   * again (all of it, bar false positives at 1e-4). Event time: record timestamps with the
   * watermark 5 s behind; processing time: the harness clock.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void windowHoldsAndCheckpointRestoreReplaysTheSameDecisions(Backend backend) throws Exception {
    for (GenerationTime time :
        new GenerationTime[] {GenerationTime.eventTime(OOO), GenerationTime.processingTime()}) {
      String what = (time.event() ? "event" : "processing") + " time on " + backend;
      var a = harness(time, backend, 1, 0, null);
      List<UrlRecord> first = urls("aged-a", 0, 200);
      List<Boolean> ignored = new ArrayList<>();
      long t = 1_000_000; // an arbitrary origin (not a multiple of the generation length)
      at(a, time, t);
      assertEquals(200, emitted(a, first, t, ignored), what + ": first occurrences");
      for (int sec = 1; sec <= 40; sec++) {
        at(a, time, t + sec * 1000L);
        emitted(a, urls("aged-fill-" + sec, 0, 40), t + sec * 1000L, ignored);
        if (sec == 30) {
          assertEquals(
              0,
              emitted(a, first, t + sec * 1000L, ignored),
              what + ": repeats 30 s later (inside the window)");
        }
      }
      OperatorSubtaskState snapshot = checkpoint(a, 1);
      var b = harness(time, backend, 1, 0, snapshot);
      if (!time.event()) {
        b.setProcessingTime(t + 40_000);
      }
      List<Boolean> da = new ArrayList<>();
      List<Boolean> db = new ArrayList<>();
      for (int sec = 41; sec <= 90; sec++) {
        long now = t + sec * 1000L;
        at(a, time, now);
        at(b, time, now);
        List<UrlRecord> fill = urls("aged-fill-" + sec, 0, 40);
        fill.addAll(urls("aged-fill-" + (sec - 20), 0, 10)); // repeats 20 s old: inside the window
        emitted(a, fill, now, da);
        emitted(b, fill, now, db);
      }
      int againA = emitted(a, first, t + 90_000, da);
      int againB = emitted(b, first, t + 90_000, db);
      assertEquals(da, db, what + ": decisions after the restore");
      assertTrue(againA >= 198, what + ": re-emitted 90 s later: " + againA + " of 200");
      assertEquals(againA, againB);
      assertEquals(
          0,
          a.getOperator() instanceof DedupOperator op
              ? op.metrics().generationsAdvancedEarly()
              : -1,
          what + ": below the planned rate nothing advances early");
      a.close();
      b.close();
    }
  }

  /** Above the planned rate (200/s per shard): generations fill and advance early, counted. */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void rateAbovePlanAdvancesEarly(Backend backend) throws Exception {
    var h = harness(GenerationTime.processingTime(), backend, 1, 0, null);
    h.setProcessingTime(0);
    List<Boolean> d = new ArrayList<>();
    // 8 shards x 200/s planned: 20,000 new URLs within one second are about 12x the plan
    List<String> warnings;
    try (WarningCapture capture = new WarningCapture(AgedGenerationDriver.class)) {
      emitted(h, urls("burst", 0, 20_000), 0, d);
      warnings = capture.messages();
    }
    long early = ((DedupOperator) h.getOperator()).metrics().generationsAdvancedEarly();
    long g = SPEC.geometry().generationSize();
    assertTrue(early >= 20_000 / g / 2, "early advances " + early + " for generations of " + g);
    assertEquals(1, warnings.size(), "one WARN a minute, with the measured rate: " + warnings);
    assertTrue(
        warnings.get(0).contains("advanced early") && warnings.get(0).contains("new URLs/s"),
        warnings.get(0));
    h.close();
  }

  /**
   * Records from 100 years ahead of this machine's clock (a broken producer clock) move their shard
   * no further than one generation past that clock: counted, warned once. The test's record time is
   * decades in the past, so the shard moves to now and forgets; what matters is the window of a
   * shard at the present: records at now, then far-future ones, then now + 1 s again: every URL of
   * the window stays a duplicate (unclamped, the ring would turn k + l times and forget them all).
   * A watermark dragged to the future by such records is held to the same limit.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void farFutureTimestampIsClampedAndForgetsNothing(Backend backend) throws Exception {
    GenerationTime time = GenerationTime.eventTime(OOO);
    var h = harness(time, backend, 1, 0, null);
    long t = System.currentTimeMillis();
    at(h, time, t);
    List<UrlRecord> first = urls("aged-future", 0, 400);
    List<Boolean> d = new ArrayList<>();
    assertEquals(400, emitted(h, first, t, d));
    DedupOperator op = (DedupOperator) h.getOperator();
    List<String> warnings;
    try (WarningCapture capture = new WarningCapture(AgedGenerationDriver.class)) {
      long future = t + 100L * 365 * 86_400_000;
      for (UrlRecord r : urls("aged-future-bogus", 0, 3)) {
        process(h, r, future);
      }
      warnings = capture.messages();
    }
    assertEquals(3, op.metrics().timestampsClamped(), "each far-future record counted");
    assertEquals(1, warnings.size(), "one WARN a minute: " + warnings);
    assertTrue(warnings.get(0).contains("ahead of this machine's clock"), warnings.get(0));
    at(h, time, t + 1_000);
    assertEquals(
        0, emitted(h, first, t + 1_000, d), "URLs of the window after a far-future record");
    // the watermark itself dragged 100 years ahead: the timers advance no further than the clock
    h.processWatermark(t + 100L * 365 * 86_400_000);
    assertEquals(
        0, emitted(h, first, t + 2_000, d), "URLs of the window after a far-future watermark");
    h.close();
  }

  /** A wall clock the test moves by hand. */
  static final class ManualClock implements WallClock {
    private static final long serialVersionUID = 1L;
    long millis;

    ManualClock(long millis) {
      this.millis = millis;
    }

    @Override
    public long currentTimeMillis() {
      return millis;
    }
  }

  /**
   * The limit on event time is the injected wall clock's, not the system's: with the clock at t (in
   * 1970, long before the system's now), records ten windows ahead are clamped to one generation
   * past t and forget nothing; once the clock has moved ten windows on, the same time passes
   * unclamped, the watermark moves every shard there and the URLs of t are forgotten. No sleeping.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void eventTimeIsClampedToTheInjectedWallClock(Backend backend) throws Exception {
    GenerationTime time = GenerationTime.eventTime(OOO);
    long t = 7_000_000;
    long later = t + 10 * WINDOW;
    long d = SPEC.generationMillis();
    ManualClock wall = new ManualClock(t);
    var h = harness(time, backend, 1, 0, null, wall);
    DedupOperator op = (DedupOperator) h.getOperator();
    at(h, time, t);
    List<UrlRecord> first = urls("aged-wall", 0, 200);
    List<Boolean> dec = new ArrayList<>();
    assertEquals(200, emitted(h, first, t, dec), "first occurrences");

    List<UrlRecord> ahead = urls("aged-wall-ahead", 0, 50);
    emitted(h, ahead, later, dec);
    assertEquals(
        ahead.size(),
        op.metrics().timestampsClamped(),
        "ten windows past the manual clock: clamped");
    for (var header : op.openHeaders().values()) {
      assertEquals(
          Math.floorDiv(t, d) + 1,
          header.agedClock().epoch(),
          "one generation past the manual clock");
    }
    assertEquals(0, emitted(h, first, t + 1_000, dec), "URLs of the window after clamped records");

    wall.millis = later;
    emitted(h, urls("aged-wall-later", 0, 50), later, dec);
    assertEquals(
        ahead.size(), op.metrics().timestampsClamped(), "the moved clock lets the same time pass");
    at(h, time, later);
    for (var header : op.openHeaders().values()) {
      assertEquals(
          Math.floorDiv(later - OOO, d),
          header.agedClock().epoch(),
          "every shard at the time now allowed");
    }
    assertTrue(emitted(h, first, later, dec) >= 198, "the URLs of ten windows ago are forgotten");
    h.close();
  }

  /** Event time on records without timestamps: nothing ages, which is warned once per subtask. */
  @Test
  void recordsWithoutTimestampsWarnOnce() throws Exception {
    var h = harness(GenerationTime.eventTime(OOO), Backend.HASHMAP, 1, 0, null);
    List<String> warnings;
    try (WarningCapture capture = new WarningCapture(AgedGenerationDriver.class)) {
      for (UrlRecord r : urls("aged-no-ts", 0, 50)) {
        h.processElement(new StreamRecord<>(r));
      }
      warnings = capture.messages();
    }
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(
        warnings.get(0).contains("without a timestamp")
            && warnings.get(0).contains("--time processing"),
        warnings.get(0));
    h.close();
  }

  /**
   * Processing time after a 10-hour outage: the first timer of each shard advances it to now (one
   * step per missed generation would be 30,000 timers per shard), leaves one timer at the next
   * boundary, and the URLs of before the outage are gone.
   */
  @Test
  void processingTimeCatchesUpAnOutageWithOneTimer() throws Exception {
    GenerationTime time = GenerationTime.processingTime();
    var h = harness(time, Backend.HASHMAP, 1, 0, null);
    long t = 7_000_000;
    h.setProcessingTime(t);
    List<UrlRecord> first = urls("aged-outage", 0, 200);
    List<Boolean> d = new ArrayList<>();
    assertEquals(200, emitted(h, first, t, d));
    DedupOperator op = (DedupOperator) h.getOperator();
    int opened = op.openHeaders().size();
    long now = t + 10 * 3_600_000L;
    h.setProcessingTime(now);
    long generation = SPEC.generationMillis();
    assertEquals(opened, h.numProcessingTimeTimers(), "one timer per shard, at its next boundary");
    for (var header : op.openHeaders().values()) {
      assertEquals(Math.floorDiv(now, generation), header.agedClock().epoch(), "caught up to now");
    }
    assertTrue(emitted(h, first, now, d) >= 198, "forgotten after the outage");
    h.close();
  }

  /**
   * Writes a given header into the header state of each record's shard: state as another build left
   * it.
   */
  static final class HeaderWriter
      extends org.apache.flink.streaming.api.operators.AbstractStreamOperator<UrlRecord>
      implements org.apache.flink.streaming.api.operators.OneInputStreamOperator<
          UrlRecord, UrlRecord> {
    private final byte[] header;
    private transient org.apache.flink.api.common.state.ValueState<io.urldedup.state.FilterHeader>
        state;

    HeaderWriter(byte[] header) {
      this.header = header;
    }

    @Override
    public void open() throws Exception {
      super.open();
      state = getPartitionedState(DedupOperator.headerDescriptor());
    }

    @Override
    public void processElement(StreamRecord<UrlRecord> element) throws Exception {
      state.update(
          io.urldedup.state.FilterHeaderSerializer.INSTANCE.deserialize(
              new org.apache.flink.core.memory.DataInputDeserializer(header)));
    }
  }

  /**
   * C1: a restored shard keeps the generation length in its header, not what this build's sizing
   * gives the same flags (an upgrade that sized l differently would otherwise change the window of
   * existing state). State written by "another build": this spec's header with twice the generation
   * length; the restored shard's time steps are those of the header's length.
   */
  @Test
  void restoredShardsKeepTheirGenerationLength() throws Exception {
    long d = SPEC.generationMillis();
    io.urldedup.state.FilterHeader fresh = SPEC.newHeader(DedupOperatorTestKit.MAPPING);
    org.apache.flink.core.memory.DataOutputSerializer out =
        new org.apache.flink.core.memory.DataOutputSerializer(256);
    io.urldedup.state.FilterHeaderSerializer.INSTANCE.serialize(fresh, out);
    byte[] bytes = out.getCopyOfBuffer();
    // the aged record ends: u64 generationMillis, 5 x u64 clock, u32 layout, u32 row lines
    // (little-endian)
    int at = bytes.length - 8 - 40 - 8;
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    assertEquals(d, b.getLong(at), "the generation length's position in the record");
    b.putLong(at, 2 * d);

    var writer =
        new KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>(
            new HeaderWriter(bytes), r -> r.shard, Types.INT, MAX_PARALLELISM, 1, 0);
    writer.setStateBackend(DedupOperatorTestKit.stateBackend(Backend.HASHMAP));
    writer.open();
    List<UrlRecord> rs = urls("aged-c1", 0, 64);
    for (UrlRecord r : rs) {
      writer.processElement(new StreamRecord<>(r));
    }
    OperatorSubtaskState written = writer.snapshot(1, 1);
    writer.close();

    GenerationTime time = GenerationTime.eventTime(OOO);
    var h = harness(time, Backend.HASHMAP, 1, 0, written);
    long t = 3_600_000L * 24 * 400 + 700; // not a multiple of either generation length
    at(h, time, t);
    for (UrlRecord r : rs) {
      process(h, r, t);
    }
    var headers = ((DedupOperator) h.getOperator()).openHeaders();
    assertEquals(DedupOperatorTestKit.SHARDS, headers.size());
    for (var header : headers.values()) {
      assertEquals(2 * d, header.generationMillis());
      assertEquals(
          Math.floorDiv(t - OOO, 2 * d),
          header.agedClock().epoch(),
          "steps of the restored length");
    }
    h.close();
  }

  /**
   * Rescale 2 -> 3 -> 1 with time moving on: every URL emitted within the window stays a duplicate.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void rescaleKeepsTheWindow(Backend backend) throws Exception {
    int[] parallelism = {2, 3, 1};
    int shards = 32;
    GenerationTime time = GenerationTime.eventTime(OOO);
    List<UrlRecord> seen = new ArrayList<>();
    OperatorSubtaskState state = null;
    int old = 0;
    long t = 5_000_000;
    for (int step = 0; step < parallelism.length; step++) {
      int p = parallelism[step];
      List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks =
          new ArrayList<>();
      for (int i = 0; i < p; i++) {
        subtasks.add(
            harness(
                time,
                backend,
                p,
                i,
                state == null
                    ? null
                    : AbstractStreamOperatorTestHarness.repartitionOperatorState(
                        state, MAX_PARALLELISM, old, p, i)));
      }
      long now = t + step * 15_000L; // 3 steps: 30 s, inside the window
      for (var h : subtasks) {
        h.processWatermark(now - OOO);
      }
      assertEquals(
          0, route(subtasks, seen, now), "parallelism " + p + ": a URL of the window came back");
      List<UrlRecord> fresh = urls("aged-rescale-" + step, 0, 400, shards);
      assertEquals(400, route(subtasks, fresh, now), "parallelism " + p + ": new URLs");
      seen.addAll(fresh);
      OperatorSubtaskState[] snapshots = new OperatorSubtaskState[p];
      for (int i = 0; i < p; i++) {
        snapshots[i] = checkpoint(subtasks.get(i), step + 1);
        subtasks.get(i).close();
      }
      state = AbstractStreamOperatorTestHarness.repackageState(snapshots);
      old = p;
    }
  }

  private static int route(
      List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks,
      List<UrlRecord> records,
      long ts)
      throws Exception {
    int emitted = 0;
    for (UrlRecord r : records) {
      int i =
          KeyGroupRangeAssignment.assignKeyToParallelOperator(
              r.shard, MAX_PARALLELISM, subtasks.size());
      emitted += process(subtasks.get(i), r, ts) ? 1 : 0;
    }
    return emitted;
  }
}
