package io.urldedup.operators;

import io.urldedup.state.ByteSize;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.PageStore;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableHolding;
import org.apache.flink.annotation.VisibleForTesting;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How full and how accurate a subtask's open filters are: the fill, FPR, size and saturation gauges
 * of {@link DedupMetrics}, aggregated over the open shards, and one WARN per shard when a scalable
 * shard saturates (its FPR rises from then on) and one when a shard's estimated FPR passes {@link
 * #FPR_WARN_FACTOR} times the target; and one WARN per subtask when its open filters outgrow the
 * page cache. A Bloom filter's inserts land on random pages, so from then on most records read a
 * page from the state backend: at 10^9 URLs the job fell from hundreds of thousands to 20-30k
 * records/s per core when a scalable chain grew past its cache (docs/scale/README.md).
 *
 * <p>Gauges are recomputed at most every {@link #PERIOD_NANOS}, the clock being read every {@link
 * #CHECK_RECORDS} records and at checkpoints: the stable filter's model estimates cost up to
 * milliseconds per shard (a Markov chain over arrivals), far too much for the record path.
 */
final class FilterHealth {

  private static final Logger LOG = LoggerFactory.getLogger(FilterHealth.class);

  /** A shard whose estimated FPR passes this multiple of the target logs a WARN (once). */
  static final double FPR_WARN_FACTOR = 2;

  private static final int CHECK_RECORDS = 4096;
  private static final long PERIOD_NANOS = 5_000_000_000L;

  private final FilterSpec spec;
  private final ShardTable shards;
  private final PageCache cache;
  private final ShardKeys keys;
  private final DedupMetrics metrics;

  /** {@link #PERIOD_NANOS}; tests that measure the record path alone raise it. */
  @VisibleForTesting long periodNanos = PERIOD_NANOS;

  private long publishedAt = System.nanoTime() - PERIOD_NANOS;
  private int sinceCheck;
  private boolean warnedCache;

  /**
   * The stable filter's holding model, built from the first stable header (all shards share a
   * geometry).
   */
  private StableHolding holding;

  FilterHealth(
      FilterSpec spec, ShardTable shards, PageCache cache, ShardKeys keys, DedupMetrics metrics) {
    this.spec = spec;
    this.shards = shards;
    this.cache = cache;
    this.keys = keys;
    this.metrics = metrics;
  }

  /**
   * After each record: publishes if the period has passed, looking at the clock every {@link
   * #CHECK_RECORDS}.
   */
  void recorded() {
    if (++sinceCheck >= CHECK_RECORDS) {
      maybePublish();
    }
  }

  /** Publishes if the period has passed since the last publication. */
  void maybePublish() {
    sinceCheck = 0;
    long now = System.nanoTime();
    if (now - publishedAt >= periodNanos) {
      publish();
      publishedAt = now;
    }
  }

  /** Aggregates over the open shards; each filter is asked with its own shard selected. */
  void publish() {
    int back = keys.current();
    double fill = 0;
    double maxFpr = 0;
    long bytes = 0;
    long pages = 0;
    int maxSlices = 0;
    double distinct = 0;
    boolean saturated = false;
    int n = 0;
    for (OpenShard s : shards.all()) {
      if (s != null) {
        cache.selectShard(s.shard);
        DedupFilter f = s.filter;
        FilterHeader h = f.header();
        double shardFpr = f.estimatedFpr();
        fill += f.fillRatio();
        maxFpr = Math.max(maxFpr, shardFpr);
        bytes += f.sizeBytes();
        pages += (f.sizeBytes() + PageStore.PAGE_BYTES - 1) / PageStore.PAGE_BYTES;
        maxSlices = Math.max(maxSlices, f.sliceCount());
        distinct += estimatedDistinct(h);
        saturated |= h.saturated();
        warnOnce(s, h, shardFpr);
        n++;
      }
    }
    if (back != ShardKeys.NONE) {
      keys.select(back);
      cache.selectShard(back);
    }
    warnCacheOnce(pages, n);
    metrics.publish(n == 0 ? 0 : fill / n, maxFpr, bytes, maxSlices);
    metrics.publishSaturation(Math.round(distinct), saturated, maxFpr / spec.fpr());
    metrics.publishCache(cache);
  }

  /**
   * Scalable: the URLs it recorded (exact counter); stable: the model's estimate of those it still
   * holds.
   */
  private double estimatedDistinct(FilterHeader h) {
    if (h.kind() != FilterSpec.Kind.STABLE) {
      return h.inserts();
    }
    if (holding == null) {
      holding = new StableHolding(h.stableGeometry());
    }
    return holding.held(h.inserts());
  }

  private void warnCacheOnce(long pages, int openShards) {
    if (pages > cache.capacity() && !warnedCache) {
      warnedCache = true;
      LOG.warn(
          "the {} open filters of this subtask take {}, more than its page cache of {}: most records"
              + " now read a page from the state backend. Raise --cache-memory (auto: {}% of the TaskManager heap"
              + " over its slots) or the heap, or size the filter to fit (stable --memory, scalable --capacity and"
              + " --max-memory)",
          openShards,
          ByteSize.format(pages * PageStore.PAGE_BYTES),
          ByteSize.format((long) cache.capacity() * PageStore.PAGE_BYTES),
          Math.round(PageCacheSizing.HEAP_SHARE * 100));
    }
  }

  private void warnOnce(OpenShard s, FilterHeader h, double shardFpr) {
    if (h.saturated() && !s.warnedSaturated) {
      s.warnedSaturated = true;
      LOG.warn(
          "shard {} saturated: the next slice would exceed --max-memory ({} bytes per shard, {} URLs"
              + " recorded); the shard's false-positive rate rises from here on (now {}, target {})",
          s.shard,
          ((ScalableSpec) h.spec()).maxMemoryBytes(),
          h.inserts(),
          shardFpr,
          spec.fpr());
    }
    if (shardFpr > FPR_WARN_FACTOR * spec.fpr() && !s.warnedFpr) {
      s.warnedFpr = true;
      LOG.warn(
          "shard {}: estimated false-positive rate {} is over {}x the target --fpr {} ({} inserts);"
              + " unseen URLs are being dropped as seen: raise --max-memory (scalable) or --memory (stable)",
          s.shard,
          shardFpr,
          FPR_WARN_FACTOR,
          spec.fpr(),
          h.inserts());
    }
  }
}
