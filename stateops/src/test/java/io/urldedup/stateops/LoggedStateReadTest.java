package io.urldedup.stateops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.DedupSettings;
import io.urldedup.operators.UrlRecord;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.InsertLog;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.CloseableIterator;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code inspect} and {@code probe} of logged state ({@code --materialize-every 4}, a savepoint
 * taken between materializations: bases plus insert log chunks) answer exactly as for the state of
 * the same input written with N = 1: the same headers, pages, bit statistics and probe answers.
 */
@org.junit.jupiter.api.Timeout(300)
class LoggedStateReadTest {

  @TempDir Path tmp;

  @org.junit.jupiter.api.extension.RegisterExtension
  static final org.apache.flink.test.junit5.MiniClusterExtension CLUSTER =
      new org.apache.flink.test.junit5.MiniClusterExtension(
          new org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  /**
   * The dedup operator over {@code records} in a harness (one subtask, heap backend, a cache that
   * holds every page, so that no eviction materializes a stable or aged shard early): half of them,
   * checkpoint 4 (a multiple of every N used here: all materialized), the rest, then a canonical
   * savepoint 5 written as a savepoint directory.
   */
  private static Path savepoint(List<UrlRecord> records, FilterSpec spec, int n, Path dir)
      throws Exception {
    DedupOperator op =
        new DedupOperator(
            DedupSettings.of(spec, TestUrls.MAPPING).withCachePages(4096).withMaterializeEvery(n));
    OperatorSubtaskState state;
    try (KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            op, r -> r.shard, Types.INT, TestUrls.MAX_PARALLELISM, 1, 0)) {
      h.setStateBackend(new HashMapStateBackend());
      h.setCheckpointStorage(new JobManagerCheckpointStorage(64 << 20));
      h.open();
      int half = records.size() / 2;
      for (UrlRecord r : records.subList(0, half)) {
        h.processElement(new StreamRecord<>(r));
      }
      h.prepareSnapshotPreBarrier(4);
      h.snapshot(4, 4);
      for (UrlRecord r : records.subList(half, records.size())) {
        h.processElement(new StreamRecord<>(r));
      }
      h.prepareSnapshotPreBarrier(5);
      state =
          h.snapshotWithLocalState(5, 5, SavepointType.savepoint(SavepointFormatType.CANONICAL))
              .getJobManagerOwnedState();
    }
    OperatorState os =
        new OperatorState(
            "dedup",
            DedupOperator.UID,
            FilterStates.OPERATOR.getOperatorId(),
            1,
            TestUrls.MAX_PARALLELISM);
    os.putState(0, state);
    Path sp = dir.resolve("savepoint-n" + n);
    Files.createDirectories(sp);
    try (OutputStream out = Files.newOutputStream(sp.resolve(StateLocation.METADATA))) {
      Checkpoints.storeCheckpointMetadata(new CheckpointMetadata(5, List.of(os), List.of()), out);
    }
    return sp;
  }

  /** Log chunks per shard in a snapshot, read without replaying them. */
  static final class ChunkCounter extends KeyedStateReaderFunction<Integer, Integer> {
    private static final long serialVersionUID = 1L;
    private transient MapState<Long, InsertLog> log;

    @Override
    public void open(OpenContext context) {
      log = getRuntimeContext().getMapState(DedupOperator.logDescriptor());
    }

    @Override
    public void readKey(Integer shard, Context ctx, Collector<Integer> out) throws Exception {
      int n = 0;
      for (Long ignored : log.keys()) {
        n++;
      }
      out.collect(n);
    }
  }

  private static int chunks(Path savepoint) throws Exception {
    int total = 0;
    try (CloseableIterator<Integer> it =
        SavepointReader.read(
                BootstrapRestoreTest.readerEnv(),
                savepoint.toUri().toString(),
                new HashMapStateBackend())
            .readKeyedState(
                FilterStates.OPERATOR,
                new ChunkCounter(),
                Types.INT,
                TypeInformation.of(Integer.class))
            .executeAndCollect("count chunks")) {
      while (it.hasNext()) {
        total += it.next();
      }
    }
    return total;
  }

  @ParameterizedTest
  @EnumSource(FilterSpec.Kind.class)
  void inspectAndProbeOfLoggedStateAnswerAsForTheSameStateWithoutLogs(FilterSpec.Kind kind)
      throws Exception {
    FilterSpec spec = BootstrapRestoreTest.spec(kind);
    List<UrlRecord> known = TestUrls.urls("known", 4000);
    Path plain = savepoint(known, spec, 1, tmp);
    Path logged = savepoint(known, spec, 4, tmp);
    assertEquals(0, chunks(plain), "N = 1 writes no log");
    assertTrue(
        chunks(logged) >= TestUrls.SHARDS, "N = 4 state between materializations holds log chunks");

    assertEquals(
        BootstrapRestoreTest.dump(plain),
        BootstrapRestoreTest.dump(logged),
        kind + ": headers and pages");

    Map<Integer, ShardReport> a = reports(plain);
    Map<Integer, ShardReport> b = reports(logged);
    assertEquals(a.keySet(), b.keySet());
    for (int shard : a.keySet()) {
      ShardReport x = a.get(shard);
      ShardReport y = b.get(shard);
      String what = kind + " shard " + shard;
      assertArrayEquals(x.header, y.header, what + ": header");
      assertEquals(x.storedPages, y.storedPages, what + ": pages");
      assertArrayEquals(x.setFraction, y.setFraction, what + ": set fraction");
      assertArrayEquals(x.bitEstimate, y.bitEstimate, what + ": bit estimate");
      assertArrayEquals(x.measuredFpr, y.measuredFpr, what + ": measured FPR");
    }

    List<UrlRecord> asked = new ArrayList<>(known);
    asked.addAll(TestUrls.urls("fresh", 4000));
    assertArrayEquals(
        BootstrapRestoreTest.probe(plain, asked),
        BootstrapRestoreTest.probe(logged, asked),
        kind + ": probe answers");
  }

  private static Map<Integer, ShardReport> reports(Path savepoint) throws Exception {
    Map<Integer, ShardReport> out = new TreeMap<>();
    for (ShardReport r :
        FilterStateReader.shards(
            BootstrapRestoreTest.readerEnv(), BootstrapRestoreTest.locate(savepoint))) {
      out.put(r.shard, r);
    }
    return out;
  }
}
