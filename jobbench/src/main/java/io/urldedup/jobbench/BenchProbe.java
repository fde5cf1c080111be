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

  // CPU time, load-robust: the source+decode thread, the keyed thread (dedup + sink), the process
  static volatile long sourceCpuStart;
  static volatile long sourceCpuEnd;
  static volatile long keyedCpuStart;
  static volatile long keyedCpuEnd;
  static volatile long processCpuStart;
  static volatile long processCpuEnd;

  static volatile long emitted;
  static volatile long emittedFirsts;
  static volatile long emittedRepeats;
  static volatile long emittedTwice;
  static volatile long unnumbered;

  private BenchProbe() {}

  static long threadCpu() {
    return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  static long processCpu() {
    return ((com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }
}
