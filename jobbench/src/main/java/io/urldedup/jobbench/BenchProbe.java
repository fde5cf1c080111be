package io.urldedup.jobbench;

import java.util.concurrent.ConcurrentHashMap;

/**
 * What the tasks of the one job in this JVM tell the driver. Each benchmark run is its own JVM
 * with its own mini-cluster, so plain statics are unambiguous.
 */
final class BenchProbe {

  static volatile long firstRecordNanos;
  static volatile long linesRead;
  static volatile long endOfInputNanos;
  static final ConcurrentHashMap<Long, Long> linesAtCheckpoint = new ConcurrentHashMap<>();

  static volatile long emitted;
  static volatile long emittedFirsts;
  static volatile long emittedRepeats;
  static volatile long emittedTwice;
  static volatile long unnumbered;

  private BenchProbe() {}
}
