package io.urldedup.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import io.urldedup.state.BlockedBloomFilter;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.PageStore;
import io.urldedup.state.UrlHasher;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * testAndAdd of one pre-generated ~95-byte URL per operation: hash (XXH3-128 for ours, Guava's
 * Murmur3-128 for Guava) + filter operation, at ~1 MiB (in cache) and 256 MiB (out of cache).
 *
 * <ul>
 *   <li>blocked: {@link BlockedBloomFilter} at 1% (k and bits/URL from the blocked model);
 *   <li>stable: d = 3 stable filter at 1% stable FPR;
 *   <li>scalable: 1% scalable filter with 4 slices (1 + 2 + 4 + 8 first-slice capacities ~ the size),
 *       slices 0-2 filled, so an operation tests 4 slices;
 *   <li>guava: {@code BloomFilter<byte[]>} with {@code Funnels.byteArrayFunnel()} and the same bits
 *       per URL as blocked; the operation is {@code put}, whose result (bits changed) is Guava's
 *       test-and-add in one pass (cheaper than mightContain + put);
 *   <li>onemiss: hash + one random 8-byte read in an array of the same size: the one-DRAM-miss floor.
 * </ul>
 *
 * At 1 MiB each filter is first filled to its design load and its FPR is measured over 10^6 other
 * URLs and printed (FPR does not depend on the size at equal bits per URL).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms3g", "-Xmx3g"})
public class FilterBenchmark {

  static final int POOL = 1 << 18;
  static final double EPS = 0.01;

  @Param({"blocked", "stable", "scalable", "guava", "onemiss"})
  public String kind;

  @Param({"1", "256"})
  public int sizeMiB;

  private byte[][] urls;
  private int next;
  private final long[] hash = new long[2];
  private final UrlHasher hasher = new UrlHasher(0x5eed5eed5eedL);

  private BlockedBloomFilter blocked;
  private DedupFilter filter;
  private BloomFilter<byte[]> guava;
  private long[] array;

  @Setup(Level.Trial)
  public void setUp() {
    urls = UrlPool.generate(POOL, 42);
    long bytes = (long) sizeMiB << 20;
    FilterMath.BlockedSizing sizing = FilterMath.blockedSizing(EPS);
    long capacity = (long) (bytes * 8 / sizing.bitsPerElement());
    HeapPageStore store = new HeapPageStore();
    switch (kind) {
      case "blocked" -> {
        blocked = new BlockedBloomFilter(store, 0, bytes / 64, sizing.k());
        touch(store, bytes / PageStore.PAGE_BYTES, 0);
        if (sizeMiB == 1) {
          for (long i = 0; i < capacity; i++) {
            blocked.add(mix(i), mix(~i));
          }
        }
      }
      case "stable" -> {
        FilterSpec spec = FilterSpec.stable(EPS, bytes, 3);
        filter = Filters.open(spec.newHeader(hasher.seedFingerprint()), store);
        touch(store, bytes / PageStore.PAGE_BYTES, 0);
        if (sizeMiB == 1) {
          long cells = spec.newHeader(0).stableGeometry().cells();
          for (long i = 0; i < 10 * cells; i++) {
            filter.add(mix(i), mix(~i));
          }
        }
      }
      case "scalable" -> {
        // 4 slices of about bytes/15, 2 bytes/15, 4 bytes/15, 8 bytes/15 (tighter slices need more bits)
        double bits = FilterMath.blockedSizing(EPS * 0.5 * 0.0625).bitsPerElement();
        long n0 = Math.max(1, (long) (bytes * 8 / bits / 15));
        FilterSpec spec = FilterSpec.scalable(EPS, n0, 2, 0.5, 4 * bytes);
        filter = Filters.open(spec.newHeader(hasher.seedFingerprint()), store);
        // 7 n0 + 1 inserts fill slices 0-2 and open slice 3 (an op then tests 4 slices, one line each);
        // filling slice 3 too would double the setup without changing the cost of an operation
        for (long i = 0; i < 7 * n0 + 1; i++) {
          filter.add(mix(i), mix(~i));
        }
      }
      case "guava" -> {
        // same bits per URL as blocked: Guava's m = -n ln(p) / ln(2)^2 = bytes * 8
        double fpp = Math.exp(-sizing.bitsPerElement() * Math.log(2) * Math.log(2));
        guava = BloomFilter.create(Funnels.byteArrayFunnel(), capacity, fpp);
        if (sizeMiB == 1) {
          byte[] b = new byte[16];
          for (long i = 0; i < capacity; i++) {
            long x = mix(i);
            for (int j = 0; j < 8; j++) {
              b[j] = (byte) (x >>> (8 * j));
              b[8 + j] = (byte) (i >>> (8 * j));
            }
            guava.put(b);
          }
        }
      }
      case "onemiss" -> {
        array = new long[(int) (bytes / 8)];
        for (int i = 0; i < array.length; i++) {
          array[i] = i;
        }
      }
      default -> throw new IllegalArgumentException(kind);
    }
    if (sizeMiB == 1 && !kind.equals("onemiss")) {
      System.out.printf(Locale.ROOT, "%nFPR %s @ %d MiB: measured %.5f over 10^6 non-member URLs%s (mean URL %.1f bytes)%n",
          kind, sizeMiB, measureFpr(), filter != null ? String.format(Locale.ROOT, ", model %.5f", filter.estimatedFpr())
              : "", UrlPool.meanLength(urls));
    }
  }

  private static void touch(HeapPageStore store, long pages, long base) {
    for (long p = 0; p < pages; p++) {
      store.page(base + p);
    }
  }

  private double measureFpr() {
    int n = 1_000_000;
    int fp = 0;
    for (int i = 0; i < n; i++) {
      byte[] u = ("https://probe.example.org/not/a/member/" + i).getBytes(StandardCharsets.UTF_8);
      boolean hit;
      if (guava != null) {
        hit = guava.mightContain(u);
      } else {
        hasher.hash(u, 0, u.length, hash);
        hit = blocked != null ? blocked.mightContain(hash[0], hash[1]) : filter.mightContain(hash[0], hash[1]);
      }
      fp += hit ? 1 : 0;
    }
    return fp / (double) n;
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  private byte[] nextUrl() {
    byte[] u = urls[next];
    next = (next + 1) & (POOL - 1);
    return u;
  }

  @Benchmark
  public boolean testAndAdd() {
    byte[] u = nextUrl();
    if (guava != null) {
      return !guava.put(u);
    }
    hasher.hash(u, 0, u.length, hash);
    if (blocked != null) {
      return blocked.testAndAdd(hash[0], hash[1]);
    }
    if (filter != null) {
      return filter.testAndAdd(hash[0], hash[1]);
    }
    return array[(int) UrlHasher.reduce(hash[0], array.length)] == 0;
  }
}
