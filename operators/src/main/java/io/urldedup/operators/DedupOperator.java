package io.urldedup.operators;

import io.urldedup.state.AgedSpec;
import io.urldedup.state.ByteSize;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterHeaderSerializer;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.IncompatibleStateException;
import io.urldedup.state.InsertLog;
import io.urldedup.state.InsertLogSerializer;
import io.urldedup.state.PageSerializer;
import io.urldedup.state.PageStore;
import io.urldedup.state.UrlMapping;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed dedup step: after {@code keyBy(r -> r.shard)}, passes on the URLs its shard's filter
 * has not seen and drops the rest. A forced record is inserted and passed on regardless.
 *
 * <p>State per shard (the key): a {@code ValueState<FilterHeader>} and a {@code MapState<Long,
 * long[]>} of 4 KiB filter pages, and with insert logs a {@code MapState<Long, InsertLog>} of log
 * chunks. Records reach pages through one {@link PageCache} per subtask, so on RocksDB a record
 * costs at most one page read (a miss) instead of a whole filter's (de)serialization; the cache and
 * the open headers are written back in {@link #prepareSnapshotPreBarrier} (and {@link #finish} for
 * bounded input), so every snapshot holds exactly the decisions made before its barrier. Rescaling
 * needs nothing more: all state is keyed by shard, and the cache and the open filters are rebuilt
 * lazily after a restore. (The heap backend's own copy-on-write deep-copies a shard's page map the
 * first time it is touched while an asynchronous snapshot is running: for large shards prefer
 * RocksDB.)
 *
 * <p>This class wires the parts, each owning one concern:
 *
 * <ul>
 *   <li>{@link ShardTable} of {@link OpenShard}s: the open filters, opened lazily from state;
 *   <li>{@link ShardCheckpointer}: the keyed state and what each checkpoint writes (pages and
 *       headers, or insert logs with rounds of materialization every N checkpoints);
 *   <li>{@link AgedGenerationDriver}: the aged filter's generations, moved by record time and keyed
 *       timers, event time clamped to the injected {@link WallClock};
 *   <li>{@link FilterHealth}: the fill, FPR and saturation gauges and their WARNs;
 *   <li>{@link RestoredStateCheck}: restored headers against this job's spec and mapping.
 * </ul>
 *
 * <p>Versions: a job with N above 1 declares the header layout {@link
 * FilterHeaderSerializer#LOGGED_LAYOUT_VERSION}, which builds before insert logs refuse (they would
 * restore the bases and drop the logs); N = 1 writes exactly the layout of those builds. A job with
 * N = 1 restores logged state too (it replays and materializes it at its next checkpoint). A
 * restored header that does not fit fails the job without restarts, with the {@link
 * IncompatibleStateException} message naming the flag.
 *
 * <p>Operator uid and the state names below are part of the savepoint format.
 */
public final class DedupOperator extends AbstractStreamOperator<UrlRecord>
    implements OneInputStreamOperator<UrlRecord, UrlRecord>, Triggerable<Integer, VoidNamespace> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DedupOperator.class);

  /** The operator's uid in the job graph: savepoints map state onto the operator by it. */
  public static final String UID = "dedup";

  /** Persisted state names: changing them orphans existing checkpoints. */
  public static final String HEADER_STATE = "urldedup-filter-header";

  public static final String PAGES_STATE = "urldedup-filter-pages";
  public static final String LOG_STATE = "urldedup-filter-log";
  static final String GENERATION_TIMERS = "urldedup-aged-generations";

  /**
   * The header state as persisted (name and serializer): readers and writers of savepoints use it
   * too.
   */
  public static ValueStateDescriptor<FilterHeader> headerDescriptor() {
    return new ValueStateDescriptor<>(HEADER_STATE, new FilterHeaderSerializer());
  }

  /**
   * The pages state as persisted (name and serializers): readers and writers of savepoints use it
   * too.
   */
  public static MapStateDescriptor<Long, long[]> pagesDescriptor() {
    return new MapStateDescriptor<>(PAGES_STATE, LongSerializer.INSTANCE, new PageSerializer());
  }

  /** The insert log state as persisted: chunk key to chunk, under the shard's key. */
  public static MapStateDescriptor<Long, InsertLog> logDescriptor() {
    return new MapStateDescriptor<>(
        LOG_STATE, LongSerializer.INSTANCE, InsertLogSerializer.INSTANCE);
  }

  /** {@code cachePages} value: size the page cache from the filter and the heap at open. */
  public static final int AUTO_CACHE = 0;

  private final DedupSettings settings;

  // the settings' parts the operator reads at every open
  private final FilterSpec spec;
  private final UrlMapping mapping;

  /** The machine's clock, for the aged driver's limit on event time. */
  private final WallClock wallClock;

  private transient RestoredStateCheck restoredCheck;
  private transient ShardCheckpointer checkpointer;
  private transient PageCache cache;
  private transient ShardTable shards;
  private transient ShardKeys keys;
  private transient DedupMetrics metrics;
  private transient FilterHealth health;

  /** Aged filters only; null otherwise. */
  private transient AgedGenerationDriver aged;

  public DedupOperator(DedupSettings settings) {
    this(settings, WallClock.SYSTEM);
  }

  /**
   * @param wallClock the machine's clock as the aged filter reads it (tests move it by hand)
   */
  @VisibleForTesting
  DedupOperator(DedupSettings settings, WallClock wallClock) {
    if (settings == null || wallClock == null) {
      throw new IllegalArgumentException("dedup settings and a wall clock are required");
    }
    this.settings = settings;
    this.spec = settings.spec();
    this.mapping = settings.mapping();
    this.wallClock = wallClock;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    Object keySerializer =
        getKeyedStateBackend() == null ? null : getKeyedStateBackend().getKeySerializer();
    if (!(keySerializer instanceof IntSerializer)) {
      throw new IllegalStateException(
          "DedupOperator runs on a stream keyed by the Integer shard: keyBy(r -> r.shard)");
    }
    checkpointer =
        new ShardCheckpointer(
            context.getKeyedStateStore(),
            getKeyedStateBackend(),
            context.isRestored(),
            spec,
            settings);
    restoredCheck =
        new RestoredStateCheck(
            spec, mapping, settings.allowCanonicalizationChange(), settings.parameterNames());
    if (context.isRestored()) {
      restoredCheck.checkAll(getKeyedStateBackend(), checkpointer.headerDescriptor());
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    shards = new ShardTable();
    keys = new ShardKeys(this);
    metrics = new DedupMetrics(getMetricGroup(), getRuntimeContext());
    cache = checkpointer.open(resolveCachePages(), shards, keys, metrics);
    health = new FilterHealth(spec, shards, cache, keys, metrics);
    if (spec instanceof AgedSpec agedSpec) {
      aged =
          new AgedGenerationDriver(
              agedSpec,
              mapping.shards(),
              settings.time(),
              wallClock,
              settings.time() == null
                  ? null
                  : getInternalTimerService(
                      GENERATION_TIMERS, VoidNamespaceSerializer.INSTANCE, this),
              getProcessingTimeService()::getCurrentProcessingTime,
              metrics);
    }
  }

  private int resolveCachePages() {
    if (settings.cachePages() != AUTO_CACHE) {
      return settings.cachePages();
    }
    TaskInfo t = getRuntimeContext().getTaskInfo();
    int here =
        PageCacheSizing.shardsIn(
            KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
                t.getMaxNumberOfParallelSubtasks(),
                t.getNumberOfParallelSubtasks(),
                t.getIndexOfThisSubtask()),
            mapping.shards(),
            t.getMaxNumberOfParallelSubtasks());
    int slots =
        getContainingTask()
            .getEnvironment()
            .getTaskManagerInfo()
            .getConfiguration()
            .get(TaskManagerOptions.NUM_TASK_SLOTS);
    long heap = Runtime.getRuntime().maxMemory();
    int pages = PageCacheSizing.pages(spec, here, heap, slots);
    LOG.info(
        "page cache: {} pages ({}) for {} shards' filters of up to {} each; budget {}"
            + " ({} of the {} heap over {} slots)",
        pages,
        ByteSize.format((long) pages * PageStore.PAGE_BYTES),
        here,
        ByteSize.format(PageCacheSizing.filterPages(spec) * PageStore.PAGE_BYTES),
        ByteSize.format(PageCacheSizing.budgetPages(heap, slots) * PageStore.PAGE_BYTES),
        PageCacheSizing.HEAP_SHARE,
        ByteSize.format(heap),
        slots);
    return pages;
  }

  @Override
  public void processElement(StreamRecord<UrlRecord> element) throws Exception {
    UrlRecord r = element.getValue();
    OpenShard s = enter((Integer) getCurrentKey());
    s.changed = true;
    if (s.aged != null) {
      aged.beforeRecord(s, element);
    }
    if (!DedupDecision.emits(s.filter, r.h1, r.h2, r.force)) {
      metrics.duplicate();
    } else {
      if (r.force) {
        metrics.forced();
      } else {
        metrics.emitted();
      }
      output.collect(element);
    }
    if (s.aged != null) {
      aged.afterRecord(s);
    }
    checkpointer.recorded(s);
    health.recorded();
  }

  @Override
  public void onEventTime(InternalTimer<Integer, VoidNamespace> timer) throws Exception {
    onBoundary(timer);
  }

  @Override
  public void onProcessingTime(InternalTimer<Integer, VoidNamespace> timer) throws Exception {
    onBoundary(timer);
  }

  /** A generation boundary of the timer's shard (the key context is the timer's key). */
  private void onBoundary(InternalTimer<Integer, VoidNamespace> timer) throws Exception {
    int shard = timer.getKey();
    OpenShard s = enter(shard);
    if (s.aged != null) {
      aged.onBoundary(s, timer.getTimestamp());
    }
    checkpointer.timerFired(shard);
  }

  /**
   * The runtime selected {@code shard} (a record or a timer): its open filter, opened now if it is
   * not yet.
   */
  private OpenShard enter(int shard) throws Exception {
    keys.entered(shard);
    cache.selectShard(shard);
    OpenShard s = shards.get(shard);
    return s != null ? s : openShard(shard);
  }

  /**
   * Opens the current shard's filter from its stored header (checked), or a new one; replays its
   * logs.
   */
  private OpenShard openShard(int shard) throws Exception {
    FilterHeader h = checkpointer.storedHeader();
    DedupFilter filter;
    if (h == null) {
      filter = DedupDecision.newShard(spec, mapping, cache);
    } else {
      restoredCheck.check(h, shard);
      h.adopt(spec, mapping);
      filter = Filters.open(h, cache);
    }
    OpenShard s = new OpenShard(shard, filter);
    s.hasBase = h != null;
    shards.put(s);
    checkpointer.opened(s);
    if (s.aged != null) {
      aged.opened(s);
    }
    return s;
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    checkpoint(checkpointId);
  }

  /**
   * The runtime calls {@link #prepareSnapshotPreBarrier} first, which already wrote; this second
   * call writes nothing then, and covers callers that snapshot without it (test harnesses, the
   * State Processor API).
   */
  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    checkpoint(context.getCheckpointId());
    super.snapshotState(context);
  }

  private void checkpoint(long checkpointId) throws Exception {
    checkpointer.checkpoint(checkpointId);
    if (health != null) {
      health.maybePublish();
    }
  }

  /** The end of bounded input: everything materialized (the final state needs no replay). */
  @Override
  public void finish() throws Exception {
    checkpointer.flush();
    if (health != null) {
      health.maybePublish();
    }
    super.finish();
  }

  @Override
  public void close() throws Exception {
    if (checkpointer != null) {
      // before the backend is disposed: a compaction must not outlive the database it reads
      checkpointer.close();
    }
    if (cache != null) {
      cache.clear();
    }
    super.close();
  }

  @VisibleForTesting
  void publishGauges() {
    health.publish();
  }

  /** Copies of the open filters' headers (not the stored, possibly older, ones). */
  @VisibleForTesting
  Map<Integer, FilterHeader> openHeaders() {
    Map<Integer, FilterHeader> out = new TreeMap<>();
    for (OpenShard s : shards.all()) {
      if (s != null) {
        out.put(s.shard, s.filter.header().copy());
      }
    }
    return out;
  }

  /** The header state as this operator registered it (its serializer). */
  @VisibleForTesting
  ValueStateDescriptor<FilterHeader> registeredHeaderDescriptor() {
    return checkpointer.headerDescriptor();
  }

  @VisibleForTesting
  boolean hasLogState() {
    return checkpointer.hasLogState();
  }

  @VisibleForTesting
  ShardCheckpointer checkpointer() {
    return checkpointer;
  }

  @VisibleForTesting
  FilterHealth health() {
    return health;
  }

  @VisibleForTesting
  DedupMetrics metrics() {
    return metrics;
  }

  @VisibleForTesting
  PageCache cache() {
    return cache;
  }

  @Override
  public String toString() {
    return "DedupOperator{"
        + spec.kind()
        + ", shards="
        + mapping.shards()
        + ", cachePages="
        + (settings.cachePages() == AUTO_CACHE ? "auto" : settings.cachePages())
        + ", materializeEvery="
        + settings.materializeEvery()
        + "}";
  }
}
