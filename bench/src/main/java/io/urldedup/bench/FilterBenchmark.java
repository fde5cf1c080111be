package io.urldedup.bench;

import static io.urldedup.state.SplitMix64.mix;

import com.google.common.hash.BloomFilter;
import io.urldedup.state.AgedBloomFilter;
import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
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
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * testAndAdd of pre-generated ~93-byte URLs: hash (XXH3-128 for ours, Guava's Murmur3-128 for
 * Guava) + filter operation, at ~1 MiB (in cache) and 256 MiB (out of cache). Both benchmarks
 * report operations (URLs) per second.
 *
 * <ul>
 *   <li>{@code testAndAdd}: one URL per call, the single-element API;
 *   <li>{@code testAndAddBatch}: {@value #BATCH} consecutive URLs per call: hash them all, then one
 *       batch {@code testAndAdd(h1[], h2[], n, seen[])}, which first loads every element's line so
 *       that the misses overlap (memory-level parallelism), then makes the single calls.
 * </ul>
 *
 * Kinds:
 *
 * <ul>
 *   <li>blocked: {@link BlockedBloomFilter} at 1% (k and bits/URL from the blocked model);
 *   <li>stable: d = 3 stable filter at 1% stable FPR;
 *   <li>aged: 1% aged filter, count window, default generations and row size (layout 2: k = 7, l =
 *       50, rows of 4 cache lines, 35-bit segments), sized to the bytes; at 1 MiB filled for k + l
 *       generations (every slice at its design load);
 *   <li>aged1: the same with layout 1 (a 64-bit word per slice, page stamps: state written before
 *       layout 2), sized by the same rule for 64-bit segments;
 *   <li>scalable: 1% scalable filter with 4 slices (1 + 2 + 4 + 8 first-slice capacities ~ the
 *       size), slices 0-2 filled, so an operation tests 4 slices;
 *   <li>guava: Guava's {@code BloomFilter} over the URL bytes ({@link PooledUrl}'s funnel, the
 *       bytes that {@code Funnels.byteArrayFunnel()} would hash, without a copy) with the same bits
 *       per URL as blocked; the operation is {@code put}, whose result (bits changed) is Guava's
 *       test-and-add in one pass (cheaper than mightContain + put). Guava has no batch API: its
 *       batch benchmark is {@value #BATCH} single puts;
 *   <li>onemiss: hash + one random 8-byte read in an array of the same size: the one-DRAM-miss
 *       floor of single operations; its batch benchmark hashes {@value #BATCH} URLs, then sums
 *       {@value #BATCH} independent reads: the floor with overlapped misses ("MLP floor").
 * </ul>
 *
 * <p>The URL pool has {@code 2^18} URLs at 1 MiB and {@code 2^22} at 256 MiB, cycled in order. With
 * one line per operation, 2^22 URLs touch up to 2^22 lines (256 MiB), about 63% of them distinct,
 * so the filter really is out of cache (2^18 URLs touch at most 16 MiB of lines, L3-sized). The
 * pool is ~390 MB of URL bytes, read sequentially, which the hardware prefetcher streams.
 *
 * <p>At 1 MiB each filter is first filled to its design load and its FPR is measured over 10^6
 * other URLs and printed (FPR does not depend on the size at equal bits per URL).
 *
 * <p>Out of cache a random read costs about twice as much with 4 KiB pages as with 2 MiB pages (TLB
 * misses); transparent huge pages are 'madvise' on most distributions, so the JVM must ask: {@code
 * java -jar bench/target/benchmarks.jar FilterBenchmark -jvmArgsAppend
 * -XX:+UseTransparentHugePages}. The heap size is in the fork's {@code jvmArgs}, so {@code
 * -jvmArgsAppend} does not replace it.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms3g", "-Xmx3g"})
public class FilterBenchmark {

  static final double EPS = 0.01;
  static final int BATCH = 16;

  @Param({"blocked", "stable", "scalable", "aged", "aged1", "guava", "onemiss"})
  public String kind;

  @Param({"1", "256"})
  public int sizeMiB;

  /**
   * repeat: the setup inserts the whole pool once, so every measured operation is a repeat (for the
   * stable filter at 1 MiB, where the pool exceeds its retention, a mix); new: no pre-insert, and
   * every pass over the pool is salted, so every operation is a first occurrence. Without this the
   * mix differed by kind (a slow kind spent its whole run in the first pass, inserting, a fast one
   * in later passes, reading). new at 1 MiB overfills the fixed-size filters.
   */
  @Param({"repeat"})
  public String mix = "repeat";

  private UrlPool pool;
  private byte[] poolBytes;
  private int poolMask;
  private int next;
  private boolean salted;
  private long salt1;
  private long salt2;
  private final long[] hash = new long[2];
  private final long[] h1 = new long[BATCH];
  private final long[] h2 = new long[BATCH];
  private final boolean[] seen = new boolean[BATCH];
  private final UrlHasher hasher = new UrlHasher(0x5eed5eed5eedL);

  private BlockedBloomFilter blocked;
  private DedupFilter filter;
  private BloomFilter<PooledUrl> guava;
  private final PooledUrl url = new PooledUrl();
  private long[] array;

  /** 2^18 URLs at 1 MiB, 2^22 from 64 MiB on, so that touched lines exceed the filter's size. */
  static int poolSize(int sizeMiB) {
    return sizeMiB >= 64 ? 1 << 22 : 1 << 18;
  }

  @Setup(Level.Trial)
  public void setUp() {
    long t0 = System.nanoTime();
    pool = UrlPool.generate(poolSize(sizeMiB), 42);
    poolBytes = pool.bytes;
    poolMask = pool.size() - 1;
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
      case "aged", "aged1" -> {
        // count window sized to fill the bytes: rows = pages x rows per page, g = rows x lambda
        AgedMath.Sizing sz =
            kind.equals("aged")
                ? AgedMath.sizing(EPS, 0, AgedMath.DEFAULT_SLACK)
                : AgedMath.sizing(EPS, 0, AgedMath.DEFAULT_SLACK, 0);
        AgedMath.Geometry shape =
            AgedMath.geometry(EPS, 0, AgedMath.DEFAULT_SLACK, 1000, sz.rowLines());
        long rows = bytes / PageStore.PAGE_BYTES * shape.rowsPerPage();
        long g = (long) (rows * sz.lambda());
        AgedMath.Geometry geometry =
            sz.rowLines() == 0
                ? new AgedMath.Geometry(sz.k(), sz.l(), rows, g)
                : AgedMath.Geometry.lineRows(sz.rowLines(), sz.k(), sz.l(), rows, g);
        filter = AgedBloomFilter.open(geometry, new AgedClock(), false, store);
        touch(store, geometry.pages(), 0);
        if (sizeMiB == 1) {
          // k + l generations: every slice holds its design load
          for (long i = 0; i < (long) (sz.k() + sz.l()) * g; i++) {
            filter.add(mix(i), mix(~i));
          }
        }
      }
      case "scalable" -> {
        // 4 slices of about bytes/15, 2 bytes/15, 4 bytes/15, 8 bytes/15 (tighter slices need more
        // bits)
        double bits = FilterMath.blockedSizing(EPS * 0.5 * 0.0625).bitsPerElement();
        long n0 = Math.max(1, (long) (bytes * 8 / bits / 15));
        FilterSpec spec = FilterSpec.scalable(EPS, n0, 2, 0.5, 4 * bytes);
        filter = Filters.open(spec.newHeader(hasher.seedFingerprint()), store);
        // 7 n0 + 1 inserts fill slices 0-2 and open slice 3 (an op then tests 4 slices, one line
        // each);
        // filling slice 3 too would double the setup without changing the cost of an operation
        for (long i = 0; i < 7 * n0 + 1; i++) {
          filter.add(mix(i), mix(~i));
        }
      }
      case "guava" -> {
        // same bits per URL as blocked: Guava's m = -n ln(p) / ln(2)^2 = bytes * 8
        double fpp = Math.exp(-sizing.bitsPerElement() * Math.log(2) * Math.log(2));
        guava = BloomFilter.create(PooledUrl.BytesFunnel.INSTANCE, capacity, fpp);
        if (sizeMiB == 1) {
          byte[] b = new byte[16];
          for (long i = 0; i < capacity; i++) {
            long x = mix(i);
            for (int j = 0; j < 8; j++) {
              b[j] = (byte) (x >>> (8 * j));
              b[8 + j] = (byte) (i >>> (8 * j));
            }
            guava.put(url.set(b, 0, b.length));
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
    // at design load, before the pool is inserted
    if (sizeMiB == 1 && !kind.equals("onemiss")) {
      System.out.printf(
          Locale.ROOT,
          "%nFPR %s @ %d MiB: measured %.5f over 10^6 non-member URLs%s (mean URL %.1f bytes)%n",
          kind,
          sizeMiB,
          measureFpr(),
          filter != null ? String.format(Locale.ROOT, ", model %.5f", filter.estimatedFpr()) : "",
          pool.meanLength());
    }
    salted =
        switch (mix) {
          case "repeat" -> false;
          case "new" -> true;
          default ->
              throw new IllegalArgumentException("-p mix: accepted repeat or new; got " + mix);
        };
    if (!salted && !kind.equals("onemiss")) {
      for (int i = 0; i <= poolMask; i++) {
        testAndAdd();
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%nsetup %s @ %d MiB: %.1f s, pool %d URLs, mean %.1f bytes%n",
        kind,
        sizeMiB,
        (System.nanoTime() - t0) / 1e9,
        pool.size(),
        pool.meanLength());
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
        hit = guava.mightContain(url.set(u, 0, u.length));
      } else {
        hasher.hash(u, 0, u.length, hash);
        hit =
            blocked != null
                ? blocked.mightContain(hash[0], hash[1])
                : filter.mightContain(hash[0], hash[1]);
      }
      fp += hit ? 1 : 0;
    }
    return fp / (double) n;
  }

  private PooledUrl guavaUrl(int i) {
    return url.set(poolBytes, pool.offset(i), pool.length(i));
  }

  /** The hash of URL i, salted per pass for mix=new (two xors: the same bytes hashed). */
  private void hash(int i) {
    hasher.hash(poolBytes, pool.offset(i), pool.length(i), hash);
    hash[0] ^= salt1;
    hash[1] ^= salt2;
  }

  /** Steps through the pool (BATCH divides its size); mix=new starts a new salt at each pass. */
  private void advance(int n) {
    next = (next + n) & poolMask;
    if (next == 0 && salted) {
      url.salt++;
      salt1 = mix(url.salt);
      salt2 = mix(~url.salt);
    }
  }

  @Benchmark
  public boolean testAndAdd() {
    int i = next;
    advance(1);
    if (guava != null) {
      return !guava.put(guavaUrl(i));
    }
    hash(i);
    if (blocked != null) {
      return blocked.testAndAdd(hash[0], hash[1]);
    }
    if (filter != null) {
      return filter.testAndAdd(hash[0], hash[1]);
    }
    return array[(int) UrlHasher.reduce(hash[0], array.length)] == 0;
  }

  /** {@value #BATCH} URLs per call; returns the number of duplicates (or, for onemiss, a sum). */
  @Benchmark
  @OperationsPerInvocation(BATCH)
  public long testAndAddBatch() {
    int start = next;
    advance(BATCH);
    if (guava != null) {
      long dups = 0;
      for (int j = 0; j < BATCH; j++) {
        dups += guava.put(guavaUrl((start + j) & poolMask)) ? 0 : 1;
      }
      return dups;
    }
    for (int j = 0; j < BATCH; j++) {
      hash((start + j) & poolMask);
      h1[j] = hash[0];
      h2[j] = hash[1];
    }
    if (array != null) {
      long sum = 0;
      for (int j = 0; j < BATCH; j++) {
        sum += array[(int) UrlHasher.reduce(h1[j], array.length)];
      }
      return sum;
    }
    if (blocked != null) {
      blocked.testAndAdd(h1, h2, BATCH, seen);
    } else {
      filter.testAndAdd(h1, h2, BATCH, seen);
    }
    long dups = 0;
    for (int j = 0; j < BATCH; j++) {
      dups += seen[j] ? 1 : 0;
    }
    return dups;
  }
}
