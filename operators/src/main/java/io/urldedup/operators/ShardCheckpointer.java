package io.urldedup.operators;

import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterHeaderSerializer;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.InsertLog;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.flink.annotation.VisibleForTesting;
import org.apache.flink.api.common.state.KeyedStateStore;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the shards' state at checkpoints: a shard's header in a {@code ValueState}, its pages in a
 * {@code MapState} (through the {@link PageCache}, which this class backs), and with insert logs
 * the log chunks. It owns that keyed state and the snapshot path; the operator calls it from its
 * barriers.
 *
 * <p>Insert logs ({@link DedupSettings#materializeEvery} = N above 1; issue 23): a Bloom filter's
 * inserts land on random pages, so writing the dirty pages at every barrier writes nearly the whole
 * filter every checkpoint. With N above 1 a shard's state is a base (header and pages as of its
 * last materialization) plus its {@link InsertLog} since then, in chunks in a {@code MapState<Long,
 * InsertLog>} under the shard's key (chunk keys rise per shard; a chunk is spilled whenever the
 * shard's log in memory passes {@link #SPILL_BYTES}). A checkpoint whose id is not a multiple of N
 * writes only the new chunks: dirty pages stay in the cache, headers unwritten. A checkpoint whose
 * id is a multiple of N holds every shard changed since its base materialized: its pages and header
 * written, its log cleared. Materializing is valid at any moment (base plus log stay the shard's
 * state), so it is not done in the barrier: after the barrier before a multiple of N a {@link
 * MaterializationRound} writes the changed shards one at a time between records, over the first
 * half of the interval, and then compacts the filter's state on a background thread ({@link
 * StateCompactor}); the barrier at the multiple of N waits only for what is left of that
 * compaction, and writes synchronously only the shards the round did not reach (no records came, or
 * the ids skipped). A shard is restored (lazily, when first used) by replaying its chunks in order
 * over its base; the result is bit for bit the state it had, because each filter is a deterministic
 * function of its base and the logged operations ({@link io.urldedup.state.DedupFilter#redo}). Logs
 * are keyed by shard, so a rescale moves them with their shard.
 *
 * <p>Evictions between materializations: the cache writes a dirty page it evicts into the base. For
 * the scalable filter that is harmless: setting Bloom bits is idempotent and its replay sets bits
 * without testing them ({@link io.urldedup.state.ScalableBloomFilter#redo}), so pages that already
 * hold some later inserts replay to the same pages and counters. The stable filter's decay and the
 * aged filter's lazy clearing are not idempotent: a stable or aged shard that had a dirty page
 * evicted is materialized, as one unit, at the next checkpoint whatever its id (base and log are
 * then consistent again). Pinning its dirty pages instead would make the cache unbounded. A stable
 * or aged filter larger than the cache therefore writes its pages at every checkpoint, as with N =
 * 1.
 *
 * <p>Heap backend: its snapshots serialize asynchronously the objects that are in state, so state
 * never holds an object the operator will mutate: pages read on a miss are copied into the cache's
 * own array, and pages and headers are copied on the way out and restored headers on the way in,
 * unless the backend serializes on access ({@code isSafeToReuseKVState}, RocksDB).
 */
final class ShardCheckpointer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ShardCheckpointer.class);

  /**
   * A shard's log in memory is written to state as a chunk once it passes this size (1 MiB, 65,536
   * inserts): memory per shard stays bounded however long the checkpoint interval.
   */
  static final int SPILL_BYTES = 1 << 20;

  private final DedupSettings settings;

  /** This job logs inserts (N above 1). */
  private final boolean logging;

  private final boolean copyState;
  private final ValueStateDescriptor<FilterHeader> headerDescriptor;
  private final ValueState<FilterHeader> headerState;
  private final MapState<Long, long[]> pageState;

  /**
   * Insert log chunks: registered when this job logs (N above 1) or its restored state has logs.
   */
  private final MapState<Long, InsertLog> logState;

  /** Compacts the filter's state after an epoch (RocksDB, logged state only). */
  private final StateCompactor compactor;

  private PageCache cache;
  private ShardTable shards;
  private ShardKeys keys;
  private DedupMetrics metrics;
  private PageStateBacking pages;

  /** The shards being materialized ahead of the next multiple of N, or null. */
  private MaterializationRound<OpenShard> round;

  /** Checkpoint interval as measured between barriers, for pacing a round; 0 until measured. */
  private long lastBarrierNanos;

  private long intervalNanos;

  /** Id of the last checkpoint written: the runtime's second call for it writes nothing. */
  private long lastCheckpointId = Long.MIN_VALUE;

  private int sinceRoundCheck;

  /** The round's clock; tests replace it. */
  @VisibleForTesting LongSupplier nanoClock = System::nanoTime;

  /** {@link #SPILL_BYTES} in words; tests lower it. */
  @VisibleForTesting int spillWords = SPILL_BYTES / InsertLog.WORD_BYTES;

  /** Chunks written because a shard's log passed {@link #spillWords}. */
  @VisibleForTesting long spills;

  /**
   * Registers the shards' state. The header serializer declares the newest header layout this job's
   * headers need (a rollback reads the rest); N = 1 registers no log state (the layout of builds
   * before insert logs) unless the restored state has logs to replay.
   */
  ShardCheckpointer(
      KeyedStateStore store,
      KeyedStateBackend<Integer> backend,
      boolean restored,
      FilterSpec spec,
      DedupSettings settings)
      throws Exception {
    this.settings = settings;
    this.logging = settings.logged();
    this.headerDescriptor =
        new ValueStateDescriptor<>(
            DedupOperator.HEADER_STATE, FilterHeaderSerializer.forSpec(spec, logging));
    this.headerState = store.getState(headerDescriptor);
    this.pageState = store.getMapState(DedupOperator.pagesDescriptor());
    this.logState =
        logging || restored && hasLogs(backend)
            ? store.getMapState(DedupOperator.logDescriptor())
            : null;
    this.copyState = !backend.isSafeToReuseKVState();
    this.compactor =
        logState == null
            ? null
            : new StateCompactor(
                backend,
                List.of(
                    headerDescriptor,
                    DedupOperator.pagesDescriptor(),
                    DedupOperator.logDescriptor()));
  }

  private static boolean hasLogs(KeyedStateBackend<Integer> backend) {
    try (Stream<Integer> keys = backend.getKeys(DedupOperator.LOG_STATE, VoidNamespace.INSTANCE)) {
      return keys.findAny().isPresent();
    }
  }

  /** The header state as registered (its serializer is this job's). */
  ValueStateDescriptor<FilterHeader> headerDescriptor() {
    return headerDescriptor;
  }

  /** Whether the insert log state is registered (never for N = 1 without restored logs). */
  boolean hasLogState() {
    return logState != null;
  }

  /**
   * Starts the task's side: returns the page cache of {@code cachePages} pages over the pages
   * state.
   */
  PageCache open(int cachePages, ShardTable shards, ShardKeys keys, DedupMetrics metrics) {
    this.shards = shards;
    this.keys = keys;
    this.metrics = metrics;
    this.pages = new PageStateBacking(pageState, logState != null, copyState, shards, keys);
    this.cache = new PageCache(cachePages, this.pages);
    return cache;
  }

  /** The current shard's stored header, null if it has none; a copy the caller may mutate. */
  FilterHeader storedHeader() throws Exception {
    FilterHeader h = headerState.value();
    return h != null && copyState ? h.copy() : h;
  }

  /**
   * A shard just opened (the key context is its own): replays its logged chunks, and logs its
   * operations from now on if this job logs.
   */
  void opened(OpenShard s) throws Exception {
    if (logState != null) {
      replay(s);
    }
    if (logging) {
      s.log = new InsertLog(1024);
      s.filter.logTo(s.log);
    }
  }

  /** After a record of {@code s}: spills its log if it is full, and paces the round. */
  void recorded(OpenShard s) throws Exception {
    if (s.log != null && s.log.words() >= spillWords) {
      writeChunk(s);
      spills++;
    }
    if (round != null && ++sinceRoundCheck >= MaterializationRound.CHECK_RECORDS) {
      stepRound(s.shard);
    }
  }

  /**
   * After a timer of {@code shard}: paces the round (a job whose records stopped still
   * materializes).
   */
  void timerFired(int shard) throws Exception {
    if (round != null) {
      stepRound(shard);
    }
  }

  /**
   * Redoes the shard's logged chunks in key order over its base (the key context is the shard's).
   * The chunks stay in state until the shard is next materialized: replayed pages are dirty in the
   * cache, exactly as if the operations had just been made.
   */
  private void replay(OpenShard s) throws Exception {
    List<Long> chunkKeys = new ArrayList<>();
    for (Long k : logState.keys()) {
      chunkKeys.add(k);
    }
    if (chunkKeys.isEmpty()) {
      return;
    }
    chunkKeys.sort(null);
    List<InsertLog> chunks = new ArrayList<>(chunkKeys.size());
    for (Long k : chunkKeys) {
      chunks.add(logState.get(k));
    }
    long ops = 0;
    for (InsertLog chunk : chunks) {
      ops += chunk.replay(s.filter);
    }
    s.nextChunk = chunkKeys.get(chunkKeys.size() - 1) + 1;
    // chunks are written with consecutive keys; anything else is cleared by iterating them
    s.firstChunk =
        s.nextChunk - chunkKeys.get(0) == chunkKeys.size()
            ? chunkKeys.get(0)
            : OpenShard.UNKNOWN_CHUNKS;
    s.stale = true;
    s.changed = true;
    metrics.logReplayed(ops);
  }

  /**
   * Writes the shard's log in memory as its next chunk (the key context is switched to the shard).
   */
  private void writeChunk(OpenShard s) throws Exception {
    if (s.log.isEmpty()) {
      return;
    }
    keys.select(s.shard);
    logState.put(s.nextChunk++, s.log.copy());
    metrics.logWritten(s.log.bytes());
    s.log.clear();
    s.stale = true;
  }

  /**
   * What a barrier writes: with N = 1 (and no restored logs) the dirty pages and changed headers.
   * With logs: the new log chunks, plus the shards that must be materialized now (no base yet, or a
   * stable or aged page evicted since the base); at a multiple of N every shard changed since its
   * base, unless a round materialized them during the interval (then the barrier only waits for the
   * round's compaction). The barrier before a multiple of N starts the next round. The runtime
   * calls this twice per checkpoint (before the barrier, and at the snapshot); the second call
   * writes nothing.
   */
  void checkpoint(long checkpointId) throws Exception {
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
      LOG.info(
          "materialization round: {} shards in {} ms of writes over {} ms; compaction {} ms, of which the"
              + " barrier of checkpoint {} waited {} ms",
          round.size(),
          round.writeNanos() / 1_000_000,
          (now - round.startNanos()) / 1_000_000,
          compactor.lastMillis(),
          checkpointId,
          waited);
      round = null;
    }
    if (cache == null) {
      return;
    }
    int entryKey = keys.sync();
    boolean any = false;
    for (OpenShard s : shards.all()) {
      if (s != null) {
        s.materializeNow = !s.hasBase || s.mustMaterialize || (!logging && s.stale);
        any |= s.materializeNow;
      }
    }
    if (any) {
      pages.materializing = true;
      try {
        cache.flush(
            shard -> {
              OpenShard s = shards.get(shard);
              return s != null && s.materializeNow;
            });
      } finally {
        pages.materializing = false;
      }
    }
    for (OpenShard s : shards.all()) {
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
    keys.restore(entryKey);
  }

  /**
   * Writes dirty pages and changed headers (with logs: materializes every changed shard), then
   * restores the key context.
   */
  void flush() throws Exception {
    if (cache == null) {
      return;
    }
    int entryKey = keys.sync();
    round = null;
    pages.materializing = true;
    try {
      cache.flush();
    } finally {
      pages.materializing = false;
    }
    for (OpenShard s : shards.all()) {
      if (s == null) {
        continue;
      }
      if (logState != null) {
        if (s.needsMaterializing()) {
          materialize(s);
        }
      } else if (s.changed) {
        writeHeader(s);
        s.changed = false;
      }
    }
    keys.restore(entryKey);
  }

  /**
   * Queues every shard changed since its base, to be materialized over half the measured interval.
   */
  private void startRound(long now) {
    List<OpenShard> changed = new ArrayList<>();
    for (OpenShard s : shards.all()) {
      if (s != null && s.needsMaterializing()) {
        changed.add(s);
      }
    }
    round = new MaterializationRound<>(changed, now, intervalNanos);
    sinceRoundCheck = 0;
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
    keys.select(current);
    cache.selectShard(current);
  }

  /**
   * Writes what the round has not reached, in the barrier (no records came, or too few to pace it).
   */
  private void finishRound() throws Exception {
    while (!round.finished()) {
      materializeAlone(round.next());
    }
    round = null;
  }

  /** Writes one shard's dirty pages and header and drops its log (any other shard is untouched). */
  private void materializeAlone(OpenShard s) throws Exception {
    if (!s.needsMaterializing()) {
      return;
    }
    pages.materializing = true;
    try {
      cache.flush(shard -> shard == s.shard);
    } finally {
      pages.materializing = false;
    }
    materialize(s);
  }

  /** Writes the header of a shard whose dirty pages were just written, and drops its log. */
  private void materialize(OpenShard s) throws Exception {
    writeHeader(s);
    s.changed = false;
    s.hasBase = true;
    s.materializeNow = false;
    s.mustMaterialize = false;
    if (s.stale) {
      // by key: MapState.clear() iterates the chunks, reading each (up to 1 MiB) only to delete
      // it; in a 4 x 10^7-URL profile that was half of a round's time on the task thread
      if (s.firstChunk == OpenShard.UNKNOWN_CHUNKS) {
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

  private void writeHeader(OpenShard s) throws Exception {
    keys.select(s.shard);
    FilterHeader h = s.filter.header();
    headerState.update(copyState ? h.copy() : h);
  }

  /** Waits for a running compaction: it must not outlive the database it reads. */
  @Override
  public void close() throws Exception {
    if (compactor != null) {
      compactor.close();
    }
  }
}
