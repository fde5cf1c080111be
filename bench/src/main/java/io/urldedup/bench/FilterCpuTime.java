package io.urldedup.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * The {@link FilterBenchmark} operations timed by the thread's CPU time instead of wall time, for
 * a shared, oversubscribed machine where JMH's wall-clock throughput mostly measures the share of
 * CPU the benchmark thread got. Cache pollution by the other processes still inflates both.
 *
 * <p>{@code java -cp bench/target/benchmarks.jar io.urldedup.bench.FilterCpuTime [ops per round] [rounds]}
 */
public final class FilterCpuTime {

  public static void main(String[] args) {
    long ops = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    String[] kinds = args.length > 2 ? args[2].split(",") : new String[] {"blocked", "stable", "scalable", "guava",
        "onemiss"};
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    System.out.printf(Locale.ROOT, "%-9s %5s %12s %12s %14s%n", "kind", "MiB", "cpu ns/op", "wall ns/op",
        "cpu Mops/s");
    for (int size : new int[] {1, 256}) {
      for (String kind : kinds) {
        FilterBenchmark b = new FilterBenchmark();
        b.kind = kind;
        b.sizeMiB = size;
        b.setUp();
        double[] cpu = new double[rounds];
        double[] wall = new double[rounds];
        boolean sink = false;
        for (long i = 0; i < ops / 2; i++) {
          sink ^= b.testAndAdd();
        }
        for (int r = 0; r < rounds; r++) {
          long c0 = mx.getCurrentThreadCpuTime();
          long w0 = System.nanoTime();
          for (long i = 0; i < ops; i++) {
            sink ^= b.testAndAdd();
          }
          cpu[r] = (mx.getCurrentThreadCpuTime() - c0) / (double) ops;
          wall[r] = (System.nanoTime() - w0) / (double) ops;
        }
        Arrays.sort(cpu);
        Arrays.sort(wall);
        double medianCpu = cpu[rounds / 2];
        System.out.printf(Locale.ROOT, "%-9s %5d %12.1f %12.1f %14.2f%s%n", kind, size, medianCpu, wall[rounds / 2],
            1e3 / medianCpu, sink ? "" : " ");
      }
    }
  }
}
