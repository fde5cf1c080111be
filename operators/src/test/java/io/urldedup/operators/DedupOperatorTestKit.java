package io.urldedup.operators;

import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.UrlHasher;
import io.urldedup.state.UrlMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.checkpoint.CheckpointType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.CheckpointStorageLocationReference;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.runtime.state.storage.JobManagerCheckpointStorage;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFinalizer;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;

/** Records, harnesses, backends and a reference model shared by the dedup operator tests. */
final class DedupOperatorTestKit {

  static final long SEED = 0x5EED_1234_ABCD_0001L;
  static final UrlHasher HASHER = new UrlHasher(SEED);
  static final int SHARDS = 8;

  /**
   * Seed, {@link #SHARDS} and the default canonicalization, as a job with these flags records them.
   */
  static final UrlMapping MAPPING = decode().build().urlMapping();

  static final long FINGERPRINT = HASHER.seedFingerprint();
  static final int MAX_PARALLELISM = 128;

  /**
   * Scalable: first slice 100 URLs per shard at 1e-6 * (1 - 0.5), so a shard of a few hundred URLs
   * grows a second slice; the compound false-positive bound 1e-6 makes the expected number of false
   * positives over a few thousand first occurrences below 1e-2.
   */
  static final FilterSpec SCALABLE = FilterSpec.scalable(1e-6, 100, 2, 0.5, 1L << 20);

  /**
   * Stable: 64 KiB of 4-bit cells per shard (131072 cells); a test's few hundred URLs per shard
   * keep it far from its stable point, so false positives and decay-forgotten URLs are both
   * expected below 1e-2 per test (see DedupOperatorTest for the numbers).
   */
  static final FilterSpec STABLE = FilterSpec.stable(0.01, 64 * 1024, 4);

  /**
   * Aged, count window: 20,000 new URLs per shard in 10 generations at 1e-6, far more than a test
   * sends, so inside these tests it forgets nothing and its false positives are as rare as the
   * scalable filter's.
   */
  static final FilterSpec AGED = FilterSpec.agedCount(1e-6, 20_000, 10);

  /** The kit's filter of each kind. */
  static FilterSpec spec(FilterSpec.Kind kind) {
    return switch (kind) {
      case STABLE -> STABLE;
      case SCALABLE -> SCALABLE;
      case AGED -> AGED;
    };
  }

  enum Backend {
    HASHMAP,
    ROCKSDB
  }

  private DedupOperatorTestKit() {}

  /**
   * The decode settings behind {@link #MAPPING}; tests change one setting to get another mapping.
   */
  static DecodeConfig.Builder decode() {
    return DecodeConfig.builder().hashSeed(SEED).shards(SHARDS);
  }

  static UrlRecord record(String url, boolean force) {
    return record(url, force, SHARDS);
  }

  static UrlRecord record(String url, boolean force, int shards) {
    byte[] bytes = url.getBytes(StandardCharsets.UTF_8);
    long[] h = new long[2];
    HASHER.hash(bytes, 0, bytes.length, h);
    return new UrlRecord(
        url,
        bytes,
        null,
        RecordHeaders.EMPTY,
        h[0],
        h[1],
        UrlHasher.shard(h[0], h[1], shards),
        force);
  }

  static UrlRecord record(String url) {
    return record(url, false);
  }

  static List<UrlRecord> urls(String prefix, int from, int to) {
    return urls(prefix, from, to, SHARDS);
  }

  static List<UrlRecord> urls(String prefix, int from, int to, int shards) {
    List<UrlRecord> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add(record("https://host" + (i % 17) + ".example/" + prefix + "/" + i, false, shards));
    }
    return out;
  }

  static KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> harness(
      FilterSpec spec,
      UrlMapping mapping,
      int cachePages,
      Backend backend,
      int parallelism,
      int subtask)
      throws Exception {
    return harness(
        new DedupOperator(DedupSettings.of(spec, mapping).withCachePages(cachePages)),
        backend,
        parallelism,
        subtask);
  }

  static KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> harness(
      DedupOperator operator, Backend backend, int parallelism, int subtask) throws Exception {
    KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h =
        new KeyedOneInputStreamOperatorTestHarness<>(
            operator, r -> r.shard, Types.INT, MAX_PARALLELISM, parallelism, subtask);
    h.setStateBackend(stateBackend(backend));
    h.setCheckpointStorage(new JobManagerCheckpointStorage(64 << 20));
    return h;
  }

  static KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> open(
      FilterSpec spec, int cachePages, Backend backend, OperatorSubtaskState restore)
      throws Exception {
    return open(
        new DedupOperator(DedupSettings.of(spec, MAPPING).withCachePages(cachePages)),
        backend,
        restore);
  }

  static KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> open(
      DedupOperator operator, Backend backend, OperatorSubtaskState restore) throws Exception {
    KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h =
        harness(operator, backend, 1, 0);
    h.initializeState(restore);
    h.open();
    return h;
  }

  static StateBackend stateBackend(Backend backend) {
    if (backend == Backend.HASHMAP) {
      return new HashMapStateBackend();
    }
    EmbeddedRocksDBStateBackend rocks = new EmbeddedRocksDBStateBackend(true);
    rocks.setDbStoragePath(rocksDir().toString());
    // the harness grants 3 MB of managed memory, which makes RocksDB flush its memtable constantly
    rocks.getMemoryConfiguration().setUseManagedMemory(false);
    return rocks;
  }

  /** Short, per-JVM: RocksDB paths must stay within the Unix socket/path limits of its files. */
  static Path rocksDir() {
    Path dir = Paths.get("/tmp", "ud-rocks-" + ProcessHandle.current().pid());
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  static void deleteRocksDir() throws IOException {
    Path dir = Paths.get("/tmp", "ud-rocks-" + ProcessHandle.current().pid());
    if (Files.exists(dir)) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** Feeds the records, one decision per record: true if it was passed on. */
  static List<Boolean> feed(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h,
      List<UrlRecord> records)
      throws Exception {
    List<Boolean> decisions = new ArrayList<>(records.size());
    for (UrlRecord r : records) {
      decisions.add(process(h, r));
    }
    return decisions;
  }

  /**
   * Processes one record and answers whether it was passed on, draining the output (the output
   * queue's size() is linear, which made long feeds quadratic).
   */
  static boolean process(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h, UrlRecord r)
      throws Exception {
    h.processElement(new StreamRecord<>(r));
    boolean emitted = false;
    Object o;
    while ((o = h.getOutput().poll()) != null) {
      if (!(o instanceof StreamRecord)) {
        throw new AssertionError("unexpected output " + o);
      }
      if (emitted
          || ((StreamRecord<?>) o).getValue() != r && !r.equals(((StreamRecord<?>) o).getValue())) {
        throw new AssertionError("expected at most the input record, got " + o);
      }
      emitted = true;
    }
    return emitted;
  }

  /** A checkpoint as the runtime takes it: pre-barrier flush, then the snapshot. */
  static OperatorSubtaskState checkpoint(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h, long id)
      throws Exception {
    h.prepareSnapshotPreBarrier(id);
    return h.snapshot(id, id);
  }

  /**
   * The synchronous part of a checkpoint only; the caller runs {@link #complete} later, so records
   * processed in between race the asynchronous part exactly as on a task thread.
   */
  static OperatorSnapshotFutures startCheckpoint(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h, long id)
      throws Exception {
    h.prepareSnapshotPreBarrier(id);
    CheckpointStorageLocationReference ref = CheckpointStorageLocationReference.getDefault();
    return h.getOperator()
        .snapshotState(
            id,
            id,
            new CheckpointOptions(CheckpointType.CHECKPOINT, ref),
            new JobManagerCheckpointStorage(64 << 20)
                .createCheckpointStorage(new org.apache.flink.api.common.JobID())
                .resolveCheckpointStorageLocation(id, ref));
  }

  static OperatorSubtaskState complete(OperatorSnapshotFutures futures) throws Exception {
    return OperatorSnapshotFinalizer.create(futures).getJobManagerOwnedState();
  }

  /**
   * The same decisions made by the filters directly over heap pages: what the operator must match.
   */
  static final class Reference {
    private final FilterSpec spec;
    private final UrlMapping mapping;
    private final Map<Integer, DedupFilter> filters = new HashMap<>();

    Reference(FilterSpec spec) {
      this(spec, MAPPING);
    }

    Reference(FilterSpec spec, UrlMapping mapping) {
      this.spec = spec;
      this.mapping = mapping;
    }

    List<Boolean> feed(List<UrlRecord> records) {
      List<Boolean> decisions = new ArrayList<>(records.size());
      for (UrlRecord r : records) {
        DedupFilter f =
            filters.computeIfAbsent(
                r.shard, s -> Filters.open(spec.newHeader(mapping), new HeapPageStore()));
        if (r.force) {
          f.add(r.h1, r.h2);
          decisions.add(true);
        } else {
          decisions.add(!f.testAndAdd(r.h1, r.h2));
        }
      }
      return decisions;
    }

    /** Copies of the headers by shard. */
    Map<Integer, io.urldedup.state.FilterHeader> headers() {
      Map<Integer, io.urldedup.state.FilterHeader> out = new TreeMap<>();
      filters.forEach((shard, f) -> out.put(shard, f.header().copy()));
      return out;
    }
  }

  /** Equal decision lists, or a failure naming the count and the first few differing records. */
  static void assertSameDecisions(
      List<Boolean> expected, List<Boolean> actual, List<UrlRecord> records, String what) {
    org.junit.jupiter.api.Assertions.assertEquals(
        expected.size(), actual.size(), what + ": decision count");
    StringBuilder diff = new StringBuilder();
    int n = 0;
    for (int i = 0; i < expected.size(); i++) {
      if (!expected.get(i).equals(actual.get(i))) {
        if (++n <= 5) {
          diff.append("\n  #")
              .append(i)
              .append(' ')
              .append(records.get(i))
              .append(" expected ")
              .append(expected.get(i) ? "emit" : "drop");
        }
      }
    }
    if (n > 0) {
      org.junit.jupiter.api.Assertions.fail(
          what + ": " + n + " of " + expected.size() + " decisions differ" + diff);
    }
  }

  static int count(List<Boolean> decisions) {
    int n = 0;
    for (boolean b : decisions) {
      if (b) {
        n++;
      }
    }
    return n;
  }

  static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }
}
