package io.urldedup.operators;

import java.io.Serializable;

/**
 * The machine's clock as the aged filter's generation driver reads it (the limit on event time and
 * the WARNs' rate limits), injected as Flink injects {@code TtlTimeProvider} into TTL state, so
 * tests move time by hand instead of sleeping. Flink's own times (processing time, the watermark)
 * come from the runtime, not from here.
 */
interface WallClock extends Serializable {

  WallClock SYSTEM = Machine.CLOCK;

  /** Milliseconds since the epoch. */
  long currentTimeMillis();

  /** The system clock, a serializable singleton (the operator carrying it is serialized). */
  enum Machine implements WallClock {
    CLOCK;

    @Override
    public long currentTimeMillis() {
      return System.currentTimeMillis();
    }
  }
}
