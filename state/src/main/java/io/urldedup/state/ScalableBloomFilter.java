package io.urldedup.state;

import java.util.Arrays;

/**
 * A scalable Bloom filter (Almeida, Baquero, Preguica, Hutchison 2007): a chain of {@link
 * BlockedBloomFilter} slices; slice i holds n0 s^i elements at error eps (1 - r) r^i, so the
 * compound false-positive rate stays below eps. {@code testAndAdd} tests all slices and inserts
 * into the newest; a new slice starts when the newest reaches its capacity.
 *
 * <p>Memory cap: when the next slice would take the slices beyond {@code maxMemoryBytes}, the
 * filter stops growing, keeps inserting into its last slice and reports {@link #saturated()};
 * {@link #estimatedFpr()} then rises with the overfill (blocked model at the actual load).
 *
 * <p>Slice i occupies page ids {@code i << 48 | page}. Allocation-free except when a slice is
 * added.
 */
public final class ScalableBloomFilter implements DedupFilter {

  private final FilterHeader header;
  private final PageStore store;
  private BlockedBloomFilter[] slices;

  /** Sink of the batch's touching loads (its value means nothing). */
  long touched;

  private InsertLog log;

  public ScalableBloomFilter(FilterHeader header, PageStore store) {
    if (header.kind() != FilterSpec.Kind.SCALABLE || header.slices < 1) {
      throw new IllegalArgumentException("not a scalable filter header: " + header);
    }
    this.header = header;
    this.store = store;
    this.slices = new BlockedBloomFilter[header.slices];
    for (int i = 0; i < header.slices; i++) {
      slices[i] = slice(i);
    }
  }

  private BlockedBloomFilter slice(int i) {
    return new BlockedBloomFilter(
        store,
        FilterHeader.pageId(i, 0),
        header.sliceBlocks[i],
        header.sliceK[i],
        i * SplitMix64.GAMMA);
  }

  @Override
  public boolean testAndAdd(long h1, long h2) {
    BlockedBloomFilter[] s = slices;
    int last = s.length - 1;
    for (int i = last - 1; i >= 0; i--) {
      if (s[i].mightContain(h1, h2)) {
        return true;
      }
    }
    boolean seen = s[last].testAndAdd(h1, h2);
    if (!seen) {
      header.inserts++;
      presented(last);
      if (log != null) {
        log.insert(h1, h2);
      }
    } else if (header.saturated || header.sliceCount[last] >= header.sliceCapacity[last]) {
      presented(last); // overfilled: at the cap, or just raised above it (adopt): grow now
      if (log != null) {
        log.present(h1, h2);
      }
    }
    return seen;
  }

  @Override
  public void logTo(InsertLog log) {
    this.log = log;
  }

  /**
   * Redoes without testing: an insert sets the element's bits in the newest slice and counts it, a
   * present counts it. Setting bits is idempotent, so this is exact even over pages that already
   * hold later inserts (a page the cache wrote back before its shard was materialized), where a
   * test would answer "seen" and skip the count.
   */
  @Override
  public void redo(int op, long h1, long h2) {
    int last = slices.length - 1;
    switch (op) {
      case InsertLog.INSERT -> {
        slices[last].add(h1, h2);
        header.inserts++;
        presented(last);
      }
      case InsertLog.PRESENT -> presented(last);
      default ->
          throw new IllegalStateException(
              "a scalable filter logs inserts and presents only; got op " + op);
    }
  }

  @Override
  public boolean mightContain(long h1, long h2) {
    BlockedBloomFilter[] s = slices;
    for (int i = s.length - 1; i >= 0; i--) {
      if (s[i].mightContain(h1, h2)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The oldest slice that (probably) holds the element, or -1: where {@code probe} says a URL was
   * recorded (an element is inserted into the newest slice of its time, and never again once
   * present). Changes nothing.
   */
  public int sliceContaining(long h1, long h2) {
    BlockedBloomFilter[] s = slices;
    for (int i = 0; i < s.length; i++) {
      if (s[i].mightContain(h1, h2)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Records the element in the newest slice unless a slice already has it (keeps counts honest).
   */
  @Override
  public void add(long h1, long h2) {
    testAndAdd(h1, h2);
  }

  /**
   * {@code seen[i] = testAndAdd(h1[i], h2[i])} for i = 0..n-1 in order; the second pass is those
   * calls, so answers, bits, counters and slice growth are those of the single calls. The first
   * pass loads each element's line in every slice (an unseen element tests them all), independent
   * loads whose misses overlap (memory-level parallelism; group prefetching as in Chen et al., ICDE
   * 2004); see {@link BlockedBloomFilter#testAndAdd(long[], long[], int, boolean[])}.
   * Allocation-free except when a slice is added.
   */
  @Override
  public void testAndAdd(long[] h1, long[] h2, int n, boolean[] seen) {
    BlockedBloomFilter[] s = slices;
    long sum = 0;
    for (int i = 0; i < n; i++) {
      for (BlockedBloomFilter slice : s) {
        sum += slice.touch(h1[i]);
      }
    }
    touched = sum;
    for (int i = 0; i < n; i++) {
      seen[i] = testAndAdd(h1[i], h2[i]);
    }
  }

  /**
   * Counts an element inserted into the newest slice. Before the memory cap only inserts that set a
   * bit count: a URL whose bits are all set is almost always a repeat (the slice's false-positive
   * rate is below its target, at most eps (1 - r)), and counting repeats made a stream with 50%
   * repeats grow its slices at half the distinct count (the job benchmark's 10^7-line stream: two
   * slices, 24 MiB, for 5 million URLs that fit the first slice's 8 MiB). Once the cap stops
   * growth, every presented element counts: the overfilled slice's self-false-positives are many
   * and are part of the blocked model's n (counting only bit-changing inserts made that model 25%
   * low).
   */
  private void presented(int last) {
    if (++header.sliceCount[last] >= header.sliceCapacity[last] && !header.saturated) {
      grow();
    }
  }

  private void grow() {
    int next = header.slices;
    ScalableSpec spec = (ScalableSpec) header.spec;
    long nextBytes =
        ScalableMath.sliceBytes(
            spec.fpr(), spec.capacity(), spec.growth(), spec.tightening(), next);
    if (next >= FilterHeader.MAX_SLICES
        || header.sliceBytes() + nextBytes > spec.maxMemoryBytes()) {
      header.saturated = true;
      return;
    }
    header.addSlice(
        ScalableMath.sliceCapacity(spec.capacity(), spec.growth(), next),
        ScalableMath.sliceFpr(spec.fpr(), spec.tightening(), next));
    BlockedBloomFilter[] grown = Arrays.copyOf(slices, next + 1);
    grown[next] = slice(next);
    slices = grown;
  }

  /**
   * Census of a stored page ({@link PageCensus}): the blocks of the slice its id names ({@link
   * FilterHeader#pageId}), each with its set bits; a page of a slice the header lacks is not the
   * filter's.
   */
  public boolean census(long pageId, long[] words, CensusSink to) {
    int slice = (int) (pageId >>> FilterHeader.SLICE_SHIFT);
    if (slice >= slices.length) {
      return false;
    }
    slices[slice].census(pageId, words, slice, to);
    return true;
  }

  /** Whether the memory cap stopped growth (the last slice is being overfilled). */
  public boolean saturated() {
    return header.saturated;
  }

  @Override
  public FilterHeader header() {
    return header;
  }

  /**
   * Expected fraction of set bits over all slices: 1 - (1 - 1/512)^(k n / blocks) per slice,
   * weighted by size.
   */
  @Override
  public double fillRatio() {
    double set = 0;
    double total = 0;
    for (int i = 0; i < header.slices; i++) {
      double bits = header.sliceBlocks[i] * (double) FilterMath.BLOCK_BITS;
      double perBlock = (double) header.sliceCount[i] / header.sliceBlocks[i];
      set +=
          bits
              * -Math.expm1(header.sliceK[i] * perBlock * Math.log1p(-1.0 / FilterMath.BLOCK_BITS));
      total += bits;
    }
    return total == 0 ? 0 : set / total;
  }

  /**
   * 1 - prod_i (1 - blockedFpr(n_i, blocks_i, k_i)): slices are tested independently (their blocks
   * hold different elements), each at its actual count; at most eps until the cap, rising beyond.
   */
  @Override
  public double estimatedFpr() {
    double pass = 1;
    for (int i = 0; i < header.slices; i++) {
      pass *=
          1 - FilterMath.blockedFpr(header.sliceCount[i], header.sliceBlocks[i], header.sliceK[i]);
    }
    return 1 - pass;
  }

  @Override
  public long sizeBytes() {
    return header.sliceBytes();
  }

  @Override
  public int sliceCount() {
    return header.slices;
  }
}
