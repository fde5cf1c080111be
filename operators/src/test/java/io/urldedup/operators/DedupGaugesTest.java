package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.Backend;
import static io.urldedup.operators.DedupOperatorTestKit.checkpoint;
import static io.urldedup.operators.DedupOperatorTestKit.feed;
import static io.urldedup.operators.DedupOperatorTestKit.open;
import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.StableHolding;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The saturation gauges (issue 12): {@code estimatedDistinct}, {@code saturated} and {@code
 * fprOverTarget} against what the open filters' headers say, and the one WARN per shard at
 * saturation and at twice the FPR target; the page cache gauges against the cache's behaviour.
 */
class DedupGaugesTest {

  /**
   * Scalable with a 8 KiB cap per shard: 100 URLs fill the first slice, the next slice (200 at half
   * the error) still fits, the one after does not: a shard saturates after about 300 URLs, and
   * overfilling then drives its FPR past 2x the target.
   */
  @Test
  void scalableGaugesFollowTheHeadersAndWarnOncePerShard() throws Exception {
    FilterSpec spec = FilterSpec.scalable(0.01, 100, 2, 0.5, 8 * 1024);
    try (WarningCapture warnings = new WarningCapture(FilterHealth.class)) {
      var h = open(spec, 64, Backend.HASHMAP, null);
      DedupOperator op = (DedupOperator) h.getOperator();
      feed(h, urls("g", 0, 400)); // ~50 per shard: nothing saturated
      op.publishGauges();
      DedupMetrics m = op.metrics();
      assertEquals(
          sumInserts(op.openHeaders()),
          m.estimatedDistinct(),
          "scalable: the exact insert counters");
      assertEquals(0, m.saturated());
      assertEquals(maxFpr(op) / spec.fpr(), m.fprOverTarget(), 1e-12);
      assertTrue(m.fprOverTarget() < 1, "fprOverTarget " + m.fprOverTarget());

      feed(
          h,
          urls(
              "g", 400, 8000)); // ~1000 per shard: every shard saturated and far over its cap's FPR
      op.publishGauges();
      op.publishGauges(); // a second publish warns no more
      Map<Integer, FilterHeader> headers = op.openHeaders();
      assertTrue(
          headers.values().stream().allMatch(FilterHeader::saturated), "all shards saturated");
      assertEquals(sumInserts(headers), m.estimatedDistinct());
      assertEquals(1, m.saturated());
      assertEquals(maxFpr(op) / spec.fpr(), m.fprOverTarget(), 1e-12);
      assertTrue(
          m.fprOverTarget() > FilterHealth.FPR_WARN_FACTOR, "fprOverTarget " + m.fprOverTarget());
      List<String> w = warnings.messages();
      for (int shard : headers.keySet()) {
        assertEquals(
            1,
            w.stream().filter(s -> s.startsWith("shard " + shard + " saturated")).count(),
            w.toString());
        assertEquals(
            1,
            w.stream()
                .filter(s -> s.startsWith("shard " + shard + ": estimated false-positive rate"))
                .count(),
            w.toString());
      }
      h.close();
    }
  }

  /**
   * Stable, 64 KiB (16 pages) per shard behind an 8-page cache: once one shard is open the filters
   * outgrow the cache, and the subtask says so once; with a cache that holds them it says nothing.
   */
  @Test
  void warnsOnceWhenTheOpenFiltersOutgrowTheCache() throws Exception {
    FilterSpec spec = FilterSpec.stable(0.01, 64 * 1024, 2);
    for (int cachePages : new int[] {8, 16 * DedupOperatorTestKit.SHARDS}) {
      try (WarningCapture warnings = new WarningCapture(FilterHealth.class)) {
        var h = open(spec, cachePages, Backend.HASHMAP, null);
        DedupOperator op = (DedupOperator) h.getOperator();
        feed(h, urls("c", 0, 200));
        op.publishGauges();
        op.publishGauges();
        long said =
            warnings.messages().stream()
                .filter(m -> m.contains("more than its page cache"))
                .count();
        assertEquals(cachePages == 8 ? 1 : 0, said, cachePages + " pages: " + warnings.messages());
        h.close();
      }
    }
  }

  /**
   * Stable: estimatedDistinct is the model's estimate of what the shards still hold, never
   * saturated.
   */
  @Test
  void stableEstimatedDistinctIsTheModelsHolding() throws Exception {
    FilterSpec spec = FilterSpec.stable(0.01, 4 * 1024, 2);
    var h = open(spec, 64, Backend.HASHMAP, null);
    DedupOperator op = (DedupOperator) h.getOperator();
    feed(h, urls("s", 0, 20_000));
    op.publishGauges();
    DedupMetrics m = op.metrics();
    Map<Integer, FilterHeader> headers = op.openHeaders();
    double held = 0;
    for (FilterHeader hd : headers.values()) {
      held += new StableHolding(hd.stableGeometry()).held(hd.inserts());
    }
    assertEquals(Math.round(held), m.estimatedDistinct());
    assertTrue(
        m.estimatedDistinct() < sumInserts(headers), "some forgotten: " + m.estimatedDistinct());
    assertEquals(0, m.saturated());
    assertEquals(maxFpr(op) / spec.fpr(), m.fprOverTarget(), 1e-12);
    h.close();
  }

  /**
   * The page cache gauges are the cache's own counters. A cache that holds every page of the filter
   * misses each page at most once (its first touch) and writes nothing back before a checkpoint,
   * whose flush then writes back what is dirty; a cache of 2 pages in front of 8 shards' 4-page
   * filters keeps missing and writes its dirty victims back. On real RocksDB.
   */
  @Test
  void pageCacheGaugesCountMissesAndWriteBacks() throws Exception {
    FilterSpec spec = FilterSpec.stable(0.01, 4 * 4096, 2);
    List<UrlRecord> records = urls("c", 0, 4000);

    var whole = open(spec, 64, Backend.ROCKSDB, null);
    DedupOperator op = (DedupOperator) whole.getOperator();
    feed(whole, records);
    op.publishGauges();
    DedupMetrics m = op.metrics();
    long pages = m.stateBytes() / 4096;
    assertEquals(8 * 4, pages, "8 shards of 4 pages");
    assertTrue(m.cacheMisses() > 0 && m.cacheMisses() <= pages, "misses " + m.cacheMisses());
    assertTrue(
        m.cacheHits() >= records.size() - m.cacheMisses(),
        "at least one page per record: " + m.cacheHits());
    assertEquals(0, m.cacheWriteBacks(), "nothing evicted, no checkpoint yet");
    checkpoint(whole, 1);
    op.publishGauges();
    assertTrue(
        m.cacheWriteBacks() > 0 && m.cacheWriteBacks() <= pages, "flush: " + m.cacheWriteBacks());
    whole.close();

    var small = open(spec, 2, Backend.ROCKSDB, null);
    DedupOperator op2 = (DedupOperator) small.getOperator();
    feed(small, records);
    op2.publishGauges();
    DedupMetrics m2 = op2.metrics();
    assertTrue(m2.cacheMisses() > 10 * pages, "a 2-page cache keeps missing: " + m2.cacheMisses());
    assertTrue(m2.cacheWriteBacks() > pages, "dirty victims written back: " + m2.cacheWriteBacks());
    small.close();
  }

  @AfterAll
  static void deleteRocksDir() throws IOException {
    DedupOperatorTestKit.deleteRocksDir();
  }

  private static long sumInserts(Map<Integer, FilterHeader> headers) {
    return headers.values().stream().mapToLong(FilterHeader::inserts).sum();
  }

  /** The worst open shard's model FPR, from copies of the headers. */
  private static double maxFpr(DedupOperator op) {
    return op.openHeaders().values().stream()
        .mapToDouble(
            hd ->
                io.urldedup.state.Filters.open(hd, new io.urldedup.state.HeapPageStore())
                    .estimatedFpr())
        .max()
        .orElse(0);
  }
}
