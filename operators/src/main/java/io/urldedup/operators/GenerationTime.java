package io.urldedup.operators;

import io.urldedup.state.InvalidSpecException;
import java.io.Serializable;

/**
 * How an aged filter with a time window reads time: event time (the record timestamp, with a
 * bounded out-of-orderness) or processing time (the TaskManager's clock).
 *
 * <p>Event time, per shard: the shard's clock is the largest (record timestamp - max
 * out-of-orderness) it has seen, which is what the bounded-out-of-orderness watermark is for the
 * shard's own records, so record-driven advances and event-time timers (the watermark) move one
 * clock, forward only. Reading it from the records makes every decision a function of the shard's
 * record sequence alone, not of when Flink's periodic watermarks arrive, so a replay after a
 * restore decides the same; the timers advance shards whose records stop. For records in timestamp
 * order the age of a URL on this clock is exactly the difference of the timestamps; a record d late
 * (d <= max out-of-orderness) is judged on the clock of the newest record, so its age is off by at
 * most d.
 *
 * @param clock event or processing time (the job's {@code --time})
 * @param maxOutOfOrdernessMillis event time: how late a record may be (the watermark's bound)
 */
public record GenerationTime(Clock clock, long maxOutOfOrdernessMillis) implements Serializable {

  /** Which time a time window reads. */
  public enum Clock {
    /** The record timestamp, with a bounded-out-of-orderness watermark. */
    EVENT,
    /** The TaskManager's clock. */
    PROCESSING
  }

  public static final long DEFAULT_MAX_OUT_OF_ORDERNESS_MILLIS = 60_000;

  public GenerationTime {
    if (clock == null) {
      throw new IllegalArgumentException("event or processing time is required");
    }
    if (maxOutOfOrdernessMillis < 0) {
      throw new InvalidSpecException(
          "{maxOutOfOrderness} must be >= 0; got " + maxOutOfOrdernessMillis + " ms");
    }
  }

  public static GenerationTime eventTime(long maxOutOfOrdernessMillis) {
    return new GenerationTime(Clock.EVENT, maxOutOfOrdernessMillis);
  }

  public static GenerationTime processingTime() {
    return new GenerationTime(Clock.PROCESSING, 0);
  }

  /** Whether the window reads event time. */
  public boolean event() {
    return clock == Clock.EVENT;
  }
}
