package io.urldedup.operators;

import io.urldedup.state.AgedBloomFilter;
import io.urldedup.state.AgedClock;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterHeaderSerializer;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.IncompatibleStateException;
import io.urldedup.state.InsertLog;
import io.urldedup.state.InsertLogSerializer;
import io.urldedup.state.PageSerializer;
import io.urldedup.state.StableHolding;
import io.urldedup.state.PageStore;
import io.urldedup.state.UrlMapping;
import java.util.List;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.IntSerializer;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.api.common.TaskInfo;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.KeyGroupRangeAssignment;
import org.apache.flink.runtime.state.StateInitializationContext;
import org.apache.flink.runtime.state.StateSnapshotContext;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.apache.flink.streaming.api.operators.InternalTimer;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.api.operators.Triggerable;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed dedup step: after {@code keyBy(r -> r.shard)}, passes on the URLs its shard's filter
 * has not seen and drops the rest. A forced record is inserted and passed on regardless.
 *
 * <p>State per shard (the key): a {@code ValueState<FilterHeader>} and a {@code MapState<Long,
 * long[]>} of 4 KiB filter pages. Records reach pages through one {@link PageCache} per subtask,
 * so on RocksDB a record costs at most one page read (a miss) instead of a whole filter's
 * (de)serialization; the cache and the open headers are written back in {@link
 * #prepareSnapshotPreBarrier} (and {@link #finish} for bounded input), so every snapshot holds
 * exactly the decisions made before its barrier. Rescaling needs nothing more: all state is keyed
 * by shard, and the cache and the open filters are rebuilt lazily after a restore.
 *
 * <p>Heap backend: its snapshots serialize asynchronously the objects that are in state. The
 * operator therefore never lets state hold an object it will mutate: a page read on a miss is
 * copied into the cache's own array, and pages and headers are copied on the way out (flush,
 * eviction) and restored headers on the way in, unless the backend serializes on access ({@code
 * isSafeToReuseKVState}, RocksDB), where those copies would be pure waste. (The heap backend's
 * own copy-on-write still deep-copies a shard's page map the first time it is touched while an
 * asynchronous snapshot is running: for large shards prefer RocksDB.)
 *
 * <p>Insert logs ({@link DedupSettings#materializeEvery} = N above 1; issue 23): a Bloom filter's
 * inserts land on random pages, so writing the dirty pages at every barrier writes nearly the
 * whole filter every checkpoint. With N above 1 a shard's state is a base (header and pages as
 * above, as of its last materialization) plus its {@link InsertLog} since then, in chunks in a
 * {@code MapState<Long, InsertLog>} under the shard's key (chunk keys rise per shard; a chunk is
 * spilled whenever the shard's log in memory passes {@link #SPILL_BYTES}). A checkpoint whose id
 * is not a multiple of N writes only the new chunks: dirty pages stay in the cache, headers
 * unwritten. A checkpoint whose id is a multiple of N holds every shard changed since its base
 * materialized: its pages and header written, its log cleared. Materializing is valid at any moment
 * (base plus log stay the shard's state), so it is not done in the barrier: after the barrier before
 * a multiple of N a {@link MaterializationRound} writes the changed shards one at a time between
 * records, over the first half of the interval, and then compacts the filter's state on a
 * background thread ({@link StateCompactor}); the barrier at the multiple of N waits only for what
 * is left of that compaction, and writes synchronously only the shards the round did not reach
 * (no records came, or the ids skipped). A shard is restored (lazily, when first used) by replaying its
 * chunks in order over its base; the result is bit for bit the state it had, because each filter
 * is a deterministic function of its base and the logged operations ({@link DedupFilter#redo}).
 * Logs are keyed by shard, so a rescale moves them with their shard.
 *
 * <p>Evictions between materializations: the cache writes a dirty page it evicts into the base.
 * For the scalable filter that is harmless: setting Bloom bits is idempotent and its replay sets
 * bits without testing them ({@link io.urldedup.state.ScalableBloomFilter#redo}), so pages that
 * already hold some later inserts replay to the same pages and counters. The stable filter's
 * decay and the aged filter's lazy clearing are not idempotent: a stable or aged shard that had a
 * dirty page evicted is materialized, as one unit, at the next checkpoint whatever its id (base
 * and log are then consistent again). Pinning its dirty pages instead would make the cache
 * unbounded. A stable or aged filter larger than the cache therefore writes its pages at every
 * checkpoint, as with N = 1.
 *
 * <p>Versions: a job with N above 1 declares the header layout {@link
 * FilterHeaderSerializer#LOGGED_LAYOUT_VERSION}, which builds before insert logs refuse (they
 * would restore the bases and drop the logs); N = 1 writes exactly the layout of those builds. A
 * job with N = 1 restores logged state too (it replays and materializes it at its next checkpoint).
 *
 * <p>Operator uid and the state names below are part of the savepoint format.
 *
 * <p>Aged filters with a time window advance their generations per shard from the shard's clock
 * ({@link GenerationTime}): each record first moves its shard's clock, and a keyed timer (event or
 * processing time) at the shard's next generation boundary advances shards whose records stop.
 * The timers and the clock's time step (in the header) are keyed state, so they are part of every
 * checkpoint and follow their shard through a rescale. The generation length is the restored
 * header's, not the current sizing's: an upgrade that sizes differently must not change the
 * window of existing state. A generation that reaches its planned size before its time advances
 * early ({@code generationsAdvancedEarly}, a rate-limited WARN with the measured rate). Event time
 * never moves a shard more than one generation past this machine's clock ({@code
 * timestampsClamped}, a rate-limited WARN): one far-future timestamp would otherwise turn the
 * ring k + l times and empty the shard. (Not the watermark: a backlog is read far ahead of the
 * periodic watermark, and its records must move the clock.)
 *
 * <p>A restored header built for other parameters, another seed, another shard count or (unless
 * allowed) other canonicalization settings fails the job at restore, without restarts, with the
 * {@link IncompatibleStateException} message, which names the flag; it never silently answers
 * "unseen" for old URLs. Headers of state that predates the shard count and canonicalization
 * fingerprint accept the current ones and record them when their shard is next written.
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

  /** The header state as persisted (name and serializer): readers and writers of savepoints use it too. */
  public static ValueStateDescriptor<FilterHeader> headerDescriptor() {
    return new ValueStateDescriptor<>(HEADER_STATE, new FilterHeaderSerializer());
  }

  /** The pages state as persisted (name and serializers): readers and writers of savepoints use it too. */
  public static MapStateDescriptor<Long, long[]> pagesDescriptor() {
    return new MapStateDescriptor<>(PAGES_STATE, LongSerializer.INSTANCE, new PageSerializer());
  }

  /** The insert log state as persisted: chunk key to chunk, under the shard's key. */
  public static MapStateDescriptor<Long, InsertLog> logDescriptor() {
    return new MapStateDescriptor<>(LOG_STATE, LongSerializer.INSTANCE, InsertLogSerializer.INSTANCE);
  }

  /**
   * A shard's log in memory is written to state as a chunk once it passes this size (1 MiB,
   * 65,536 inserts): memory per shard stays bounded however long the checkpoint interval.
   */
  static final int SPILL_BYTES = 1 << 20;

  /** At most one early-advance (and one clamped-timestamp) WARN per subtask per minute (the counters have every one). */
  private static final long EARLY_WARN_PERIOD_MILLIS = 60_000;

  /**
   * Gauges are recomputed at most every {@link #GAUGE_PERIOD_NANOS}, the clock being read every
   * {@link #GAUGE_CHECK_RECORDS} records and at snapshots: the stable filter's model estimates cost
   * up to milliseconds per shard (a Markov chain over arrivals), far too much for the record path.
   */
  private static final int GAUGE_CHECK_RECORDS = 4096;
  private static final long GAUGE_PERIOD_NANOS = 5_000_000_000L;

  private static final int NO_KEY = Integer.MIN_VALUE;
  /** {@code Shard.firstChunk} of restored chunks whose keys are not consecutive. */
  private static final long UNKNOWN_CHUNKS = Long.MIN_VALUE;

  /** A shard whose estimated FPR passes this multiple of the target logs a WARN (once). */
  static final double FPR_WARN_FACTOR = 2;


  private final FilterSpec spec;
  private final UrlMapping mapping;
  /** {@link #AUTO_CACHE}: sized at open by {@link PageCacheSizing}. */
  private final int cachePages;
  private final boolean allowCanonicalizationChange;
  /** Aged time windows: how time is read; null otherwise. */
  private final GenerationTime time;
  private final DedupSettings settings;

  private transient InternalTimerService<VoidNamespace> timers;
  private transient long earlyWarnedAt;
  private transient long clampWarnedAt;
  private transient boolean warnedNoTimestamp;

  private transient ValueStateDescriptor<FilterHeader> headerDescriptor;
  private transient ValueState<FilterHeader> headerState;
  private transient MapState<Long, long[]> pageState;
  /** Insert log chunks: registered when this job logs (N above 1) or its restored state has logs. */
  private transient MapState<Long, InsertLog> logState;
  /** This job logs inserts (N above 1). */
  private transient boolean logging;
  /** The operator's own write-backs (materializations), as opposed to the cache's evictions. */
  private transient boolean materializing;
  /** Compacts the filter's state after an epoch (RocksDB, logged state only). */
  private transient StateCompactor compactor;
  /** The shards being materialized ahead of the next multiple of N, or null. */
  private transient MaterializationRound<Shard> round;
  /** Checkpoint interval as measured between barriers, for pacing a round; 0 until measured. */
  private transient long lastBarrierNanos;
  private transient long intervalNanos;
  /** Id of the last checkpoint written: the runtime's second call for it writes nothing. */
  private transient long lastCheckpointId;
  private transient int sinceRoundCheck;
  /** The round's clock; tests replace it. */
  transient java.util.function.LongSupplier nanoClock;
  /** {@link #SPILL_BYTES} in words; tests lower it. */
  transient int spillWords;
  /** Chunks written because a shard's log passed {@link #spillWords} (tests). */
  transient long spills;
  private transient boolean copyState;
  private transient PageCache cache;
  private transient Shards shards;
  private transient DedupMetrics metrics;
  private transient int keyShard;
  private transient int sinceGauges;
  private transient StableHolding holding;
  private transient long gaugesAt;
  /** {@link #GAUGE_PERIOD_NANOS}; tests that measure the record path alone raise it. */
  transient long gaugePeriodNanos;

  /** {@code cachePages} value: size the page cache from the filter and the heap at open. */
  public static final int AUTO_CACHE = 0;

  public DedupOperator(FilterSpec spec, UrlMapping mapping, int cachePages, boolean allowCanonicalizationChange) {
    this(spec, mapping, cachePages, allowCanonicalizationChange, null);
  }

  /**
   * @param spec      each shard's filter
   * @param cachePages pages of 4 KiB per subtask, or {@link #AUTO_CACHE}
   * @param mapping   seed fingerprint, shard count and canonicalization of this job, recorded in new
   *                  headers and checked against restored ones
   * @param allowCanonicalizationChange  accept restored state written with other canonicalization
   *                  settings (logged as a warning) instead of refusing it
   * @param time      aged filters with a time window: event or processing time (required for them,
   *                  ignored for the others)
   */
  public DedupOperator(FilterSpec spec, UrlMapping mapping, int cachePages, boolean allowCanonicalizationChange,
      GenerationTime time) {
    this(spec, mapping, cachePages, allowCanonicalizationChange, time, DedupSettings.PAGES_AT_EVERY_CHECKPOINT);
  }

  /** @param settings how checkpoints write the shards ({@link DedupSettings}) */
  public DedupOperator(FilterSpec spec, UrlMapping mapping, int cachePages, boolean allowCanonicalizationChange,
      GenerationTime time, DedupSettings settings) {
    if (settings == null) {
      throw new IllegalArgumentException("dedup settings are required");
    }
    this.settings = settings;
    if (spec == null || mapping == null) {
      throw new IllegalArgumentException("a filter spec and a URL mapping are required");
    }
    if (cachePages != AUTO_CACHE && (cachePages < 1 || cachePages > PageCache.MAX_PAGES)) {
      throw new IllegalArgumentException(
          "the page cache holds 1 to " + PageCache.MAX_PAGES + " pages of 4 KiB; got " + cachePages);
    }
    this.spec = spec;
    this.mapping = mapping;
    this.cachePages = cachePages;
    this.allowCanonicalizationChange = allowCanonicalizationChange;
    boolean timed = spec.kind() == FilterSpec.Kind.AGED && spec.timed();
    if (timed && time == null) {
      throw new IllegalArgumentException("an aged filter with a time window needs event or processing time");
    }
    this.time = timed ? time : null;
  }

  @Override
  public void initializeState(StateInitializationContext context) throws Exception {
    super.initializeState(context);
    Object keySerializer = getKeyedStateBackend() == null ? null : getKeyedStateBackend().getKeySerializer();
    if (!(keySerializer instanceof IntSerializer)) {
      throw new IllegalStateException(
          "DedupOperator runs on a stream keyed by the Integer shard: keyBy(r -> r.shard)");
    }
    // the job's serializer declares the newest header layout its headers need (a rollback reads the rest)
    logging = settings.logged();
    headerDescriptor = new ValueStateDescriptor<>(HEADER_STATE, FilterHeaderSerializer.forSpec(spec, logging));
    headerState = context.getKeyedStateStore().getState(headerDescriptor);
    pageState = context.getKeyedStateStore().getMapState(pagesDescriptor());
    // N = 1 registers no log state (today's layout) unless the restored state has logs to replay
    if (logging || context.isRestored() && hasRestoredLogs()) {
      logState = context.getKeyedStateStore().getMapState(logDescriptor());
    }
    copyState = !getKeyedStateBackend().isSafeToReuseKVState();
    if (logState != null) {
      compactor = new StateCompactor(getKeyedStateBackend(), List.of(headerDescriptor, pagesDescriptor(), logDescriptor()));
    }
    spillWords = SPILL_BYTES / InsertLog.WORD_BYTES;
    nanoClock = System::nanoTime;
    lastCheckpointId = Long.MIN_VALUE;
    if (context.isRestored()) {
      checkRestoredHeaders();
    }
  }

  private boolean hasRestoredLogs() {
    try (java.util.stream.Stream<Object> keys = getKeyedStateBackend().getKeys(LOG_STATE, VoidNamespace.INSTANCE)) {
      return keys.findAny().isPresent();
    }
  }

  /**
   * Fails the restore at once, not when the first record of an incompatible shard arrives; logs an
   * allowed canonicalization change once per subtask (the settings hold no seed).
   */
  private void checkRestoredHeaders() throws Exception {
    java.util.Set<String> changes = new java.util.TreeSet<>();
    getKeyedStateBackend().applyToAllKeys(
        VoidNamespace.INSTANCE,
        VoidNamespaceSerializer.INSTANCE,
        headerDescriptor,
        (key, state) -> {
          FilterHeader h = state.value();
          if (h != null) {
            check(h, (Integer) key);
            String change = h.canonicalizationChange(mapping);
            if (change != null) {
              changes.add(change);
            }
          }
        });
    for (String change : changes) {
      LOG.warn("restored state was written with other canonicalization settings ({});"
          + " --allow-canonicalization-change is given, so it is used anyway: URLs seen before the change"
          + " may be emitted once more, and the state now records the current settings", change);
    }
  }

  @Override
  public void open() throws Exception {
    super.open();
    cache = new PageCache(resolveCachePages(), new StateBacking());
    shards = new Shards();
    metrics = new DedupMetrics(getMetricGroup(), getRuntimeContext());
    keyShard = NO_KEY;
    gaugePeriodNanos = GAUGE_PERIOD_NANOS;
    gaugesAt = System.nanoTime() - GAUGE_PERIOD_NANOS;
    if (time != null) {
      timers = getInternalTimerService(GENERATION_TIMERS, VoidNamespaceSerializer.INSTANCE, this);
      // far in the past, but not so far that now - it overflows (Long.MIN_VALUE did: never a first WARN)
      earlyWarnedAt = Long.MIN_VALUE / 2;
      clampWarnedAt = Long.MIN_VALUE / 2;
    }
  }

  private int resolveCachePages() {
    if (cachePages != AUTO_CACHE) {
      return cachePages;
    }
    TaskInfo t = getRuntimeContext().getTaskInfo();
    int here = PageCacheSizing.shardsIn(KeyGroupRangeAssignment.computeKeyGroupRangeForOperatorIndex(
            t.getMaxNumberOfParallelSubtasks(), t.getNumberOfParallelSubtasks(), t.getIndexOfThisSubtask()),
        mapping.shards(), t.getMaxNumberOfParallelSubtasks());
    int slots = getContainingTask().getEnvironment().getTaskManagerInfo().getConfiguration()
        .get(TaskManagerOptions.NUM_TASK_SLOTS);
    long heap = Runtime.getRuntime().maxMemory();
    int pages = PageCacheSizing.pages(spec, here, heap, slots);
    LOG.info("page cache: {} pages ({} MiB) for {} shards' filters of up to {} MiB each; budget {} MiB"
            + " ({} of the {} MiB heap over {} slots)",
        pages, (long) pages * PageStore.PAGE_BYTES >> 20, here,
        PageCacheSizing.filterPages(spec) * PageStore.PAGE_BYTES >> 20,
        PageCacheSizing.budgetPages(heap, slots) * PageStore.PAGE_BYTES >> 20,
        PageCacheSizing.HEAP_SHARE, heap >> 20, slots);
    return pages;
  }

  @Override
  public void processElement(StreamRecord<UrlRecord> element) throws Exception {
    UrlRecord r = element.getValue();
    int shard = (Integer) getCurrentKey();
    keyShard = shard;
    cache.selectShard(shard);
    Shard s = shards.get(shard);
    if (s == null) {
      s = openShard(shard);
    }
    s.changed = true;
    AgedBloomFilter aged = s.aged;
    long early = 0;
    long clock = Long.MIN_VALUE;
    if (aged != null) {
      if (timers != null) {
        clock = clock(element);
        clock = advance(s, clock, true);
      }
      early = aged.clock().earlyAdvances();
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
    if (aged != null && aged.clock().earlyAdvances() != early) {
      advancedEarly(s, clock);
    }
    if (s.log != null && s.log.words() >= spillWords) {
      writeChunk(s);
      spills++;
    }
    if (round != null && ++sinceRoundCheck >= MaterializationRound.CHECK_RECORDS) {
      stepRound(shard);
    }
    if (++sinceGauges >= GAUGE_CHECK_RECORDS) {
      maybePublishGauges();
    }
  }

  /**
   * The shard clock a record moves to: its timestamp - max out-of-orderness, or the processing
   * time. Event time without a timestamp moves nothing (warned once: such a job never ages).
   */
  private long clock(StreamRecord<UrlRecord> element) {
    if (!time.event()) {
      return getProcessingTimeService().getCurrentProcessingTime();
    }
    if (element.hasTimestamp()) {
      return element.getTimestamp() - time.maxOutOfOrdernessMillis();
    }
    if (!warnedNoTimestamp) {
      warnedNoTimestamp = true;
      LOG.warn("aged filter with --time event: a record without a timestamp; generations advance only on record"
          + " timestamps and the watermark, so records without one never age the filter (the source must assign"
          + " timestamps: Kafka record timestamps, or the JSON field ts in embedded mode); use --time processing"
          + " to age on the clock");
    }
    return Long.MIN_VALUE;
  }

  /**
   * Moves the shard's filter to the time step of {@code clock} (floor(clock / generation length));
   * on a new step, registers the timer of the next boundary (idempotent per key and time). In
   * event time the step is at most one past the machine clock's ({@link #clampedStep}); only a
   * move by more than one step reads the clock. Returns the clock the shard moved to.
   */
  private long advance(Shard s, long clock, boolean fromRecord) {
    if (clock == Long.MIN_VALUE) {
      return clock;
    }
    AgedClock c = s.aged.clock();
    long before = c.epoch();
    long d = s.generationMillis;
    long step = Math.floorDiv(clock, d);
    if (time.event() && (before == AgedClock.NO_EPOCH || step > before + 1)) {
      long limit = clampedStep(d);
      if (step > limit) {
        if (fromRecord) {
          clamped(s, clock, limit);
        }
        step = limit;
        clock = limit * d;
      }
    }
    s.aged.advanceToEpoch(step);
    if (c.epoch() != before) {
      s.changed = true;
      s.generationStart = clock;
      long next = (c.epoch() + 1) * d;
      if (time.event()) {
        timers.registerEventTimeTimer(VoidNamespace.INSTANCE, next);
      } else {
        timers.registerProcessingTimeTimer(VoidNamespace.INSTANCE, next);
      }
    }
    return clock;
  }

  /**
   * The latest step event time may move a shard to: one past the step of this machine's clock
   * (the shard clock already trails the record time by --max-out-of-orderness, so a producer's
   * clock may run that much plus a generation ahead unclamped). Replays and backlogs are in the
   * past and never reach it, whatever the watermark; a far-future timestamp, and a watermark it
   * dragged along (timers follow the same limit), cannot empty a shard. Decisions stay a function
   * of the records unless a record was clamped (its step then depends on when it was processed).
   */
  private static long clampedStep(long generationMillis) {
    return Math.floorDiv(System.currentTimeMillis(), generationMillis) + 1;
  }

  /** Counts a clamped record and warns at most once a minute (no URL in the message). */
  private void clamped(Shard s, long clock, long limitStep) {
    metrics.timestampClamped();
    long now = System.currentTimeMillis();
    if (now - clampWarnedAt >= EARLY_WARN_PERIOD_MILLIS) {
      clampWarnedAt = now;
      LOG.warn("aged filter: a record of shard {} has event time {}, more than --max-out-of-orderness ({} ms) and a"
              + " generation ({} ms) ahead of this machine's clock; its shard moves to {} only (metric {} counts"
              + " such records). A far-future timestamp would otherwise empty the shard; check the producers' clocks",
          s.shard, java.time.Instant.ofEpochMilli(clock + time.maxOutOfOrdernessMillis()),
          time.maxOutOfOrdernessMillis(), s.generationMillis,
          java.time.Instant.ofEpochMilli(limitStep * s.generationMillis), DedupMetrics.TIMESTAMPS_CLAMPED);
    }
  }

  @Override
  public void onEventTime(InternalTimer<Integer, VoidNamespace> timer) throws Exception {
    onBoundary(timer);
  }

  @Override
  public void onProcessingTime(InternalTimer<Integer, VoidNamespace> timer) throws Exception {
    onBoundary(timer);
  }

  /**
   * A generation boundary of the timer's shard (the key context is the timer's key). Advances to
   * the later of the timer and the time now (the watermark, or the processing time): after an
   * outage one timer catches up every missed generation, instead of one timer per generation.
   */
  private void onBoundary(InternalTimer<Integer, VoidNamespace> timer) throws Exception {
    int shard = timer.getKey();
    keyShard = shard;
    cache.selectShard(shard);
    Shard s = shards.get(shard);
    if (s == null) {
      s = openShard(shard);
    }
    if (s.aged != null) {
      long now = time.event() ? timers.currentWatermark() : getProcessingTimeService().getCurrentProcessingTime();
      advance(s, Math.max(timer.getTimestamp(), now), false);
    }
    if (round != null) {
      stepRound(shard);
    }
  }

  /**
   * Counts an early advance and warns at most once a minute with the measured rate: the planned g
   * new URLs over the shard-clock time since the shard's generation began, times the shards (the
   * job's rate if the shards are even, as the hash makes them).
   */
  private void advancedEarly(Shard s, long clock) {
    metrics.generationAdvancedEarly();
    long now = System.currentTimeMillis();
    if (clock != Long.MIN_VALUE && s.generationStart != Long.MIN_VALUE
        && now - earlyWarnedAt >= EARLY_WARN_PERIOD_MILLIS) {
      earlyWarnedAt = now;
      long g = s.aged.geometry().generationSize();
      double elapsed = Math.max(1, clock - s.generationStart) / 1000.0;
      int n = Math.max(1, mapping.shards());
      LOG.warn("aged filter: a generation of shard {} reached its planned {} new URLs after {} s of its {} ms:"
              + " about {} new URLs/s in total ({} shards) against --rate {}; it advanced early, so the FPR stays at"
              + " --fpr but URLs are forgotten before --window while the rate stays this high",
          s.shard, g, String.format(java.util.Locale.ROOT, "%.1f", elapsed), s.generationMillis,
          String.format(java.util.Locale.ROOT, "%.0f", g / elapsed * n), n,
          String.format(java.util.Locale.ROOT, "%.0f", spec.rate() * n));
    }
    s.generationStart = clock;
  }

  private Shard openShard(int shard) throws Exception {
    FilterHeader h = headerState.value();
    DedupFilter filter;
    if (h == null) {
      filter = DedupDecision.newShard(spec, mapping, cache);
    } else {
      check(h, shard);
      if (copyState) {
        h = h.copy();
      }
      h.adopt(spec, mapping);
      filter = Filters.open(h, cache);
    }
    Shard s = new Shard(shard, filter);
    s.hasBase = h != null;
    shards.put(s);
    if (logState != null) {
      replay(s);
    }
    if (logging) {
      s.log = new InsertLog(1024);
      filter.logTo(s.log);
    }
    if (timers != null && s.aged != null && s.aged.clock().epoch() != AgedClock.NO_EPOCH) {
      // a restored shard: its timer is restored too; its generation began at most one step ago
      s.generationStart = s.aged.clock().epoch() * s.generationMillis;
    }
    return s;
  }

  /**
   * Redoes the shard's logged chunks in key order over its base (the key context is the shard's).
   * The chunks stay in state until the shard is next materialized: replayed pages are dirty in the
   * cache, exactly as if the operations had just been made.
   */
  private void replay(Shard s) throws Exception {
    java.util.List<Long> keys = new java.util.ArrayList<>();
    for (Long k : logState.keys()) {
      keys.add(k);
    }
    if (keys.isEmpty()) {
      return;
    }
    keys.sort(null);
    java.util.List<InsertLog> chunks = new java.util.ArrayList<>(keys.size());
    for (Long k : keys) {
      chunks.add(logState.get(k));
    }
    long ops = 0;
    for (InsertLog chunk : chunks) {
      ops += chunk.replay(s.filter);
    }
    s.nextChunk = keys.get(keys.size() - 1) + 1;
    // chunks are written with consecutive keys; anything else is cleared by iterating them
    s.firstChunk = s.nextChunk - keys.get(0) == keys.size() ? keys.get(0) : UNKNOWN_CHUNKS;
    s.stale = true;
    s.changed = true;
    metrics.logReplayed(ops);
  }

  /** Writes the shard's log in memory as its next chunk (the key context is switched to the shard). */
  private void writeChunk(Shard s) throws Exception {
    if (s.log.isEmpty()) {
      return;
    }
    switchKey(s.shard);
    logState.put(s.nextChunk++, s.log.copy());
    metrics.logWritten(s.log.bytes());
    s.log.clear();
    s.stale = true;
  }

  /**
   * Restarting cannot cure a mismatch, so the failure suppresses restarts: the job fails at once
   * with the message naming the flag instead of restarting in a loop.
   */
  private void check(FilterHeader h, int shard) {
    try {
      h.checkCompatible(spec, mapping, allowCanonicalizationChange);
    } catch (IncompatibleStateException e) {
      throw new SuppressRestartsException(new IncompatibleStateException(
          "restored state of shard " + shard + " does not fit this job: " + e.getMessage()));
    }
  }

  @Override
  public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
    super.prepareSnapshotPreBarrier(checkpointId);
    checkpoint(checkpointId);
  }

  /**
   * The runtime calls {@link #prepareSnapshotPreBarrier} first, which already wrote; this second
   * call writes nothing then, and covers callers that snapshot without it (test harnesses, the State
   * Processor API).
   */
  @Override
  public void snapshotState(StateSnapshotContext context) throws Exception {
    checkpoint(context.getCheckpointId());
    super.snapshotState(context);
  }

  /** The end of bounded input: everything materialized (the final state needs no replay). */
  @Override
  public void finish() throws Exception {
    flush();
    super.finish();
  }

  /**
   * What a barrier writes: with N = 1 (and no restored logs) the dirty pages and changed headers.
   * With logs: the new log chunks, plus the shards that must be materialized now (no base yet, or
   * a stable or aged page evicted since the base); at a multiple of N every shard changed since its
   * base, unless a round materialized them during the interval (then the barrier only waits for
   * the round's compaction). The barrier before a multiple of N starts the next round.
   */
  private void checkpoint(long checkpointId) throws Exception {
    // the runtime's second call for a checkpoint (snapshotState after prepareSnapshotPreBarrier)
    boolean again = checkpointId == lastCheckpointId;
    lastCheckpointId = checkpointId;
    if (logState == null) {
      flush();
      return;
    }
    long now = nanoClock.getAsLong();
    if (!again) {
      if (lastBarrierNanos != 0) {
        intervalNanos = now - lastBarrierNanos;
      }
      lastBarrierNanos = now;
    }
    // a round started by this barrier's first call stays untouched by its second
    boolean paced = !again && round != null && round.finished();
    if (!again && round != null && !round.finished()) {
      finishRound();
    }
    if (checkpointId % settings.materializeEvery() == 0 && !paced && !again) {
      flush();
      compactor.start();
      compactor.await();
      return;
    }
    if (paced) {
      long waited = compactor.await();
      LOG.info("materialization round: {} shards in {} ms of writes over {} ms; compaction {} ms, of which the"
              + " barrier of checkpoint {} waited {} ms", round.size(), round.writeNanos() / 1_000_000,
          (now - round.startNanos()) / 1_000_000, compactor.lastMillis(), checkpointId, waited);
      round = null;
    }
    if (cache == null) {
      return;
    }
    Object key = getCurrentKey();
    int entryKey = key == null ? NO_KEY : (Integer) key;
    keyShard = entryKey;
    boolean any = false;
    for (Shard s : shards.all()) {
      if (s != null) {
        s.materializeNow = !s.hasBase || s.mustMaterialize || (!logging && s.stale);
        any |= s.materializeNow;
      }
    }
    if (any) {
      materializing = true;
      try {
        cache.flush(shard -> {
          Shard s = shards.get(shard);
          return s != null && s.materializeNow;
        });
      } finally {
        materializing = false;
      }
    }
    for (Shard s : shards.all()) {
      if (s == null) {
        continue;
      }
      if (s.materializeNow) {
        materialize(s);
      } else if (s.log != null) {
        writeChunk(s);
      }
    }
    if (!again && (checkpointId + 1) % settings.materializeEvery() == 0) {
      startRound(now);
    }
    if (entryKey != NO_KEY) {
      switchKey(entryKey);
    }
    maybePublishGauges();
  }

  /** Queues every shard changed since its base, to be materialized over half the measured interval. */
  private void startRound(long now) {
    List<Shard> changed = new java.util.ArrayList<>();
    for (Shard s : shards.all()) {
      if (s != null && needsMaterializing(s)) {
        changed.add(s);
      }
    }
    round = new MaterializationRound<>(changed, now, intervalNanos);
    sinceRoundCheck = 0;
  }

  private static boolean needsMaterializing(Shard s) {
    return s.changed || s.stale || s.log != null && !s.log.isEmpty();
  }

  /**
   * Materializes the round's shards that are due by now (between records: the key context is the
   * record's shard, and is restored); after the last one, starts the compaction.
   */
  private void stepRound(int current) throws Exception {
    sinceRoundCheck = 0;
    int due = round.due(nanoClock.getAsLong());
    if (due <= round.written()) {
      return;
    }
    long t0 = System.nanoTime();
    while (round.written() < due) {
      materializeAlone(round.next());
    }
    round.wrote(System.nanoTime() - t0);
    if (round.finished()) {
      compactor.start();
    }
    switchKey(current);
    cache.selectShard(current);
  }

  /** Writes what the round has not reached, in the barrier (no records came, or too few to pace it). */
  private void finishRound() throws Exception {
    while (!round.finished()) {
      materializeAlone(round.next());
    }
    round = null;
  }

  /** Writes one shard's dirty pages and header and drops its log (any other shard is untouched). */
  private void materializeAlone(Shard s) throws Exception {
    if (!needsMaterializing(s)) {
      return;
    }
    materializing = true;
    try {
      cache.flush(shard -> shard == s.shard);
    } finally {
      materializing = false;
    }
    materialize(s);
  }

  /** Writes the header of a shard whose dirty pages were just written, and drops its log. */
  private void materialize(Shard s) throws Exception {
    switchKey(s.shard);
    FilterHeader h = s.filter.header();
    headerState.update(copyState ? h.copy() : h);
    s.changed = false;
    s.hasBase = true;
    s.materializeNow = false;
    s.mustMaterialize = false;
    if (s.stale) {
      // by key: MapState.clear() iterates the chunks, reading each (up to 1 MiB) only to delete
      // it; in a 4 x 10^7-URL profile that was half of a round's time on the task thread
      if (s.firstChunk == UNKNOWN_CHUNKS) {
        logState.clear();
      } else {
        for (long k = s.firstChunk; k < s.nextChunk; k++) {
          logState.remove(k);
        }
      }
      s.firstChunk = s.nextChunk;
    }
    if (logState != null) {
      metrics.shardMaterialized();
    }
    s.stale = false;
    if (s.log != null) {
      s.log.clear();
    }
  }

  @Override
  public void close() throws Exception {
    if (compactor != null) {
      // before the backend is disposed: a compaction must not outlive the database it reads
      compactor.close();
    }
    if (cache != null) {
      cache.clear();
    }
    super.close();
  }

  /** Writes dirty pages and changed headers to keyed state, then restores the key context. */
  private void flush() throws Exception {
    if (cache == null) {
      return;
    }
    Object key = getCurrentKey();
    int entryKey = key == null ? NO_KEY : (Integer) key;
    keyShard = entryKey;
    round = null;
    materializing = true;
    try {
      cache.flush();
    } finally {
      materializing = false;
    }
    for (Shard s : shards.all()) {
      if (s == null) {
        continue;
      }
      if (logState != null) {
        if (s.changed || s.stale || s.log != null && !s.log.isEmpty()) {
          materialize(s);
        }
      } else if (s.changed) {
        switchKey(s.shard);
        FilterHeader h = s.filter.header();
        headerState.update(copyState ? h.copy() : h);
        s.changed = false;
      }
    }
    if (entryKey != NO_KEY) {
      switchKey(entryKey);
    }
    maybePublishGauges();
  }

  private void switchKey(int shard) {
    if (shard != keyShard) {
      setCurrentKey(shard);
      keyShard = shard;
    }
  }

  private void maybePublishGauges() {
    sinceGauges = 0;
    long now = System.nanoTime();
    if (now - gaugesAt >= gaugePeriodNanos) {
      publishGauges();
      gaugesAt = now;
    }
  }

  /**
   * Aggregates over the open shards; each filter is asked with its own shard selected. Logs one
   * WARN per shard when a scalable shard saturates (its FPR rises from then on) and one when a
   * shard's estimated FPR passes {@link #FPR_WARN_FACTOR} times the target.
   */
  void publishGauges() {
    int back = keyShard;
    double fill = 0;
    double maxFpr = 0;
    long bytes = 0;
    int maxSlices = 0;
    double distinct = 0;
    boolean saturated = false;
    int n = 0;
    for (Shard s : shards.all()) {
      if (s != null) {
        cache.selectShard(s.shard);
        DedupFilter f = s.filter;
        FilterHeader h = f.header();
        double shardFpr = f.estimatedFpr();
        fill += f.fillRatio();
        maxFpr = Math.max(maxFpr, shardFpr);
        bytes += f.sizeBytes();
        maxSlices = Math.max(maxSlices, f.sliceCount());
        distinct += estimatedDistinct(h);
        saturated |= h.saturated();
        warnOnce(s, h, shardFpr);
        n++;
      }
    }
    if (back != NO_KEY) {
      switchKey(back);
      cache.selectShard(back);
    }
    metrics.publish(n == 0 ? 0 : fill / n, maxFpr, bytes, maxSlices);
    metrics.publishSaturation(Math.round(distinct), saturated, maxFpr / spec.fpr());
    metrics.publishCache(cache);
  }

  /** Scalable: the URLs it recorded (exact counter); stable: the model's estimate of those it still holds. */
  private double estimatedDistinct(FilterHeader h) {
    if (h.kind() != FilterSpec.Kind.STABLE) {
      return h.inserts();
    }
    if (holding == null) {
      holding = new StableHolding(h.stableGeometry());
    }
    return holding.held(h.inserts());
  }

  private void warnOnce(Shard s, FilterHeader h, double shardFpr) {
    if (h.saturated() && !s.warnedSaturated) {
      s.warnedSaturated = true;
      LOG.warn("shard {} saturated: the next slice would exceed --max-memory ({} bytes per shard, {} URLs"
              + " recorded); the shard's false-positive rate rises from here on (now {}, target {})",
          s.shard, h.spec().maxMemoryBytes(), h.inserts(), shardFpr, spec.fpr());
    }
    if (shardFpr > FPR_WARN_FACTOR * spec.fpr() && !s.warnedFpr) {
      s.warnedFpr = true;
      LOG.warn("shard {}: estimated false-positive rate {} is over {}x the target --fpr {} ({} inserts);"
              + " unseen URLs are being dropped as seen: raise --max-memory (scalable) or --memory (stable)",
          s.shard, shardFpr, FPR_WARN_FACTOR, spec.fpr(), h.inserts());
    }
  }

  /** Tests: copies of the headers in keyed state (not the open, possibly newer, ones). */
  java.util.Map<Integer, FilterHeader> storedHeaders() throws Exception {
    java.util.Map<Integer, FilterHeader> out = new java.util.TreeMap<>();
    Object key = getCurrentKey();
    getKeyedStateBackend().applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
        headerDescriptor, (k, state) -> out.put((Integer) k, state.value().copy()));
    if (key != null) {
      setCurrentKey(key);
    }
    keyShard = key == null ? NO_KEY : (Integer) key;
    return out;
  }

  /** Tests: copies of the pages in keyed state, by shard and page id. */
  java.util.Map<Integer, java.util.Map<Long, long[]>> storedPages() throws Exception {
    java.util.Map<Integer, java.util.Map<Long, long[]>> out = new java.util.TreeMap<>();
    Object key = getCurrentKey();
    getKeyedStateBackend().applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
        pagesDescriptor(), (k, state) -> {
          java.util.Map<Long, long[]> pages = new java.util.TreeMap<>();
          for (java.util.Map.Entry<Long, long[]> e : state.entries()) {
            pages.put(e.getKey(), e.getValue().clone());
          }
          if (!pages.isEmpty()) {
            out.put((Integer) k, pages);
          }
        });
    if (key != null) {
      setCurrentKey(key);
    }
    keyShard = key == null ? NO_KEY : (Integer) key;
    return out;
  }

  /** Tests: the log chunk keys in keyed state, by shard. */
  java.util.Map<Integer, java.util.List<Long>> storedChunkKeys() throws Exception {
    java.util.Map<Integer, java.util.List<Long>> out = new java.util.TreeMap<>();
    Object key = getCurrentKey();
    getKeyedStateBackend().applyToAllKeys(VoidNamespace.INSTANCE, VoidNamespaceSerializer.INSTANCE,
        logDescriptor(), (k, state) -> {
          java.util.List<Long> keys = new java.util.ArrayList<>();
          state.keys().forEach(keys::add);
          if (!keys.isEmpty()) {
            keys.sort(null);
            out.put((Integer) k, keys);
          }
        });
    if (key != null) {
      setCurrentKey(key);
    }
    keyShard = key == null ? NO_KEY : (Integer) key;
    return out;
  }

  /** Tests: whether the insert log state is registered (never for N = 1 without restored logs). */
  boolean hasLogState() {
    return logState != null;
  }

  /** Tests: copies of the open filters' headers. */
  java.util.Map<Integer, FilterHeader> openHeaders() {
    java.util.Map<Integer, FilterHeader> out = new java.util.TreeMap<>();
    for (Shard s : shards.all()) {
      if (s != null) {
        out.put(s.shard, s.filter.header().copy());
      }
    }
    return out;
  }

  DedupMetrics metrics() {
    return metrics;
  }

  PageCache cache() {
    return cache;
  }

  /** Pages in keyed state, reached under their own shard's key. */
  private final class StateBacking implements PageCache.Backing {

    @Override
    public boolean read(int shard, long pageId, long[] dst) throws Exception {
      switchKey(shard);
      long[] stored = pageState.get(pageId);
      if (stored == null) {
        return false;
      }
      if (stored.length != dst.length) {
        throw new IllegalStateException("page " + pageId + " of shard " + shard + " has " + stored.length
            + " words, expected " + dst.length);
      }
      System.arraycopy(stored, 0, dst, 0, dst.length);
      return true;
    }

    @Override
    public void write(int shard, long pageId, long[] words) throws Exception {
      if (logState != null && !materializing) {
        // an eviction: the base now holds later operations than its header and log say
        Shard s = shards.get(shard);
        if (s != null && !s.idempotent) {
          s.mustMaterialize = true;
        }
      }
      int back = keyShard;
      switchKey(shard);
      pageState.put(pageId, copyState ? words.clone() : words);
      if (back != NO_KEY) {
        switchKey(back);
      }
    }
  }

  /** One shard's open filter and whether its header changed since the last flush. */
  private static final class Shard {
    final int shard;
    final DedupFilter filter;
    /** The filter if it is aged (timers and early advances), else null. */
    final AgedBloomFilter aged;
    boolean changed = true;
    boolean warnedSaturated;
    boolean warnedFpr;
    /** Aged time windows: the shard clock when its current generation began (for the measured rate). */
    long generationStart = Long.MIN_VALUE;
    /** Aged time windows: the header's generation length (restored state keeps its own); else 0. */
    final long generationMillis;
    /** Replay is exact over pages that hold later operations (scalable: Bloom bits only). */
    final boolean idempotent;
    /** Logging: operations since the last chunk written (null without logging). */
    InsertLog log;
    /** Its header is in keyed state (restored, or materialized since it was opened). */
    boolean hasBase;
    /** Log chunks in state since its base. */
    boolean stale;
    /** A dirty page of this non-idempotent shard was evicted into its base: materialize at the next checkpoint. */
    boolean mustMaterialize;
    /** Chosen for materialization by the checkpoint being taken. */
    boolean materializeNow;
    /** Key of the shard's next log chunk (rising). */
    long nextChunk;
    /** Key of its first chunk since its base: its chunks in state are firstChunk until nextChunk. */
    long firstChunk;

    Shard(int shard, DedupFilter filter) {
      this.shard = shard;
      this.filter = filter;
      this.aged = filter instanceof AgedBloomFilter a ? a : null;
      this.generationMillis = aged == null ? 0 : filter.header().generationMillis();
      this.idempotent = filter.header().kind() == FilterSpec.Kind.SCALABLE;
    }
  }

  /** Open shards by shard number: open addressing on a primitive key, no boxing per record. */
  private static final class Shards {
    private int[] keys = new int[16];
    private Shard[] values = new Shard[16];
    private int size;

    Shard get(int shard) {
      int mask = keys.length - 1;
      for (int i = mix(shard) & mask; ; i = (i + 1) & mask) {
        Shard s = values[i];
        if (s == null) {
          return null;
        }
        if (keys[i] == shard) {
          return s;
        }
      }
    }

    void put(Shard s) {
      if (2 * (size + 1) > keys.length) {
        int[] oldKeys = keys;
        Shard[] oldValues = values;
        keys = new int[oldKeys.length * 2];
        values = new Shard[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
          if (oldValues[i] != null) {
            insert(oldKeys[i], oldValues[i]);
          }
        }
      }
      insert(s.shard, s);
    }

    private void insert(int shard, Shard s) {
      int mask = keys.length - 1;
      int i = mix(shard) & mask;
      while (values[i] != null) {
        i = (i + 1) & mask;
      }
      keys[i] = shard;
      values[i] = s;
      size++;
    }

    /** The table itself, with null holes. */
    Shard[] all() {
      return values;
    }

    private static int mix(int x) {
      x *= 0x9E3779B9;
      return x ^ (x >>> 16);
    }
  }

  @Override
  public String toString() {
    return "DedupOperator{" + spec.kind() + ", shards=" + mapping.shards() + ", cachePages="
        + (cachePages == AUTO_CACHE ? "auto" : cachePages) + ", materializeEvery=" + settings.materializeEvery() + "}";
  }
}
