package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.MAPPING;
import static io.urldedup.operators.DedupOperatorTestKit.SCALABLE;
import static io.urldedup.operators.DedupOperatorTestKit.STABLE;
import static io.urldedup.operators.DedupOperatorTestKit.assertSameDecisions;
import static io.urldedup.operators.DedupOperatorTestKit.checkpoint;
import static io.urldedup.operators.DedupOperatorTestKit.complete;
import static io.urldedup.operators.DedupOperatorTestKit.concat;
import static io.urldedup.operators.DedupOperatorTestKit.count;
import static io.urldedup.operators.DedupOperatorTestKit.feed;
import static io.urldedup.operators.DedupOperatorTestKit.harness;
import static io.urldedup.operators.DedupOperatorTestKit.open;
import static io.urldedup.operators.DedupOperatorTestKit.record;
import static io.urldedup.operators.DedupOperatorTestKit.startCheckpoint;
import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.operators.DedupOperatorTestKit.Reference;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Parameter;
import io.urldedup.state.StableMath;
import io.urldedup.state.StableSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.api.common.accumulators.Accumulator;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DedupOperatorTest {

  @AfterAll
  static void cleanRocks() throws Exception {
    DedupOperatorTestKit.deleteRocksDir();
  }

  private static FilterSpec spec(FilterSpec.Kind kind) {
    return DedupOperatorTestKit.spec(kind);
  }

  /**
   * 3000 records over 1000 URLs, every 50th record forced. Skewed: a quarter of the records are 50
   * hot URLs, as in crawls (navigation links); uniform: every URL about 3 times.
   */
  private static List<UrlRecord> repeats(String prefix, long seed, boolean skewed) {
    Random rnd = new Random(seed);
    List<UrlRecord> out = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      int u = skewed && rnd.nextInt(4) == 0 ? rnd.nextInt(50) : rnd.nextInt(1000);
      UrlRecord r =
          record("https://host" + (u % 13) + ".example/" + prefix + "/" + u, i % 50 == 49);
      out.add(r);
    }
    return out;
  }

  /**
   * Expected number of decisions that differ from exact set membership: false positives on first
   * occurrences plus, for the stable filter, repeats it has forgotten. E below 0.01 means an exact
   * match is expected (Markov: P(any mismatch) <= E). A stable filter forgets a URL some inserts
   * after it was last emitted (a repeat is a read); the shard's arrivals since then bound those
   * inserts from above, and FN grows with the gap, so E is an upper bound.
   */
  private static double expectedMismatches(FilterSpec spec, List<UrlRecord> records) {
    Map<Integer, Long> arrivals = new HashMap<>();
    Map<String, Long> emittedAt = new HashMap<>();
    double e = 0;
    StableMath.Geometry g = spec instanceof StableSpec s ? s.geometry() : null;
    for (UrlRecord r : records) {
      long n = arrivals.merge(r.shard, 1L, Long::sum) - 1;
      Long last = emittedAt.get(r.url());
      if (last == null) {
        e += g == null ? spec.fpr() : StableMath.fprAfter(g, n);
      } else if (g != null && !r.force) {
        e += StableMath.falseNegative(g, n - last - 1);
      }
      if (last == null || r.force) {
        emittedAt.put(r.url(), n);
      }
    }
    return e;
  }

  @ParameterizedTest
  @EnumSource(FilterSpec.Kind.class)
  void emitsExactlyFirstOccurrencesAndForcedRecords(FilterSpec.Kind kind) throws Exception {
    FilterSpec spec = spec(kind);
    List<UrlRecord> records = repeats("first", 7, false);
    double e = expectedMismatches(spec, records);
    assertTrue(e < 0.01, "test parameters must make a mismatch unlikely, E = " + e);

    List<Boolean> expected = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    int forced = 0;
    for (UrlRecord r : records) {
      expected.add(seen.add(r.url()) || r.force);
      forced += r.force ? 1 : 0;
    }

    var h = open(spec, 64, Backend.HASHMAP, null);
    List<Boolean> got = feed(h, records);
    assertSameDecisions(new Reference(spec).feed(records), got, records, "operator vs filters");
    assertSameDecisions(expected, got, records, "operator vs exact set");

    DedupOperator op = (DedupOperator) h.getOperator();
    DedupMetrics m = op.metrics();
    long emitted = count(got);
    assertEquals(emitted, m.emittedCount());
    assertEquals(records.size() - emitted, m.duplicatesCount());
    assertEquals(forced, m.forcedCount());
    Map<String, Accumulator<?, ?>> acc = h.getEnvironment().getAccumulatorRegistry().getUserMap();
    assertEquals(emitted, acc.get("urldedup.emitted").getLocalValue());
    assertEquals(records.size() - emitted, acc.get("urldedup.duplicates").getLocalValue());
    assertEquals((long) forced, acc.get("urldedup.forced").getLocalValue());

    op.publishGauges(); // the operator does this at most every 5 s
    assertTrue(m.fillRatio() > 0 && m.fillRatio() < 1, "fillRatio " + m.fillRatio());
    assertTrue(
        m.estimatedFpr() > 0 && m.estimatedFpr() <= spec.fpr(), "estimatedFpr " + m.estimatedFpr());
    assertTrue(
        m.stateBytes() >= DedupOperatorTestKit.SHARDS * 4096L, "stateBytes " + m.stateBytes());
    if (kind == FilterSpec.Kind.SCALABLE) {
      // ~1000 URLs over 8 shards: some shard passes its first slice's 100 and grows a second
      assertTrue(m.slices() >= 2, "slices " + m.slices());
    } else if (kind == FilterSpec.Kind.AGED) {
      assertEquals(((AgedSpec) spec).geometry().slices(), m.slices());
    } else {
      assertEquals(1, m.slices());
    }
    h.close();
  }

  @Test
  void forcedRecordIsInsertedSoALaterCopyIsADuplicate() throws Exception {
    var h = open(SCALABLE, 8, Backend.HASHMAP, null);
    UrlRecord a = record("https://example.com/a");
    UrlRecord forcedA = record("https://example.com/a", true);
    UrlRecord b = record("https://example.com/b");
    UrlRecord forcedB = record("https://example.com/b", true);
    assertEquals(
        List.of(true, true, false, true, false, true),
        feed(h, List.of(forcedA, forcedA, a, b, b, forcedB)));
    DedupMetrics m = ((DedupOperator) h.getOperator()).metrics();
    assertEquals(4, m.emittedCount());
    assertEquals(3, m.forcedCount());
    assertEquals(2, m.duplicatesCount());
    h.close();
  }

  /**
   * Bounded input: finish() writes everything back, so the final checkpoint after it is complete.
   */
  @Test
  void finishWritesBackEveryDirtyPage() throws Exception {
    var h = open(STABLE, 4, Backend.HASHMAP, null);
    feed(h, urls("finish", 0, 200));
    DedupOperator op = (DedupOperator) h.getOperator();
    assertTrue(op.cache().hasDirty());
    op.finish();
    assertFalse(op.cache().hasDirty());
    assertEquals(op.openHeaders(), StoredState.headers(op));
    h.close();
  }

  /**
   * Snapshot mid-stream, restore into a fresh operator: it decides the rest exactly as the
   * original.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void restoredOperatorContinuesWithTheSameDecisions(Backend backend) throws Exception {
    for (FilterSpec.Kind kind : FilterSpec.Kind.values()) {
      FilterSpec spec = spec(kind);
      List<UrlRecord> part1 = repeats("restore", 11, true);
      List<UrlRecord> part2 = concat(repeats("restore", 12, true), urls("restore-new", 0, 500));
      var a = open(spec, 32, backend, null);
      feed(a, part1);
      OperatorSubtaskState snapshot = checkpoint(a, 1);
      List<Boolean> afterA = feed(a, part2);
      a.close();

      var b = open(spec, 32, backend, snapshot);
      List<Boolean> afterB = feed(b, part2);
      b.close();

      assertEquals(afterA, afterB, kind + " on " + backend);
      List<Boolean> ref = new Reference(spec).feed(concat(part1, part2));
      assertEquals(ref.subList(part1.size(), ref.size()), afterB, kind + " on " + backend);
      // the replayed half of part2 is mostly recognised: the state really came back
      assertTrue(
          count(afterB) < part2.size() - 1000, kind + " on " + backend + ": " + count(afterB));
    }
  }

  /**
   * The heap backend serializes its snapshot after the synchronous phase, over the objects in its
   * maps. Records processed before the asynchronous part runs must not leak into it: the restored
   * operator must decide those records again exactly as the original did.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void recordsDuringAnAsynchronousSnapshotDoNotLeakIntoIt(Backend backend) throws Exception {
    for (FilterSpec.Kind kind : FilterSpec.Kind.values()) {
      FilterSpec spec = spec(kind);
      List<UrlRecord> part1 = urls("cow", 0, 1500);
      // part2 revisits part1 pages (modifies arrays already in state) and adds new URLs; a
      // 4-page cache makes it evict and re-read constantly while the snapshot is pending
      List<UrlRecord> part2 = concat(urls("cow-new", 0, 1500), urls("cow", 0, 300));
      var a = open(spec, 4, backend, null);
      feed(a, part1);
      OperatorSnapshotFutures pending = startCheckpoint(a, 1);
      var headersAtSnapshot = ((DedupOperator) a.getOperator()).openHeaders();
      List<Boolean> afterA = feed(a, part2);
      a.prepareSnapshotPreBarrier(2); // flushes everything into state objects
      OperatorSubtaskState snapshot = complete(pending);
      a.close();

      var b = open(spec, 4, backend, snapshot);
      assertEquals(
          headersAtSnapshot,
          StoredState.headers((DedupOperator) b.getOperator()),
          kind + " on " + backend);
      List<Boolean> afterB = feed(b, part2);
      b.close();
      assertEquals(afterA, afterB, kind + " on " + backend);
      assertEquals(
          1500, count(afterB.subList(0, 1500)), kind + " on " + backend + ": new URLs emitted");
    }
  }

  /** A cache far smaller than the working set decides exactly as a cache that holds everything. */
  @Test
  void tinyCacheDecidesLikeALargeOneOnRocksDb() throws Exception {
    for (FilterSpec.Kind kind : FilterSpec.Kind.values()) {
      FilterSpec spec = spec(kind);
      List<UrlRecord> part1 = repeats("evict", 21, true);
      List<UrlRecord> part2 = repeats("evict", 22, true);
      List<List<Boolean>> runs = new ArrayList<>();
      for (int pages : new int[] {4, 4096}) {
        var a = open(spec, pages, Backend.ROCKSDB, null);
        List<Boolean> d = new ArrayList<>(feed(a, part1));
        OperatorSubtaskState s = checkpoint(a, 1);
        DedupOperator op = (DedupOperator) a.getOperator();
        if (pages == 4) {
          assertTrue(
              op.cache().writeBacks() > op.cache().capacity(), "evictions wrote back dirty pages");
          assertTrue(op.cache().misses() > 100, "misses " + op.cache().misses());
        }
        a.close();
        var b = open(spec, pages, Backend.ROCKSDB, s);
        d.addAll(feed(b, part2));
        b.close();
        runs.add(d);
      }
      assertEquals(runs.get(1), runs.get(0), kind.toString());
      assertEquals(new Reference(spec).feed(concat(part1, part2)), runs.get(0), kind.toString());
    }
  }

  @Test
  void restoreWithAnotherSeedFailsNamingTheParameter() throws Exception {
    OperatorSubtaskState s = snapshotOf(SCALABLE);
    var h =
        harness(
            SCALABLE,
            DedupOperatorTestKit.decode()
                .hashSeed(DedupOperatorTestKit.SEED + 1)
                .build()
                .urlMapping(),
            8,
            Backend.HASHMAP,
            1,
            0);
    Exception e = assertThrows(Exception.class, () -> h.initializeState(s));
    assertMessage(e, "different hashSeed");
    assertTrue(
        ExceptionUtils.findThrowable(e, SuppressRestartsException.class).isPresent(),
        "a restart cannot help: the job must fail without restarting");
  }

  @Test
  void restoreWithOtherParametersFailsNamingTheParameter() throws Exception {
    OperatorSubtaskState scalable = snapshotOf(SCALABLE);
    FilterSpec otherFpr = FilterSpec.scalable(1e-5, 100, 2, 0.5, 1L << 20);
    var h1 = harness(otherFpr, MAPPING, 8, Backend.HASHMAP, 1, 0);
    assertMessage(
        assertThrows(Exception.class, () -> h1.initializeState(scalable)),
        "fpr 1.0E-6 in state vs 1.0E-5 now");

    // the job's settings say what the refusal calls a parameter: its flags
    var h2 =
        harness(
            new DedupOperator(
                DedupSettings.of(STABLE, MAPPING)
                    .withCachePages(8)
                    .withParameterNames(Map.of(Parameter.KIND, "--filter"))),
            Backend.HASHMAP,
            1,
            0);
    assertMessage(
        assertThrows(Exception.class, () -> h2.initializeState(scalable)),
        "but --filter is stable; restore with --filter scalable");

    OperatorSubtaskState stable = snapshotOf(STABLE);
    var h3 = harness(FilterSpec.stable(0.01, 128 * 1024, 4), MAPPING, 8, Backend.HASHMAP, 1, 0);
    assertMessage(assertThrows(Exception.class, () -> h3.initializeState(stable)), "memoryBytes");
  }

  @Test
  void raisedScalableMemoryCapIsAccepted() throws Exception {
    OperatorSubtaskState s = snapshotOf(SCALABLE);
    FilterSpec raised = FilterSpec.scalable(1e-6, 100, 2, 0.5, 1L << 21);
    var h = open(raised, 8, Backend.HASHMAP, s);
    assertFalse(feed(h, urls("seed", 0, 1)).get(0), "restored state recognises its URLs");
    h.close();
  }

  private static OperatorSubtaskState snapshotOf(FilterSpec spec) throws Exception {
    var h = open(spec, 8, Backend.HASHMAP, null);
    feed(h, urls("seed", 0, 100));
    OperatorSubtaskState s = checkpoint(h, 1);
    h.close();
    return s;
  }

  private static void assertMessage(Throwable e, String flag) {
    assertTrue(
        ExceptionUtils.findThrowableWithMessage(e, flag).isPresent(),
        "expected a message naming " + flag + ", got " + ExceptionUtils.stringifyException(e));
  }
}
