package io.urldedup.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * The {@link FilterBenchmark} operations timed by the thread's CPU time instead of wall time, for a
 * shared, oversubscribed machine where JMH's wall-clock throughput mostly measures the share of CPU
 * the benchmark thread got. Cache pollution by the other processes still inflates both. "single" is
 * {@code testAndAdd}, "batch" is {@code testAndAddBatch} ({@value FilterBenchmark#BATCH} URLs per
 * call); times are per URL either way.
 *
 * <p>{@code java -Xmx3g [-XX:+UseTransparentHugePages] -cp bench/target/benchmarks.jar
 * io.urldedup.bench.FilterCpuTime [URLs per round] [rounds] [kinds,...] [single,batch]}
 */
public final class FilterCpuTime {

  public static void main(String[] args) {
    long ops = args.length > 0 ? Long.parseLong(args[0]) : 20_000_000L;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    String[] kinds =
        args.length > 2
            ? args[2].split(",")
            : new String[] {"blocked", "stable", "scalable", "guava", "onemiss"};
    String[] methods = args.length > 3 ? args[3].split(",") : new String[] {"single", "batch"};
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    System.out.printf(
        Locale.ROOT,
        "%-9s %-6s %5s %12s %12s %14s%n",
        "kind",
        "method",
        "MiB",
        "cpu ns/op",
        "wall ns/op",
        "cpu Mops/s");
    for (int size : new int[] {1, 256}) {
      for (String kind : kinds) {
        for (String method : methods) {
          FilterBenchmark b = new FilterBenchmark();
          b.kind = kind;
          b.sizeMiB = size;
          b.setUp();
          boolean batch =
              switch (method) {
                case "single" -> false;
                case "batch" -> true;
                default ->
                    throw new IllegalArgumentException("methods: single,batch; got " + method);
              };
          long calls = batch ? ops / FilterBenchmark.BATCH : ops;
          long perCall = batch ? FilterBenchmark.BATCH : 1;
          double[] cpu = new double[rounds];
          double[] wall = new double[rounds];
          long sink = run(b, batch, calls / 2);
          for (int r = 0; r < rounds; r++) {
            long c0 = mx.getCurrentThreadCpuTime();
            long w0 = System.nanoTime();
            sink += run(b, batch, calls);
            cpu[r] = (mx.getCurrentThreadCpuTime() - c0) / (double) (calls * perCall);
            wall[r] = (System.nanoTime() - w0) / (double) (calls * perCall);
          }
          Arrays.sort(cpu);
          Arrays.sort(wall);
          double medianCpu = cpu[rounds / 2];
          System.out.printf(
              Locale.ROOT,
              "%-9s %-6s %5d %12.1f %12.1f %14.2f%s%n",
              kind,
              method,
              size,
              medianCpu,
              wall[rounds / 2],
              1e3 / medianCpu,
              sink == 42 ? " " : "");
        }
      }
    }
  }

  private static long run(FilterBenchmark b, boolean batch, long calls) {
    long sink = 0;
    for (long i = 0; i < calls; i++) {
      sink += batch ? b.testAndAddBatch() : (b.testAndAdd() ? 1 : 0);
    }
    return sink;
  }
}
