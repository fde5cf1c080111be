package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.MAPPING;
import static io.urldedup.operators.DedupOperatorTestKit.MAX_PARALLELISM;
import static io.urldedup.operators.DedupOperatorTestKit.checkpoint;
import static io.urldedup.operators.DedupOperatorTestKit.harness;
import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.StableMath;
import io.urldedup.state.StableSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.streaming.util.AbstractStreamOperatorTestHarness;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rescaling 2 -> 3 -> 1 subtasks with the key-group reassignment Flink does on restore: every
 * shard's header and pages follow its key group, so after each step every URL seen before is still
 * a duplicate and every new URL is emitted.
 */
class DedupOperatorRescaleTest {

  private static final int[] PARALLELISM = {2, 3, 1};
  private static final int NEW_PER_STEP = 600;

  /** Enough shards that each of 3 subtasks owns some (8 leave one of them empty). */
  private static final int SHARDS = 32;

  @AfterAll
  static void cleanRocks() throws Exception {
    DedupOperatorTestKit.deleteRocksDir();
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of(FilterSpec.Kind.SCALABLE, Backend.HASHMAP),
        Arguments.of(FilterSpec.Kind.STABLE, Backend.HASHMAP),
        Arguments.of(FilterSpec.Kind.SCALABLE, Backend.ROCKSDB),
        Arguments.of(FilterSpec.Kind.STABLE, Backend.ROCKSDB),
        Arguments.of(FilterSpec.Kind.AGED, Backend.HASHMAP),
        Arguments.of(FilterSpec.Kind.AGED, Backend.ROCKSDB));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void everySeenUrlStaysADuplicateAcrossRescales(FilterSpec.Kind kind, Backend backend)
      throws Exception {
    FilterSpec spec = DedupOperatorTestKit.spec(kind);
    if (kind == FilterSpec.Kind.STABLE) {
      // the whole test is < 4000 arrivals over 32 shards, so a URL's gap is < 1000 arrivals to its
      // shard
      double fn = StableMath.falseNegative(((StableSpec) spec).geometry(), 1000);
      assertTrue(
          fn * 4000 < 1e-3, "the stable filter must keep every URL of this test, FN(1000) = " + fn);
    }
    List<UrlRecord> seen = new ArrayList<>();
    OperatorSubtaskState state = null;
    int oldParallelism = 0;
    for (int step = 0; step < PARALLELISM.length; step++) {
      int p = PARALLELISM[step];
      List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks =
          new ArrayList<>();
      for (int i = 0; i < p; i++) {
        var h = harness(spec, MAPPING, 16, backend, p, i);
        h.initializeState(
            state == null
                ? null
                : AbstractStreamOperatorTestHarness.repartitionOperatorState(
                    state, MAX_PARALLELISM, oldParallelism, p, i));
        h.open();
        subtasks.add(h);
      }
      String what = kind + " on " + backend + " at parallelism " + p;

      int[] replayed = new int[p];
      assertEquals(
          0, route(subtasks, seen, replayed), what + ": a URL seen before was emitted again");
      List<UrlRecord> fresh = urls("rescale-" + step, 0, NEW_PER_STEP, SHARDS);
      int[] routed = new int[p];
      assertEquals(NEW_PER_STEP, route(subtasks, fresh, routed), what + ": new URLs");
      for (int i = 0; i < p; i++) {
        assertTrue(
            routed[i] > 0, what + ": subtask " + i + " got no shard, the test would not test it");
      }
      seen.addAll(fresh);

      OperatorSubtaskState[] snapshots = new OperatorSubtaskState[p];
      for (int i = 0; i < p; i++) {
        snapshots[i] = checkpoint(subtasks.get(i), step + 1);
        subtasks.get(i).close();
      }
      state = AbstractStreamOperatorTestHarness.repackageState(snapshots);
      oldParallelism = p;
    }
  }

  /**
   * Sends each record to the subtask owning its shard's key group; returns how many were emitted.
   */
  private static int route(
      List<KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord>> subtasks,
      List<UrlRecord> records,
      int[] perSubtask)
      throws Exception {
    int emitted = 0;
    for (UrlRecord r : records) {
      int i =
          KeyGroupRangeAssignment.assignKeyToParallelOperator(
              r.shard, MAX_PARALLELISM, subtasks.size());
      perSubtask[i]++;
      emitted += DedupOperatorTestKit.process(subtasks.get(i), r) ? 1 : 0;
    }
    return emitted;
  }
}
