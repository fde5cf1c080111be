package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.MAPPING;
import static io.urldedup.operators.DedupOperatorTestKit.MAX_PARALLELISM;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Insert logs ({@code --materialize-every}): a checkpoint taken between materializations (base
 * pages and headers plus log chunks), restored, gives bit for bit the pages and headers of an
 * operator that was never interrupted, and the same decisions; for every filter kind (stable,
 * scalable, aged by count and aged by event time), on both backends, with N = 1 and N = 4, with a
 * cache large enough for every page and with a 4-page cache (evictions between materializations)
 * plus a 16-word spill threshold (many chunks per checkpoint); N = 4 state restores into N = 1 too;
 * and a rescale 1 -> 2 of logged state.
 *
 * <p>Ground truth: the uninterrupted N = 1 run, today's layout. Every run ends with checkpoint 12
 * (a multiple of 1 and 4), which materializes every shard, and the test compares the pages and
 * headers then in keyed state.
 */
class LoggedStateRestoreTest {

  private static final int SHARDS = DedupOperatorTestKit.SHARDS;
  private static final long OOO = 5_000;

  /** Generation shifts by count: about 100 new URLs per generation per shard, a test sends ~400. */
  private static final FilterSpec AGED_COUNT = FilterSpec.agedCount(1e-4, 400, 4);

  /** 60 s window; records 50 ms apart over 150 s turn the ring several times. */
  private static final FilterSpec AGED_TIME = FilterSpec.agedTime(1e-4, 60_000, 0, 200);

  private static final long SNAPSHOT_ID = 6;
  private static final long FINAL_ID = 12;

  enum Kind {
    STABLE,
    SCALABLE,
    AGED_COUNT,
    AGED_TIME
  }

  @AfterAll
  static void cleanRocks() throws Exception {
    DedupOperatorTestKit.deleteRocksDir();
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      for (Backend backend : Backend.values()) {
        out.add(Arguments.of(kind, backend, 4096));
        out.add(Arguments.of(kind, backend, 4));
      }
    }
    return out.stream();
  }

  static Stream<Arguments> rescaleCases() {
    List<Arguments> out = new ArrayList<>();
    for (Kind kind : Kind.values()) {
      for (Backend backend : Backend.values()) {
        out.add(Arguments.of(kind, backend));
      }
    }
    return out.stream();
  }

  private static FilterSpec spec(Kind kind) {
    return switch (kind) {
      case STABLE -> DedupOperatorTestKit.STABLE;
      case SCALABLE -> DedupOperatorTestKit.SCALABLE;
      case AGED_COUNT -> AGED_COUNT;
      case AGED_TIME -> AGED_TIME;
    };
  }

  private static DedupOperator operator(Kind kind, int cachePages, int n) {
    return new DedupOperator(
        DedupSettings.of(spec(kind), MAPPING)
            .withCachePages(cachePages)
            .withTime(kind == Kind.AGED_TIME ? GenerationTime.eventTime(OOO) : null)
            .withMaterializeEvery(n));
  }

  /** A record at a time, or a watermark (aged by event time; the others ignore it). */
  private record Step(UrlRecord record, long time) {}

  /**
   * New URLs, every third record a repeat, every 41st forced, 50 ms apart, a watermark every 97.
   */
  private static List<List<Step>> chunks(String prefix, int from, int count, int chunks) {
    List<List<Step>> out = new ArrayList<>();
    List<UrlRecord> fresh = DedupOperatorTestKit.urls(prefix, from, from + count);
    int per = count / chunks;
    for (int c = 0; c < chunks; c++) {
      List<Step> steps = new ArrayList<>();
      for (int i = c * per; i < (c + 1) * per; i++) {
        long t = (from + i) * 50L;
        UrlRecord r = fresh.get(i);
        if (i % 3 == 0 && i > 0) {
          r = fresh.get(i / 2);
        }
        if (i % 41 == 0) {
          r = DedupOperatorTestKit.record(r.url(), true);
        }
        steps.add(new Step(r, t));
        if (i % 97 == 0) {
          steps.add(new Step(null, t - OOO));
        }
      }
      out.add(steps);
    }
    return out;
  }

  private static final List<List<Step>> BEFORE = chunks("before", 0, 1800, (int) SNAPSHOT_ID);
  private static final List<List<Step>> AFTER = chunks("after", 1800, 1500, 3);
  private static final long[] AFTER_IDS = {7, 9, 10};

  private static KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> open(
      DedupOperator op,
      Backend backend,
      int parallelism,
      int subtask,
      OperatorSubtaskState restore,
      int cachePages)
      throws Exception {
    KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            op, r -> r.shard, Types.INT, MAX_PARALLELISM, parallelism, subtask);
    h.setStateBackend(DedupOperatorTestKit.stateBackend(backend));
    h.setCheckpointStorage(new JobManagerCheckpointStorage(64 << 20));
    h.initializeState(restore);
    h.open();
    if (cachePages < 16) {
      op.checkpointer().spillWords = 16;
    }
    return h;
  }

  private static void feed(
      List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks,
      List<Step> steps,
      List<Boolean> decisions)
      throws Exception {
    for (Step s : steps) {
      if (s.record == null) {
        for (var h : subtasks) {
          h.processWatermark(new Watermark(s.time));
          drain(h);
        }
        continue;
      }
      var h =
          subtasks.get(
              KeyGroupRangeAssignment.assignKeyToParallelOperator(
                  s.record.shard, MAX_PARALLELISM, subtasks.size()));
      h.processElement(new StreamRecord<>(s.record, s.time));
      decisions.add(drain(h));
    }
  }

  private static boolean drain(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h) {
    boolean emitted = false;
    Object o;
    while ((o = h.getOutput().poll()) != null) {
      emitted |= o instanceof StreamRecord<?>;
    }
    return emitted;
  }

  /** Pages and headers in keyed state after the final checkpoint (every shard materialized). */
  private record Stored(
      Map<Integer, FilterHeader> headers, Map<Integer, Map<Long, long[]>> pages) {}

  private static Stored finish(
      List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks)
      throws Exception {
    Map<Integer, FilterHeader> headers = new TreeMap<>();
    Map<Integer, Map<Long, long[]>> pages = new TreeMap<>();
    for (var h : subtasks) {
      DedupOperatorTestKit.checkpoint(h, FINAL_ID);
      DedupOperator op = (DedupOperator) h.getOperator();
      headers.putAll(StoredState.headers(op));
      pages.putAll(StoredState.pages(op));
      assertEquals(
          op.openHeaders(),
          StoredState.headers(op),
          "open headers vs stored after the final checkpoint");
      h.close();
    }
    return new Stored(headers, pages);
  }

  private static void assertSameState(Stored expected, Stored actual, String what) {
    assertEquals(expected.headers, actual.headers, what + ": headers");
    assertEquals(expected.pages.keySet(), actual.pages.keySet(), what + ": shards with pages");
    for (var e : expected.pages.entrySet()) {
      Map<Long, long[]> a = actual.pages.get(e.getKey());
      assertEquals(e.getValue().keySet(), a.keySet(), what + ": page ids of shard " + e.getKey());
      for (var p : e.getValue().entrySet()) {
        assertArrayEquals(
            p.getValue(),
            a.get(p.getKey()),
            what + ": shard " + e.getKey() + " page " + p.getKey());
      }
    }
  }

  /** Runs BEFORE with checkpoints 1..6, returns the harness (still open) and the snapshot at 6. */
  private static OperatorSubtaskState runBefore(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h,
      List<Boolean> decisions)
      throws Exception {
    OperatorSubtaskState snapshot = null;
    for (int c = 0; c < BEFORE.size(); c++) {
      feed(List.of(h), BEFORE.get(c), decisions);
      snapshot = DedupOperatorTestKit.checkpoint(h, c + 1);
    }
    return snapshot;
  }

  private static void runAfter(
      List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks,
      List<Boolean> decisions)
      throws Exception {
    for (int c = 0; c < AFTER.size(); c++) {
      feed(subtasks, AFTER.get(c), decisions);
      for (var h : subtasks) {
        DedupOperatorTestKit.checkpoint(h, AFTER_IDS[c]);
      }
    }
  }

  @ParameterizedTest(name = "{0} on {1}, {2} cache pages")
  @MethodSource("cases")
  void restoredStateIsBitForBitTheUninterruptedState(Kind kind, Backend backend, int cachePages)
      throws Exception {
    String what = kind + " on " + backend + ", cache " + cachePages;

    // ground truth: N = 1, never interrupted
    List<Boolean> truthDecisions = new ArrayList<>();
    var a1 = open(operator(kind, cachePages, 1), backend, 1, 0, null, cachePages);
    OperatorSubtaskState s1 = runBefore(a1, truthDecisions);
    runAfter(List.of(a1), truthDecisions);
    assertFalse(
        ((DedupOperator) a1.getOperator()).hasLogState(), what + ": N = 1 registers no log state");
    assertEquals(0, ((DedupOperator) a1.getOperator()).metrics().logBytesWritten());
    Stored truth = finish(List.of(a1));

    // N = 1 restored
    checkRestored(kind, backend, cachePages, s1, 1, truthDecisions, truth, what + ", N=1 -> N=1");
    var plain = open(operator(kind, cachePages, 1), backend, 1, 0, s1, cachePages);
    assertFalse(
        ((DedupOperator) plain.getOperator()).hasLogState(),
        what + ": N = 1 state restores without log state");
    plain.close();

    // N = 4, never interrupted
    List<Boolean> decisions4 = new ArrayList<>();
    var a4 = open(operator(kind, cachePages, 4), backend, 1, 0, null, cachePages);
    OperatorSubtaskState s4 = runBefore(a4, decisions4);
    DedupOperator op4 = (DedupOperator) a4.getOperator();
    assertTrue(op4.hasLogState());
    assertTrue(op4.metrics().logBytesWritten() > 0, what + ": N = 4 wrote log chunks");
    if (cachePages < 16) {
      assertTrue(op4.checkpointer().spills > 0, what + ": logs spilled between checkpoints");
    }
    runAfter(List.of(a4), decisions4);
    assertEquals(truthDecisions, decisions4, what + ": N = 4 decisions");
    assertSameState(truth, finish(List.of(a4)), what + ", N=4 uninterrupted");

    // N = 4 snapshot between materializations, restored into N = 4 and into N = 1
    checkRestored(kind, backend, cachePages, s4, 4, truthDecisions, truth, what + ", N=4 -> N=4");
    checkRestored(kind, backend, cachePages, s4, 1, truthDecisions, truth, what + ", N=4 -> N=1");
  }

  private static void checkRestored(
      Kind kind,
      Backend backend,
      int cachePages,
      OperatorSubtaskState snapshot,
      int n,
      List<Boolean> truthDecisions,
      Stored truth,
      String what)
      throws Exception {
    DedupOperator op = operator(kind, cachePages, n);
    var b = open(op, backend, 1, 0, snapshot, cachePages);
    List<Boolean> decisions = new ArrayList<>(truthDecisions.subList(0, countRecords(BEFORE)));
    runAfter(List.of(b), decisions);
    long replayed = op.metrics().logOperationsReplayed();
    if (!op.hasLogState()) {
      assertEquals(0, replayed, what);
    } else if (cachePages >= 16) {
      // with evictions, stable and aged shards are materialized at every checkpoint: nothing to
      // replay
      assertTrue(replayed > 0, what + ": the restore replayed the logs");
    }
    assertEquals(truthDecisions, decisions, what + ": decisions after the restore");
    assertSameState(truth, finish(List.of(b)), what);
  }

  private static int countRecords(List<List<Step>> chunks) {
    int n = 0;
    for (List<Step> c : chunks) {
      for (Step s : c) {
        n += s.record == null ? 0 : 1;
      }
    }
    return n;
  }

  /**
   * What a checkpoint between materializations writes: no page, and 16 B per new URL of log
   * (scalable, a cache that holds every page); the next multiple of N writes the pages.
   */
  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.EnumSource(Backend.class)
  void checkpointsBetweenMaterializationsWriteOnlyTheLog(Backend backend) throws Exception {
    DedupOperator op = operator(Kind.SCALABLE, 4096, 4);
    var h = open(op, backend, 1, 0, null, 4096);
    List<Boolean> decisions = new ArrayList<>();
    feed(List.of(h), BEFORE.get(0), decisions);
    DedupOperatorTestKit.checkpoint(h, 4);
    long pagesWritten = op.cache().writeBacks();
    long materialized = op.metrics().shardsMaterialized();
    assertTrue(pagesWritten > 0 && materialized == SHARDS, "checkpoint 4 materializes every shard");

    decisions.clear();
    long insertsBefore = inserts(op);
    feed(List.of(h), BEFORE.get(1), decisions);
    int emitted = DedupOperatorTestKit.count(decisions);
    assertTrue(emitted > 100);
    DedupOperatorTestKit.checkpoint(h, 5);
    assertEquals(pagesWritten, op.cache().writeBacks(), "checkpoint 5 writes no page");
    assertEquals(materialized, op.metrics().shardsMaterialized());
    // each insert is 16 B; a forced repeat changes nothing and logs nothing
    long inserted = inserts(op) - insertsBefore;
    assertTrue(inserted > emitted - BEFORE.get(1).size() / 41 - 1);
    assertEquals(16L * inserted, op.metrics().logBytesWritten());

    DedupOperatorTestKit.checkpoint(h, 8);
    assertTrue(op.cache().writeBacks() > pagesWritten, "checkpoint 8 writes the pages");
    assertEquals(materialized + SHARDS, op.metrics().shardsMaterialized());
    h.close();
  }

  /**
   * The round after the barrier before a multiple of N: the changed shards are materialized one at
   * a time between records, paced over half the interval measured between the last two barriers (a
   * 10 s interval here, on the operator's clock), so the barrier at the multiple of N writes no
   * page; only the log of what came after each shard's materialization.
   */
  @ParameterizedTest(name = "{0}")
  @org.junit.jupiter.params.provider.EnumSource(Backend.class)
  void aRoundMaterializesTheShardsBetweenRecordsBeforeTheEpoch(Backend backend) throws Exception {
    DedupOperator op = operator(Kind.SCALABLE, 4096, 4);
    var h = open(op, backend, 1, 0, null, 4096);
    long[] now = {0};
    op.checkpointer().nanoClock = () -> now[0];
    List<Boolean> decisions = new ArrayList<>();
    for (int c = 1; c <= 3; c++) {
      feed(List.of(h), BEFORE.get(c - 1), decisions);
      now[0] += 10_000_000_000L;
      DedupOperatorTestKit.checkpoint(h, c);
    }
    long materialized = op.metrics().shardsMaterialized();
    assertEquals(SHARDS, materialized, "checkpoint 1 materialized the new shards (no base yet)");
    Map<Integer, List<Long>> chunks = StoredState.chunkKeys(op);
    assertEquals(SHARDS, chunks.size(), "checkpoints 2 and 3 wrote every shard's log");
    for (List<Long> keys : chunks.values()) {
      assertEquals(List.of(0L, 1L), keys, "one chunk per checkpoint, keys rising from 0");
    }

    // 300 records at the barrier's time: the first check (256 records) finds one shard due
    feed(List.of(h), BEFORE.get(3), decisions);
    assertEquals(
        materialized + 1,
        op.metrics().shardsMaterialized(),
        "one shard due at the start of the round");
    // half the interval later every shard is due at the next check
    now[0] += 5_000_000_000L;
    feed(List.of(h), BEFORE.get(4), decisions);
    assertEquals(
        materialized + SHARDS,
        op.metrics().shardsMaterialized(),
        "every shard by half the interval");
    long pagesWritten = op.cache().writeBacks();
    long logBefore = op.metrics().logBytesWritten();

    now[0] += 5_000_000_000L;
    DedupOperatorTestKit.checkpoint(h, 4);
    assertEquals(pagesWritten, op.cache().writeBacks(), "the epoch's barrier writes no page");
    assertEquals(materialized + SHARDS, op.metrics().shardsMaterialized());
    assertTrue(
        op.metrics().logBytesWritten() > logBefore, "the barrier writes the log since the round");
    // the round deleted the chunks it materialized (by key); only the chunk written since remains
    for (var e : StoredState.chunkKeys(op).entrySet()) {
      assertEquals(List.of(2L), e.getValue(), "shard " + e.getKey() + ": chunks after the round");
    }
    h.close();
  }

  private static long inserts(DedupOperator op) {
    return op.openHeaders().values().stream().mapToLong(FilterHeader::inserts).sum();
  }

  /**
   * A rescale 1 -> 2 of state taken between materializations: each shard's log chunks follow its
   * key group, and the two subtasks end with the uninterrupted operator's pages and headers.
   */
  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("rescaleCases")
  void logsFollowTheirShardsThroughARescale(Kind kind, Backend backend) throws Exception {
    String what = kind + " on " + backend + ", rescale 1 -> 2";
    List<Boolean> truthDecisions = new ArrayList<>();
    var a = open(operator(kind, 4096, 4), backend, 1, 0, null, 4096);
    OperatorSubtaskState snapshot = runBefore(a, truthDecisions);
    runAfter(List.of(a), truthDecisions);
    Stored truth = finish(List.of(a));

    List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks =
        new ArrayList<>();
    long replayed = 0;
    for (int i = 0; i < 2; i++) {
      DedupOperator op = operator(kind, 4096, 4);
      subtasks.add(
          open(
              op,
              backend,
              2,
              i,
              AbstractStreamOperatorTestHarness.repartitionOperatorState(
                  snapshot, MAX_PARALLELISM, 1, 2, i),
              4096));
    }
    List<Boolean> decisions = new ArrayList<>(truthDecisions.subList(0, countRecords(BEFORE)));
    runAfter(subtasks, decisions);
    for (var h : subtasks) {
      replayed += ((DedupOperator) h.getOperator()).metrics().logOperationsReplayed();
    }
    assertTrue(replayed > 0, what + ": the restored shards replayed their logs");
    assertEquals(truthDecisions, decisions, what + ": decisions");
    Stored rescaled = finish(subtasks);
    assertEquals(SHARDS, rescaled.headers.size(), what + ": every shard");
    assertSameState(truth, rescaled, what);
  }
}
