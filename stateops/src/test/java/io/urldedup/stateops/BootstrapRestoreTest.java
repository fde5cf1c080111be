package io.urldedup.stateops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.UrlRecord;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Bootstrap writes a real savepoint of the dedup operator; the reader finds in it exactly the
 * headers the filters leave after the same URLs; a streaming job restored from it (other backend
 * too) emits exactly what the filters emit for the known URLs plus new ones: none of the known,
 * all new ones but false positives. Decisions are compared one for one with the reference (the
 * same filters over heap pages, fed in the same per-shard order), which holds for stable filters
 * too, forgetting included.
 */
@org.junit.jupiter.api.Timeout(300)
class BootstrapRestoreTest {

  /** 1e-6: over 4,000 first arrivals the expected false positives are below 0.01. */
  private static final FilterSpec SCALABLE = FilterSpec.scalable(1e-6, 200, 2, 0.5, 1L << 20);
  /** 16 KiB per shard of 4-bit cells: 500 inserts per shard make forgetting possible, and exact. */
  private static final FilterSpec STABLE = FilterSpec.stable(0.01, 16 * 1024, 4);

  @TempDir
  Path tmp;

  /** One cluster for all jobs of the class: a MiniCluster start costs seconds, more under load. */
  @org.junit.jupiter.api.extension.RegisterExtension
  static final org.apache.flink.test.junit5.MiniClusterExtension CLUSTER =
      new org.apache.flink.test.junit5.MiniClusterExtension(
          new org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration.Builder()
              .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());

  static Configuration conf(String backend, RuntimeExecutionMode mode) {
    Configuration c = new Configuration();
    c.set(ExecutionOptions.RUNTIME_MODE, mode);
    c.set(PipelineOptions.MAX_PARALLELISM, TestUrls.MAX_PARALLELISM);
    c.set(StateBackendOptions.STATE_BACKEND, backend);
    c.setString("state.backend.rocksdb.localdir", Path.of(System.getProperty("java.io.tmpdir"), "rocks").toString());
    return c;
  }

  static StateBackend backend(String name) {
    return name.equals("rocksdb") ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
  }

  static Path bootstrap(List<UrlRecord> records, FilterSpec spec, String backend, Path dir) throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(conf(backend, RuntimeExecutionMode.BATCH));
    env.setParallelism(2);
    Path out = dir.resolve("savepoint-bootstrap");
    FilterStateWriter.bootstrap(env.fromData(records).setParallelism(1),
        new DedupOperator(spec, TestUrls.MAPPING, 16, false), backend(backend), TestUrls.MAX_PARALLELISM,
        out.toUri().toString());
    env.execute("bootstrap");
    return out;
  }

  static StateReport inspect(Path savepoint) throws Exception {
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(conf("hashmap", RuntimeExecutionMode.BATCH));
    env.setParallelism(2);
    StateLocation at = StateLocation.open(StateLocation.find(savepoint).orElseThrow());
    return new StateReport(at, 0, FilterStateReader.shards(env, at));
  }

  /** A streaming job restored from {@code savepoint}: the URLs it emits for {@code input}. */
  static List<String> restoreAndRun(Path savepoint, List<UrlRecord> input, FilterSpec spec, String backend)
      throws Exception {
    Configuration c = conf(backend, RuntimeExecutionMode.STREAMING);
    c.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint.toUri().toString());
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
    env.setParallelism(2);
    List<String> out = new ArrayList<>();
    try (CloseableIterator<UrlRecord> it = env.fromData(input).setParallelism(1)
        .keyBy(r -> r.shard, Types.INT)
        .transform("dedup", TypeInformation.of(UrlRecord.class), new DedupOperator(spec, TestUrls.MAPPING, 16, false))
        .uid(DedupOperator.UID)
        .executeAndCollect()) {
      it.forEachRemaining(r -> out.add(r.url));
    }
    return out;
  }

  @ParameterizedTest(name = "{0} written by {1}, restored on {2}")
  @CsvSource({"SCALABLE, hashmap, rocksdb", "SCALABLE, rocksdb, hashmap", "STABLE, hashmap, rocksdb",
      "STABLE, rocksdb, hashmap"})
  void bootstrappedUrlsAreSeenAfterARestore(FilterSpec.Kind kind, String writer, String restorer) throws Exception {
    FilterSpec spec = kind == FilterSpec.Kind.STABLE ? STABLE : SCALABLE;
    List<UrlRecord> known = TestUrls.urls("known", 4000);
    List<UrlRecord> fresh = TestUrls.urls("fresh", 1000);
    Path sp = bootstrap(known, spec, writer, tmp);

    TestUrls.Reference ref = new TestUrls.Reference(spec);
    ref.feed(known);
    StateReport report = inspect(sp);
    Map<Integer, FilterHeader> stored = new TreeMap<>();
    report.shards().forEach(s -> stored.put(s.shard(), s.header()));
    assertEquals(ref.headers(), stored, "bootstrap leaves exactly the headers the filters leave");

    List<String> expected = ref.feed(fresh);
    List<String> got = restoreAndRun(sp, TestUrls.concat(known, fresh), spec, restorer);
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
    StreamExecutionEnvironment env =
        StreamExecutionEnvironment.getExecutionEnvironment(conf("hashmap", RuntimeExecutionMode.BATCH));
    env.setParallelism(2);
    StateLocation at = StateLocation.open(StateLocation.find(savepoint).orElseThrow());
    boolean[] seen = new boolean[urls.size()];
    for (ProbeAnswer a : FilterStateReader.probe(env, at, queries(urls))) {
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
   * 10^4 fresh ones a fraction within the FPR tolerance: the count is Binomial(10^4, f) with f
   * the state's FPR from its bits, so |count - 10^4 f| <= 4 sqrt(10^4 f) + 1 fails with
   * probability < 1e-4.
   */
  @org.junit.jupiter.api.Test
  void probeAnswersSeenForKnownAndTheFprForFresh() throws Exception {
    FilterSpec spec = FilterSpec.scalable(0.01, 500, 2, 0.5, 1L << 20);
    List<UrlRecord> known = TestUrls.urls("known", 4000);
    Path sp = bootstrap(known, spec, "hashmap", tmp);
    boolean[] seen = probe(sp, known);
    for (int i = 0; i < seen.length; i++) {
      assertTrue(seen[i], "bootstrapped URL answered unseen: " + known.get(i).url);
    }
    List<UrlRecord> fresh = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      fresh.add(TestUrls.record("https://fresh.example/" + i));
    }
    boolean[] f = probe(sp, fresh);
    int count = 0;
    for (boolean b : f) {
      count += b ? 1 : 0;
    }
    double rate = inspect(sp).measuredFpr();
    double mean = 10_000 * rate;
    assertTrue(Math.abs(count - mean) <= 4 * Math.sqrt(mean) + 1,
        "fresh URLs answered seen: " + count + ", expected " + mean + " (FPR from the bits " + rate + ")");
    assertTrue(rate <= 0.01, "FPR from the bits over --fpr: " + rate);
  }
}
