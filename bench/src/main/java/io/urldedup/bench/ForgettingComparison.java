package io.urldedup.bench;

import io.urldedup.samples.CrawlStreamGenerator;
import io.urldedup.state.AgedBloomFilter;
import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.UrlHasher;
import java.util.Arrays;
import java.util.Locale;

/**
 * Aged vs stable filter at equal memory on one generated crawl stream ({@link CrawlStreamGenerator}
 * defaults: 30% first occurrences, repeats biased to recent links, 5% long-range repeats): how many
 * repeats each re-emits inside the window, at which ages URLs come back (in windows of new URLs
 * since the URL was last emitted, each filter on its own insert clock), and the FPR on first
 * occurrences. One shard; the aged filter is sized for {@code --window-urls} at {@code --fpr} with
 * the default generations, the stable filter gets the same bytes (d = 2, the job's default).
 *
 * <pre>
 * java -Xmx3g -cp bench/target/benchmarks.jar io.urldedup.bench.ForgettingComparison LINES WINDOW [SEED]
 * </pre>
 */
public final class ForgettingComparison {

  private ForgettingComparison() {}

  public static void main(String[] args) {
    long lines = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
    long window = args.length > 1 ? Long.parseLong(args[1]) : 500_000L;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 7;
    double eps = 0.01;

    int l = AgedMath.sizing(eps, 0, AgedMath.DEFAULT_SLACK).l();
    AgedMath.Geometry g = AgedMath.geometry(eps, 0, AgedMath.DEFAULT_SLACK, (window + l - 1) / l);
    AgedBloomFilter aged = AgedBloomFilter.open(g, new AgedClock(), false, new HeapPageStore());
    long bytes = g.bytes();
    DedupFilter stable =
        Filters.open(FilterSpec.stable(eps, bytes, 2).newHeader(1), new HeapPageStore());

    Side a = new Side("aged", lines);
    Side s = new Side("stable", lines);
    CrawlStreamGenerator gen =
        new CrawlStreamGenerator(CrawlStreamGenerator.Settings.defaults(lines, seed));
    UrlHasher hasher = new UrlHasher(0x5eedL);
    StringBuilder line = new StringBuilder(256);
    StringBuilder canonical = new StringBuilder(256);
    long[] h = new long[2];
    byte[] buf = new byte[1 << 14];
    long t0 = System.nanoTime();
    for (long i = 0; i < lines; i++) {
      line.setLength(0);
      canonical.setLength(0);
      boolean first = gen.next(line, canonical);
      int n = ascii(canonical, buf);
      hasher.hash(buf, 0, n, h);
      a.offer(first, h[0], aged.testAndAdd(h[0], h[1]), aged.clock().inserts());
      s.offer(first, h[0], stable.testAndAdd(h[0], h[1]), stable.header().inserts());
    }
    System.out.printf(
        Locale.ROOT,
        "stream: %,d lines, %,d distinct, seed %d; %.1f s%n",
        lines,
        gen.distinct(),
        seed,
        (System.nanoTime() - t0) / 1e9);
    System.out.printf(
        Locale.ROOT,
        "aged: layout %d, %d-line rows, k=%d l=%d rows=%d g=%d, guaranteed window %,d new"
            + " URLs, slack %.0f%%, model FPR %.4f%%; stable: %s; memory %,d bytes each%n",
        g.layout(),
        g.rowLines(),
        g.k(),
        g.l(),
        g.rows(),
        g.generationSize(),
        g.guaranteedInserts(),
        100 * g.slack(),
        100 * g.fpr(),
        stable.header(),
        bytes);
    System.out.println(
        "| filter | re-emissions inside the window | re-emissions | forgotten at age (windows): min / p1 / p10"
            + " / p50 / p90 / p99 | FPR on first occurrences |");
    System.out.println("|---|---|---|---|---|");
    a.print(g.guaranteedInserts());
    s.print(g.guaranteedInserts());
  }

  private static int ascii(CharSequence s, byte[] out) {
    int n = Math.min(s.length(), out.length);
    for (int i = 0; i < n; i++) {
      out[i] = (byte) s.charAt(i);
    }
    return n;
  }

  /**
   * One filter's accounting: last emission clock per URL (open addressing on h1), ages at
   * re-emission.
   */
  private static final class Side {
    final String name;
    final long[] keys;
    final long[] emittedAt;
    final int mask;
    long[] ages = new long[1 << 16];
    int reemissions;
    long firsts;
    long falsePositives;

    Side(String name, long lines) {
      this.name = name;
      int cap = Integer.highestOneBit((int) Math.min(1L << 28, Math.max(16, lines))) * 2;
      keys = new long[cap];
      emittedAt = new long[cap];
      mask = cap - 1;
    }

    void offer(boolean first, long key, boolean seen, long clockAfter) {
      if (first) {
        firsts++;
        if (seen) {
          falsePositives++;
          return;
        }
      }
      if (seen) {
        return;
      }
      int slot = slot(key);
      if (keys[slot] == key && !first) {
        if (reemissions == ages.length) {
          ages = Arrays.copyOf(ages, 2 * ages.length);
        }
        // inserts strictly between the last emission and this one
        ages[reemissions++] = clockAfter - 1 - emittedAt[slot];
      }
      keys[slot] = key;
      emittedAt[slot] = clockAfter;
    }

    private int slot(long key) {
      int i = (int) (key ^ (key >>> 29)) & mask;
      while (keys[i] != 0 && keys[i] != key) {
        i = (i + 1) & mask;
      }
      return i;
    }

    void print(long window) {
      long[] sorted = Arrays.copyOf(ages, reemissions);
      Arrays.sort(sorted);
      long inside = 0;
      for (long age : sorted) {
        if (age <= window) { // the guarantee: seen while at most l g inserts came after it
          inside++;
        }
      }
      System.out.printf(
          Locale.ROOT,
          "| %s | %,d | %,d | %s / %s / %s / %s / %s / %s | %.4f%% (%,d of %,d) |%n",
          name,
          inside,
          reemissions,
          q(sorted, -1, window),
          q(sorted, 0.01, window),
          q(sorted, 0.10, window),
          q(sorted, 0.5, window),
          q(sorted, 0.9, window),
          q(sorted, 0.99, window),
          100.0 * falsePositives / firsts,
          falsePositives,
          firsts);
    }

    private static String q(long[] sorted, double p, long window) {
      if (sorted.length == 0) {
        return "-";
      }
      long v =
          p < 0
              ? sorted[0]
              : sorted[(int) Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
      return String.format(Locale.ROOT, "%.2f", (double) v / window);
    }
  }
}
