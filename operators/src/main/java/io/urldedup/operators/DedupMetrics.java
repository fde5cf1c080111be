package io.urldedup.operators;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * The dedup operator's metrics, in group {@value #GROUP} under the operator metric group, and the
 * identically named {@link LongCounter} accumulators {@code urldedup.<name>} that the embedded mode
 * prints as its summary.
 *
 * <p>Gauges are read by the metric reporter's thread while the task thread inserts, and the filters
 * are not thread-safe, so the gauges never touch a filter: the task thread publishes aggregate
 * values with {@link #publish} (volatile writes) and the gauges read those. Over the shards the
 * subtask has opened since it started: {@code fillRatio} is the mean, {@code estimatedFpr} the
 * maximum (the worst shard is what a user must know about), {@code stateBytes} the sum of page
 * bytes addressed, {@code slices} the maximum (the longest scalable chain, which bounds the probes
 * of a lookup; 1 for stable filters); the saturation gauges are described at {@link
 * #publishSaturation}.
 */
public final class DedupMetrics {

  public static final String GROUP = "urldedup";
  public static final String EMITTED = "emitted";
  public static final String DUPLICATES = "duplicates";
  public static final String FORCED = "forced";
  public static final String FILL_RATIO = "fillRatio";
  public static final String ESTIMATED_FPR = "estimatedFpr";
  public static final String STATE_BYTES = "stateBytes";
  public static final String SLICES = "slices";
  public static final String ESTIMATED_DISTINCT = "estimatedDistinct";
  public static final String SATURATED = "saturated";
  public static final String FPR_OVER_TARGET = "fprOverTarget";

  /**
   * Aged filters: generations that reached their planned size before their time (rate above
   * --rate).
   */
  public static final String GENERATIONS_ADVANCED_EARLY = "generationsAdvancedEarly";

  /**
   * Aged filters, event time: records whose timestamp was more than --max-out-of-orderness and a
   * generation ahead of the machine's clock, so their shard moved only to one generation past it.
   */
  public static final String TIMESTAMPS_CLAMPED = "timestampsClamped";

  /**
   * The subtask's page cache (one for all its shards), counted since it was opened: a miss loads a
   * 4 KiB page from keyed state (a RocksDB read on that backend), a write-back stores a dirty one
   * (on eviction or at a checkpoint). A miss rate that stays high after warm-up means the cache
   * holds less than the filter: raise {@code --cache-memory}.
   */
  public static final String PAGE_CACHE_HITS = "pageCacheHits";

  public static final String PAGE_CACHE_MISSES = "pageCacheMisses";
  public static final String PAGE_CACHE_WRITE_BACKS = "pageCacheWriteBacks";

  /**
   * Insert logs ({@code --materialize-every} above 1): shards whose pages and header were written
   * and whose log was dropped; bytes of log chunks written to state; logged operations redone on
   * restore (or rescale) to rebuild shards from their last materialized pages.
   */
  public static final String SHARDS_MATERIALIZED = "shardsMaterialized";

  public static final String LOG_BYTES_WRITTEN = "logBytesWritten";
  public static final String LOG_OPERATIONS_REPLAYED = "logOperationsReplayed";

  /** Accumulator names are the metric names with this prefix. */
  public static final String ACCUMULATOR_PREFIX = GROUP + ".";

  private final Counter emitted;
  private final Counter duplicates;
  private final Counter forced;
  private final Counter advancedEarly;
  private final Counter clamped;
  private final Counter materialized;
  private final Counter logBytes;
  private final Counter replayed;
  private final LongCounter emittedTotal;
  private final LongCounter duplicatesTotal;
  private final LongCounter forcedTotal;

  private volatile double fillRatio;
  private volatile double estimatedFpr;
  private volatile long stateBytes;
  private volatile int slices;
  private volatile long estimatedDistinct;
  private volatile int saturated;
  private volatile double fprOverTarget;
  private volatile long cacheHits;
  private volatile long cacheMisses;
  private volatile long cacheWriteBacks;

  DedupMetrics(MetricGroup operatorGroup, RuntimeContext context) {
    MetricGroup g = operatorGroup.addGroup(GROUP);
    emitted = g.counter(EMITTED);
    duplicates = g.counter(DUPLICATES);
    forced = g.counter(FORCED);
    advancedEarly = g.counter(GENERATIONS_ADVANCED_EARLY);
    clamped = g.counter(TIMESTAMPS_CLAMPED);
    materialized = g.counter(SHARDS_MATERIALIZED);
    logBytes = g.counter(LOG_BYTES_WRITTEN);
    replayed = g.counter(LOG_OPERATIONS_REPLAYED);
    g.gauge(FILL_RATIO, (Gauge<Double>) () -> fillRatio);
    g.gauge(ESTIMATED_FPR, (Gauge<Double>) () -> estimatedFpr);
    g.gauge(STATE_BYTES, (Gauge<Long>) () -> stateBytes);
    g.gauge(SLICES, (Gauge<Integer>) () -> slices);
    g.gauge(ESTIMATED_DISTINCT, (Gauge<Long>) () -> estimatedDistinct);
    g.gauge(SATURATED, (Gauge<Integer>) () -> saturated);
    g.gauge(FPR_OVER_TARGET, (Gauge<Double>) () -> fprOverTarget);
    g.gauge(PAGE_CACHE_HITS, (Gauge<Long>) () -> cacheHits);
    g.gauge(PAGE_CACHE_MISSES, (Gauge<Long>) () -> cacheMisses);
    g.gauge(PAGE_CACHE_WRITE_BACKS, (Gauge<Long>) () -> cacheWriteBacks);
    // get-or-add: the State Processor API's bootstrap task opens a second instance of the operator
    // in the same task, and accumulators are per task
    emittedTotal = context.getLongCounter(ACCUMULATOR_PREFIX + EMITTED);
    duplicatesTotal = context.getLongCounter(ACCUMULATOR_PREFIX + DUPLICATES);
    forcedTotal = context.getLongCounter(ACCUMULATOR_PREFIX + FORCED);
  }

  /** An unseen URL passed on. */
  void emitted() {
    emitted.inc();
    emittedTotal.add(1L);
  }

  /** A forced URL: passed on whether seen or not, counted as emitted too. */
  void forced() {
    forced.inc();
    forcedTotal.add(1L);
    emitted();
  }

  /** An aged filter's generation advanced before its time. */
  void generationAdvancedEarly() {
    advancedEarly.inc();
  }

  long generationsAdvancedEarly() {
    return advancedEarly.getCount();
  }

  /** An aged filter's record moved its shard's clock less far than its timestamp said. */
  void timestampClamped() {
    clamped.inc();
  }

  long timestampsClamped() {
    return clamped.getCount();
  }

  void shardMaterialized() {
    materialized.inc();
  }

  long shardsMaterialized() {
    return materialized.getCount();
  }

  void logWritten(long bytes) {
    logBytes.inc(bytes);
  }

  long logBytesWritten() {
    return logBytes.getCount();
  }

  void logReplayed(long operations) {
    replayed.inc(operations);
  }

  long logOperationsReplayed() {
    return replayed.getCount();
  }

  void duplicate() {
    duplicates.inc();
    duplicatesTotal.add(1L);
  }

  /** Task thread: new aggregate gauge values. */
  void publish(double fillRatio, double estimatedFpr, long stateBytes, int slices) {
    this.fillRatio = fillRatio;
    this.estimatedFpr = estimatedFpr;
    this.stateBytes = stateBytes;
    this.slices = slices;
  }

  /**
   * Task thread: the saturation gauges. {@code estimatedDistinct} is summed over the open shards
   * (scalable: URLs recorded; stable: the model's estimate of those still held), {@code saturated}
   * is 1 if any open scalable shard hit its memory cap, {@code fprOverTarget} is the worst shard's
   * estimated FPR over {@code --fpr} (above 1: unseen URLs dropped more often than promised).
   */
  void publishSaturation(long estimatedDistinct, boolean saturated, double fprOverTarget) {
    this.estimatedDistinct = estimatedDistinct;
    this.saturated = saturated ? 1 : 0;
    this.fprOverTarget = fprOverTarget;
  }

  /** Task thread: the page cache's counters, read from the cache (not thread-safe) here. */
  void publishCache(PageCache cache) {
    this.cacheHits = cache.hits();
    this.cacheMisses = cache.misses();
    this.cacheWriteBacks = cache.writeBacks();
  }

  long estimatedDistinct() {
    return estimatedDistinct;
  }

  long cacheHits() {
    return cacheHits;
  }

  long cacheMisses() {
    return cacheMisses;
  }

  long cacheWriteBacks() {
    return cacheWriteBacks;
  }

  int saturated() {
    return saturated;
  }

  double fprOverTarget() {
    return fprOverTarget;
  }

  long emittedCount() {
    return emitted.getCount();
  }

  long duplicatesCount() {
    return duplicates.getCount();
  }

  long forcedCount() {
    return forced.getCount();
  }

  double fillRatio() {
    return fillRatio;
  }

  double estimatedFpr() {
    return estimatedFpr;
  }

  long stateBytes() {
    return stateBytes;
  }

  int slices() {
    return slices;
  }
}
