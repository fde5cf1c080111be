package io.urldedup.jobbench;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the tasks of the one job in this JVM tell the driver. Each benchmark run is its own JVM with
 * its own mini-cluster, so plain statics are unambiguous. At parallelism P there are P source
 * readers (the file's byte ranges) and P sink writers (one per dedup subtask): times are the first
 * start and the last end, CPU is summed over the threads of a stage.
 */
final class BenchProbe {

  /** The first record read by any reader; the last end of input at any writer. */
  static final AtomicLong firstRecordNanos = new AtomicLong();

  static final AtomicLong endOfInputNanos = new AtomicLong();
  static final LongAdder linesRead = new LongAdder();

  /**
   * Per checkpoint, the line ranges {@code [first, next)} each reader had read before its barrier.
   */
  static final ConcurrentHashMap<Long, List<long[]>> rangesAtCheckpoint = new ConcurrentHashMap<>();

  // CPU time, load-robust: the source+decode threads, the keyed threads (dedup + sink), the process
  static final LongAdder sourceCpu = new LongAdder();
  static final LongAdder sourcesEnded = new LongAdder();
  static final LongAdder keyedCpu = new LongAdder();
  static final LongAdder writersEnded = new LongAdder();
  static final AtomicLong processCpuStart = new AtomicLong();
  static final AtomicLong processCpuEnd = new AtomicLong();

  /** Thread CPU at the first record of each source and keyed thread still running (timeouts). */
  static final ConcurrentHashMap<Long, Long> sourceCpuStartByThread = new ConcurrentHashMap<>();

  static final ConcurrentHashMap<Long, Long> keyedCpuStartByThread = new ConcurrentHashMap<>();

  // accuracy, per line (emitted first occurrences and repeats) and per URL (emitted once or more)
  static final LongAdder emitted = new LongAdder();
  static final LongAdder emittedFirsts = new LongAdder();
  static final LongAdder emittedRepeats = new LongAdder();
  static final LongAdder emittedTwice = new LongAdder();
  static final LongAdder unnumbered = new LongAdder();
  static final LongAdder urlsEmitted = new LongAdder();
  static final LongAdder urlsEmittedAgain = new LongAdder();

  private BenchProbe() {}

  static long threadCpu() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Sets {@code a} to {@code v} if it is still 0. */
  static void setOnce(AtomicLong a, long v) {
    a.compareAndSet(0, v);
  }

  static void max(AtomicLong a, long v) {
    a.accumulateAndGet(v, Math::max);
  }

  /** A fixed-size bit set that threads set bits of concurrently. */
  static final class Bits {
    private final AtomicLongArray words;

    Bits(long bits) {
      words = new AtomicLongArray((int) ((bits + 63) >>> 6));
    }

    /** Sets bit {@code i}; returns whether it was set before. */
    boolean getAndSet(int i) {
      int w = i >>> 6;
      long m = 1L << i;
      while (true) {
        long old = words.get(w);
        if ((old & m) != 0) {
          return true;
        }
        if (words.compareAndSet(w, old, old | m)) {
          return false;
        }
      }
    }
  }
}
