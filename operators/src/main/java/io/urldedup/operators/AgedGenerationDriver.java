package io.urldedup.operators;

import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedSpec;
import java.time.Instant;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.streaming.api.operators.InternalTimerService;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves aged filters through their generations. With a time window each shard advances from its own
 * clock ({@link GenerationTime}): each record first moves its shard's clock, and a keyed timer
 * (event or processing time) at the shard's next generation boundary advances shards whose records
 * stop. The timers and the clock's time step (in the header) are keyed state, so they are part of
 * every checkpoint and follow their shard through a rescale. The generation length is the restored
 * header's, not the current sizing's: an upgrade that sizes differently must not change the window
 * of existing state.
 *
 * <p>A generation that reaches its planned size before its time advances early ({@code
 * generationsAdvancedEarly}, a rate-limited WARN with the measured rate; also without a time
 * window). Event time never moves a shard more than one generation past this machine's clock
 * ({@code timestampsClamped}, a rate-limited WARN): one far-future timestamp would otherwise turn
 * the ring k + l times and empty the shard. (Not the watermark: a backlog is read far ahead of the
 * periodic watermark, and its records must move the clock.) The machine's clock is the injected
 * {@link WallClock}.
 */
final class AgedGenerationDriver {

  private static final Logger LOG = LoggerFactory.getLogger(AgedGenerationDriver.class);

  /**
   * At most one early-advance (and one clamped-timestamp) WARN per subtask per minute (the counters
   * have every one).
   */
  static final long WARN_PERIOD_MILLIS = 60_000;

  private final AgedSpec spec;
  private final int shards;

  /** How time is read; null for aged filters without a time window (they only advance early). */
  private final GenerationTime time;

  private final WallClock wallClock;
  private final InternalTimerService<VoidNamespace> timers;
  private final LongSupplier processingTime;
  private final DedupMetrics metrics;
  // far in the past, but not so far that now - it overflows (Long.MIN_VALUE did: never a first
  // WARN)
  private long earlyWarnedAt = Long.MIN_VALUE / 2;
  private long clampWarnedAt = Long.MIN_VALUE / 2;
  private boolean warnedNoTimestamp;

  /**
   * The record being decided: the clock its shard moved to, and its filter's early advances before.
   */
  private long recordClock;

  private long earlyBefore;

  /**
   * @param time null without a time window (then timers and processingTime are unused)
   * @param timers the operator's generation timers (keyed by shard)
   * @param processingTime the runtime's processing time
   */
  AgedGenerationDriver(
      AgedSpec spec,
      int shards,
      GenerationTime time,
      WallClock wallClock,
      InternalTimerService<VoidNamespace> timers,
      LongSupplier processingTime,
      DedupMetrics metrics) {
    this.spec = spec;
    this.shards = Math.max(1, shards);
    this.time = time;
    this.wallClock = wallClock;
    this.timers = timers;
    this.processingTime = processingTime;
    this.metrics = metrics;
  }

  /**
   * A shard just opened: a restored one's timer is restored too, its generation began at most one
   * step ago.
   */
  void opened(OpenShard s) {
    if (time != null && s.aged.clock().epoch() != AgedClock.NO_EPOCH) {
      s.generationStart = s.aged.clock().epoch() * s.generationMillis;
    }
  }

  /**
   * Before the record's decision (the key context is its shard's): moves the shard to the record's
   * time.
   */
  void beforeRecord(OpenShard s, StreamRecord<?> element) {
    recordClock = Long.MIN_VALUE;
    if (time != null) {
      recordClock = advance(s, clock(element), true);
    }
    earlyBefore = s.aged.clock().earlyAdvances();
  }

  /** After the record's decision: counts (and warns of) a generation its insert filled early. */
  void afterRecord(OpenShard s) {
    if (s.aged.clock().earlyAdvances() != earlyBefore) {
      advancedEarly(s, recordClock);
    }
  }

  /**
   * A generation boundary of the timer's shard (the key context is the timer's key). Advances to
   * the later of the timer and the time now (the watermark, or the processing time): after an
   * outage one timer catches up every missed generation, instead of one timer per generation.
   */
  void onBoundary(OpenShard s, long timerTimestamp) {
    long now = time.event() ? timers.currentWatermark() : processingTime.getAsLong();
    advance(s, Math.max(timerTimestamp, now), false);
  }

  /**
   * The shard clock a record moves to: its timestamp - max out-of-orderness, or the processing
   * time. Event time without a timestamp moves nothing (warned once: such a job never ages).
   */
  private long clock(StreamRecord<?> element) {
    if (!time.event()) {
      return processingTime.getAsLong();
    }
    if (element.hasTimestamp()) {
      return element.getTimestamp() - time.maxOutOfOrdernessMillis();
    }
    if (!warnedNoTimestamp) {
      warnedNoTimestamp = true;
      LOG.warn(
          "aged filter with --time event: a record without a timestamp; generations advance only on record"
              + " timestamps and the watermark, so records without one never age the filter (the source must assign"
              + " timestamps: Kafka record timestamps, or the JSON field ts in embedded mode); use --time processing"
              + " to age on the clock");
    }
    return Long.MIN_VALUE;
  }

  /**
   * Moves the shard's filter to the time step of {@code clock} (floor(clock / generation length));
   * on a new step, registers the timer of the next boundary (idempotent per key and time). In event
   * time the step is at most one past the machine clock's ({@link #clampedStep}); only a move by
   * more than one step reads the clock. Returns the clock the shard moved to.
   */
  private long advance(OpenShard s, long clock, boolean fromRecord) {
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
   * The latest step event time may move a shard to: one past the step of this machine's clock (the
   * shard clock already trails the record time by --max-out-of-orderness, so a producer's clock may
   * run that much plus a generation ahead unclamped). Replays and backlogs are in the past and
   * never reach it, whatever the watermark; a far-future timestamp, and a watermark it dragged
   * along (timers follow the same limit), cannot empty a shard. Decisions stay a function of the
   * records unless a record was clamped (its step then depends on when it was processed).
   */
  private long clampedStep(long generationMillis) {
    return Math.floorDiv(wallClock.currentTimeMillis(), generationMillis) + 1;
  }

  /** Counts a clamped record and warns at most once a minute (no URL in the message). */
  private void clamped(OpenShard s, long clock, long limitStep) {
    metrics.timestampClamped();
    long now = wallClock.currentTimeMillis();
    if (now - clampWarnedAt >= WARN_PERIOD_MILLIS) {
      clampWarnedAt = now;
      LOG.warn(
          "aged filter: a record of shard {} has event time {}, more than --max-out-of-orderness ({} ms) and a"
              + " generation ({} ms) ahead of this machine's clock; its shard moves to {} only (metric {} counts"
              + " such records). A far-future timestamp would otherwise empty the shard; check the producers' clocks",
          s.shard,
          Instant.ofEpochMilli(clock + time.maxOutOfOrdernessMillis()),
          time.maxOutOfOrdernessMillis(),
          s.generationMillis,
          Instant.ofEpochMilli(limitStep * s.generationMillis),
          DedupMetrics.TIMESTAMPS_CLAMPED);
    }
  }

  /**
   * Counts an early advance and warns at most once a minute with the measured rate: the planned g
   * new URLs over the shard-clock time since the shard's generation began, times the shards (the
   * job's rate if the shards are even, as the hash makes them).
   */
  private void advancedEarly(OpenShard s, long clock) {
    metrics.generationAdvancedEarly();
    long now = wallClock.currentTimeMillis();
    if (clock != Long.MIN_VALUE
        && s.generationStart != Long.MIN_VALUE
        && now - earlyWarnedAt >= WARN_PERIOD_MILLIS) {
      earlyWarnedAt = now;
      long g = s.aged.geometry().generationSize();
      double elapsed = Math.max(1, clock - s.generationStart) / 1000.0;
      LOG.warn(
          "aged filter: a generation of shard {} reached its planned {} new URLs after {} s of its {} ms:"
              + " about {} new URLs/s in total ({} shards) against --rate {}; it advanced early, so the FPR stays at"
              + " --fpr but URLs are forgotten before --window while the rate stays this high",
          s.shard,
          g,
          String.format(Locale.ROOT, "%.1f", elapsed),
          s.generationMillis,
          String.format(Locale.ROOT, "%.0f", g / elapsed * shards),
          shards,
          String.format(Locale.ROOT, "%.0f", spec.rate() * shards));
    }
    s.generationStart = clock;
  }
}
