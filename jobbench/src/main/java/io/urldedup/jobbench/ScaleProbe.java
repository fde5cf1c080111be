package io.urldedup.jobbench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the scale benchmark's tasks tell its driver; one job per JVM at a time (the driver resets it
 * between its two jobs), so plain statics are unambiguous.
 */
final class ScaleProbe {

  /** Wall clock (ms) when the first reader left the build-up phase; 0 before. */
  static final AtomicLong steadyStartMillis = new AtomicLong();

  static final LongAdder generated = new LongAdder();
  static final AtomicLong emitted = new AtomicLong();

  /** Emissions of a URL emitted before: a false negative (a scalable filter never forgets). */
  static final LongAdder emittedAgain = new LongAdder();

  /** Wall clock (ms) of the sink's first record and of its {@link #markAt}-th record. */
  static final AtomicLong firstEmitMillis = new AtomicLong();

  static final AtomicLong markMillis = new AtomicLong();
  static volatile long markAt = Long.MAX_VALUE;

  private ScaleProbe() {}

  static void reset(long mark) {
    steadyStartMillis.set(0);
    generated.reset();
    emitted.set(0);
    emittedAgain.reset();
    firstEmitMillis.set(0);
    markMillis.set(0);
    markAt = mark;
  }
}
