package io.urldedup.stateops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.DedupSettings;
import io.urldedup.operators.UrlRecord;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.stateops.report.StateReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bootstrap writes a real savepoint of the dedup operator holding exactly the state the job's
 * operator leaves after the same URLs: every header and every page equal to those of a {@link
 * DedupOperator} run over the URLs on a real backend (a test harness, the other backend than the
 * one writing the savepoint). A streaming job restored from the savepoint (on that other backend)
 * then emits exactly the reference's decisions for the known URLs plus new ones: none of the known
 * (scalable), all new ones but false positives; forgetting included for stable and aged.
 */
@org.junit.jupiter.api.Timeout(300)
class BootstrapRestoreTest {

  /** 1e-6: over 4,000 first arrivals the expected false positives are below 0.01. */
  private static final FilterSpec SCALABLE = FilterSpec.scalable(1e-6, 200, 2, 0.5, 1L << 20);

  /** 16 KiB per shard of 4-bit cells: 500 inserts per shard make forgetting possible, and exact. */
  private static final FilterSpec STABLE = FilterSpec.stable(0.01, 16 * 1024, 4);

  /**
   * A count window of 150 URLs per shard, 3 generations: 500 per shard turn the ring several times.
   */
  private static final FilterSpec AGED = FilterSpec.agedCount(0.01, 150, 3);

  @TempDir Path tmp;

  /** One cluster for all jobs of the class: a MiniCluster start costs seconds, more under load. */
  @org.junit.jupiter.api.extension.RegisterExtension
  static final org.apache.flink.test.junit5.MiniClusterExtension CLUSTER =
      new org.apache.flink.test.junit5.MiniClusterExtension(
          new org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1)
              .setNumberSlotsPerTaskManager(2)
              .build());

  static FilterSpec spec(FilterSpec.Kind kind) {
    return switch (kind) {
      case STABLE -> STABLE;
      case SCALABLE -> SCALABLE;
      case AGED -> AGED;
    };
  }

  static Configuration conf(String backend, RuntimeExecutionMode mode) {
    Configuration c = new Configuration();
    c.set(ExecutionOptions.RUNTIME_MODE, mode);
    c.set(PipelineOptions.MAX_PARALLELISM, TestUrls.MAX_PARALLELISM);
    c.set(StateBackendOptions.STATE_BACKEND, backend);
    c.setString(
        "state.backend.rocksdb.localdir",
        Path.of(System.getProperty("java.io.tmpdir"), "rocks").toString());
    return c;
  }

  static StateBackend backend(String name) {
    return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
  }

  /**
   * Bootstrap at parallelism 2: the filters in two subtasks (partitioned by shard), two writers.
   */
  static Path bootstrap(List<UrlRecord> records, FilterSpec spec, String backend, Path dir)
      throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(
            conf(backend, RuntimeExecutionMode.BATCH));
    env.setParallelism(2);
    Path out = dir.resolve("savepoint-bootstrap");
    FilterStateWriter.bootstrap(
        env.fromData(records).setParallelism(1),
        spec,
        TestUrls.MAPPING,
        backend(backend),
        TestUrls.MAX_PARALLELISM,
        out.toUri().toString());
    env.execute("bootstrap");
    return out;
  }

  static StreamExecutionEnvironment readerEnv() {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(
            conf("hashmap", RuntimeExecutionMode.BATCH));
    env.setParallelism(2);
    return env;
  }

  static StateLocation locate(Path snapshot) throws Exception {
    return StateLocation.open(StateLocation.find(snapshot).orElseThrow());
  }

  static StateReport inspect(Path savepoint) throws Exception {
    StateLocation at = locate(savepoint);
    return new StateReport(at, 0, FilterStateReader.shards(readerEnv(), at));
  }

  static Map<Integer, ShardDump> dump(Path savepoint) throws Exception {
    Map<Integer, ShardDump> out = new TreeMap<>();
    for (ShardDump d :
        FilterStateReader.read(
            readerEnv(),
            locate(savepoint),
            new ShardDump.Reader(),
            TypeInformation.of(ShardDump.class))) {
      out.put(d.shard, d);
    }
    return out;
  }

  /**
   * The job's operator over {@code records} on {@code backend} in a harness (one subtask, all key
   * groups), flushed as at a checkpoint barrier: every shard's header and pages in its keyed state.
   */
  static Map<Integer, ShardDump> runState(List<UrlRecord> records, FilterSpec spec, String backend)
      throws Exception {
    DedupOperator op =
        new DedupOperator(DedupSettings.of(spec, TestUrls.MAPPING).withCachePages(16));
    try (KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            op, r -> r.shard, Types.INT, TestUrls.MAX_PARALLELISM, 1, 0)) {
      StateBackend b = backend(backend);
      if (b instanceof EmbeddedRocksDBStateBackend rocks) {
        rocks.setDbStoragePath(tmp().toString());
        rocks.getMemoryConfiguration().setUseManagedMemory(false);
      }
      h.setStateBackend(b);
      h.setCheckpointStorage(new JobManagerCheckpointStorage());
      h.open();
      for (UrlRecord r : records) {
        h.processElement(new StreamRecord<>(r));
      }
      h.prepareSnapshotPreBarrier(1);
      KeyedStateBackend<Integer> kb = op.getKeyedStateBackend();
      ValueState<FilterHeader> header =
          kb.getPartitionedState(
              VoidNamespace.INSTANCE,
              VoidNamespaceSerializer.INSTANCE,
              DedupOperator.headerDescriptor());
      MapState<Long, long[]> pages =
          kb.getPartitionedState(
              VoidNamespace.INSTANCE,
              VoidNamespaceSerializer.INSTANCE,
              DedupOperator.pagesDescriptor());
      List<Integer> keys;
      try (Stream<Integer> s = kb.getKeys(DedupOperator.HEADER_STATE, VoidNamespace.INSTANCE)) {
        keys = s.toList();
      }
      Map<Integer, ShardDump> out = new TreeMap<>();
      for (int k : keys) {
        kb.setCurrentKey(k);
        out.put(k, ShardDump.of(k, header.value(), pages.entries()));
      }
      return out;
    }
  }

  private static Path tmp() throws java.io.IOException {
    Path dir = Path.of("/tmp", "ud-so-rocks-" + ProcessHandle.current().pid());
    java.nio.file.Files.createDirectories(dir);
    return dir;
  }

  /** A streaming job restored from {@code savepoint}: the URLs it emits for {@code input}. */
  static List<String> restoreAndRun(
      Path savepoint, List<UrlRecord> input, FilterSpec spec, String backend) throws Exception {
    Configuration c = conf(backend, RuntimeExecutionMode.STREAMING);
    c.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(2);
    List<String> out = new ArrayList<>();
    try (CloseableIterator<UrlRecord> it =
        env.fromData(input)
            .setParallelism(1)
            .keyBy(r -> r.shard, Types.INT)
            .transform(
                "dedup",
                TypeInformation.of(UrlRecord.class),
                new DedupOperator(DedupSettings.of(spec, TestUrls.MAPPING).withCachePages(16)))
            .uid(DedupOperator.UID)
            .executeAndCollect()) {
      it.forEachRemaining(r -> out.add(r.url()));
    }
    return out;
  }

  @ParameterizedTest(name = "{0} written by {1}, run and restored on {2}")
  @CsvSource({
    "SCALABLE, hashmap, rocksdb",
    "SCALABLE, rocksdb, hashmap",
    "STABLE, hashmap, rocksdb",
    "STABLE, rocksdb, hashmap",
    "AGED, hashmap, rocksdb",
    "AGED, rocksdb, hashmap"
  })
  void bootstrapLeavesTheStateOfARunAndARestoreContinuesIt(
      FilterSpec.Kind kind, String writer, String other) throws Exception {
    FilterSpec spec = spec(kind);
    List<UrlRecord> known = TestUrls.urls("known", 4000);
    List<UrlRecord> fresh = TestUrls.urls("fresh", 1000);
    Path sp = bootstrap(known, spec, writer, tmp);

    Map<Integer, ShardDump> run = runState(known, spec, other);
    assertEquals(TestUrls.SHARDS, run.size(), "every shard has state after the run");
    assertEquals(
        run, dump(sp), "bootstrap leaves exactly the headers and pages the operator leaves");

    TestUrls.Reference ref = new TestUrls.Reference(spec);
    ref.feed(known);
    Map<Integer, FilterHeader> stored = new TreeMap<>();
    inspect(sp).shards().forEach(s -> stored.put(s.shard(), s.header()));
    assertEquals(ref.headers(), stored, "inspect reads the headers the filters leave");

    // the restored job sees the known URLs again, then the fresh ones: so does the reference
    List<UrlRecord> input = TestUrls.concat(known, fresh);
    List<String> expected = ref.feed(input);
    List<String> got = restoreAndRun(sp, input, spec, other);
    got.sort(null);
    expected.sort(null);
    assertEquals(expected, got, "restored job emits exactly the reference's decisions");
    if (kind == FilterSpec.Kind.SCALABLE) {
      assertTrue(got.stream().allMatch(u -> u.contains("/fresh/")), "a known URL came out");
      assertEquals(1000, got.size(), "every fresh URL came out (expected false positives < 0.01)");
    }
  }

  static HashMap<Integer, long[]> queries(List<UrlRecord> urls) {
    Map<Integer, List<Long>> by = new HashMap<>();
    for (int i = 0; i < urls.size(); i++) {
      UrlRecord r = urls.get(i);
      List<Long> l = by.computeIfAbsent(r.shard, s -> new ArrayList<>());
      l.add((long) i);
      l.add(r.h1);
      l.add(r.h2);
    }
    HashMap<Integer, long[]> q = new HashMap<>();
    by.forEach((s, l) -> q.put(s, l.stream().mapToLong(Long::longValue).toArray()));
    return q;
  }

  static boolean[] probe(Path savepoint, List<UrlRecord> urls) throws Exception {
    StateLocation at = locate(savepoint);
    boolean[] seen = new boolean[urls.size()];
    for (ProbeAnswer a : FilterStateReader.probe(readerEnv(), at, queries(urls))) {
      if (a.index >= 0) {
        seen[a.index] = a.seen;
      } else {
        assertEquals(TestUrls.FINGERPRINT, a.seedFingerprint, "fingerprint of shard " + a.shard);
      }
    }
    return seen;
  }

  /**
   * Scalable, 1e-2: probe answers seen for every bootstrapped URL (no false negatives), and for
   * 10^5 fresh ones a count within the FPR tolerance: the count is Binomial(10^5, f) with f the
   * state's FPR from its bits (mean over shards of 1 - prod over slices (1 - mean over blocks of
   * (set/512)^k); a fresh URL's shard and block are uniform), so |count - 10^5 f| <= 4 sqrt(10^5 f)
   * + 1 fails with probability < 1e-4. The bits' FPR itself must be within the model's bound.
   */
  @org.junit.jupiter.api.Test
  void probeAnswersSeenForKnownAndTheFprForFresh() throws Exception {
    FilterSpec spec = FilterSpec.scalable(0.01, 500, 2, 0.5, 1L << 20);
    List<UrlRecord> known = TestUrls.urls("known", 4000);
    Path sp = bootstrap(known, spec, "hashmap", tmp);
    boolean[] seen = probe(sp, known);
    for (int i = 0; i < seen.length; i++) {
      assertTrue(seen[i], "bootstrapped URL answered unseen: " + known.get(i).url());
    }
    int n = 100_000;
    List<UrlRecord> fresh = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      fresh.add(TestUrls.record("https://fresh.example/" + i));
    }
    boolean[] f = probe(sp, fresh);
    int count = 0;
    for (boolean b : f) {
      count += b ? 1 : 0;
    }
    double rate = inspect(sp).measuredFpr();
    double mean = n * rate;
    assertTrue(
        Math.abs(count - mean) <= 4 * Math.sqrt(mean) + 1,
        "fresh URLs answered seen: "
            + count
            + ", expected "
            + mean
            + " (FPR from the bits "
            + rate
            + ")");
    assertTrue(rate <= 0.01, "FPR from the bits over --fpr: " + rate);
  }
}
