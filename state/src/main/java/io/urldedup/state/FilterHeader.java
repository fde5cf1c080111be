package io.urldedup.state;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * The small, mutable, persisted part of one shard's filter: kind, format version, the {@link
 * UrlMapping} (seed fingerprint, never the seed; shard count; canonicalization fingerprint), the
 * spec it was built from, the concrete geometry, insert counters and, for the scalable filter, its
 * slices. The bulk of the filter lives in pages of a {@link PageStore}.
 *
 * <p>Inserts mutate the counters in place; the operator persists the header with {@link
 * FilterHeaderSerializer}; the tests' {@code FilterFormat} writes it with the pages.
 */
public final class FilterHeader {

  /**
   * Newest version of the header's persisted layout (FilterHeaderSerializer; tests' FilterFormat).
   * 1: the original; 2: appends the shard count and the canonicalization fingerprint and settings
   * (read from version 1 as {@link UrlMapping#UNKNOWN}, which accepts and adopts the current
   * values); 3: adds kind 2 (aged), whose headers append the window, generations, rate, geometry
   * and clock (aged filter layout 1); 4: aged headers append the filter layout and its row size
   * (layout 2, rows of cache lines). Stable and scalable headers are laid out as in 2.
   *
   * <p>A header is written in the lowest version that represents it ({@link #writeVersion()}):
   * stable and scalable 2, aged 3 (layout 1) or 4 (layout 2), so that a build that predates a
   * version still reads the state that does not need it (a rollback).
   */
  public static final int FORMAT_VERSION = 4;

  /** Slices are addressed by the top 16 bits of the page id; far more than any cap allows. */
  public static final int MAX_SLICES = 64;

  /** Page id = slice << SLICE_SHIFT | page within slice. */
  public static final int SLICE_SHIFT = 48;

  final FilterSpec.Kind kind;

  /** The layout version this header was read with (its {@link #writeVersion()} when built here). */
  final int formatVersion;

  final long seedFingerprint;
  // the rest of the UrlMapping; UNKNOWN in version 1 headers until adopted
  int shards;
  long canonicalizationFingerprint;
  String canonicalizationSettings = "";
  // the spec, as given
  final double fpr;
  final long memoryBytes;
  final int cellBits;
  final long capacity;
  final int growth;
  final double tightening;
  long maxMemoryBytes;
  // counters: stable: inserts (testAndAdd answered unseen, and add); scalable: elements answered
  // unseen.
  // sliceCount[i]: elements inserted into slice i (not found in an older slice)
  long inserts;
  // stable geometry
  final int k;
  final int p;
  final int blockWords;
  final long blocks;
  // scalable slices
  boolean saturated;
  int slices;
  long[] sliceCapacity = new long[0];
  double[] sliceFpr = new double[0];
  long[] sliceBlocks = new long[0];
  int[] sliceK = new int[0];
  long[] sliceCount = new long[0];
  // aged: the spec's window (one of the two), generations as asked (0 = default), rate per shard;
  // the concrete layout, the generation length of time windows, and the clock (counters)
  long windowUrls;
  long windowMillis;
  int generations;
  double rate;
  AgedMath.Geometry aged;
  long generationMillis;
  AgedClock clock;

  FilterHeader(
      FilterSpec.Kind kind,
      int formatVersion,
      long seedFingerprint,
      double fpr,
      long memoryBytes,
      int cellBits,
      long capacity,
      int growth,
      double tightening,
      long maxMemoryBytes,
      int k,
      int p,
      int blockWords,
      long blocks) {
    this.kind = Objects.requireNonNull(kind);
    this.formatVersion = formatVersion;
    this.seedFingerprint = seedFingerprint;
    this.fpr = fpr;
    this.memoryBytes = memoryBytes;
    this.cellBits = cellBits;
    this.capacity = capacity;
    this.growth = growth;
    this.tightening = tightening;
    this.maxMemoryBytes = maxMemoryBytes;
    this.k = k;
    this.p = p;
    this.blockWords = blockWords;
    this.blocks = blocks;
  }

  static FilterHeader stable(FilterSpec s, UrlMapping m, StableMath.Geometry g) {
    return new FilterHeader(
            FilterSpec.Kind.STABLE,
            2,
            m.seedFingerprint(),
            s.fpr(),
            s.memoryBytes(),
            s.cellBits(),
            0,
            0,
            0,
            0,
            g.k(),
            g.p(),
            g.blockWords(),
            g.blocks())
        .bind(m);
  }

  static FilterHeader scalable(FilterSpec s, UrlMapping m) {
    return new FilterHeader(
            FilterSpec.Kind.SCALABLE,
            2,
            m.seedFingerprint(),
            s.fpr(),
            0,
            0,
            s.capacity(),
            s.growth(),
            s.tightening(),
            s.maxMemoryBytes(),
            0,
            0,
            0,
            0)
        .bind(m);
  }

  /** Records the shard count and canonicalization of {@code m} (the seed fingerprint is final). */
  FilterHeader bind(UrlMapping m) {
    shards = m.shards();
    canonicalizationFingerprint = m.canonicalizationFingerprint();
    canonicalizationSettings = m.canonicalizationSettings();
    return this;
  }

  static FilterHeader aged(FilterSpec s, UrlMapping m) {
    return aged(s, m, s.agedGeometry(), s.timed() ? s.generationMillis() : 0);
  }

  /**
   * An empty aged header with a given layout and generation length rather than the current sizing's
   * (golden tests pin the geometry state was written with; sizing may change).
   */
  static FilterHeader aged(
      FilterSpec s, UrlMapping m, AgedMath.Geometry geometry, long generationMillis) {
    FilterHeader h =
        new FilterHeader(
                FilterSpec.Kind.AGED,
                geometry.layout() == 1 ? 3 : 4,
                m.seedFingerprint(),
                s.fpr(),
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0)
            .bind(m);
    h.setAged(
        s.windowUrls(),
        s.windowMillis(),
        s.generations(),
        s.rate(),
        geometry,
        generationMillis,
        new AgedClock());
    return h;
  }

  void setAged(
      long windowUrls,
      long windowMillis,
      int generations,
      double rate,
      AgedMath.Geometry geometry,
      long generationMillis,
      AgedClock clock) {
    this.windowUrls = windowUrls;
    this.windowMillis = windowMillis;
    this.generations = generations;
    this.rate = rate;
    this.aged = geometry;
    this.generationMillis = generationMillis;
    this.clock = clock;
  }

  /** Aged: the concrete layout (kind AGED only). */
  public AgedMath.Geometry agedGeometry() {
    if (kind != FilterSpec.Kind.AGED) {
      throw new IllegalStateException("not an aged filter: " + kind);
    }
    return aged;
  }

  /**
   * Aged: generation, fill of the current one, time step, early advances (mutable: the filter's
   * clock).
   */
  public AgedClock agedClock() {
    return clock;
  }

  /**
   * Aged: the filter's row layout, 1 (a 64-bit word per slice, page stamps; header layout 3) or 2
   * (rows of {@link AgedMath.Geometry#rowLines} cache lines with their own stamp; header layout 4).
   * Stable accessor (inspect reads it).
   */
  public int agedLayout() {
    return agedGeometry().layout();
  }

  /**
   * Aged: generations the ring has turned since the filter was created. Stable accessor (inspect).
   */
  public long agedGeneration() {
    agedGeometry();
    return clock.generation();
  }

  /**
   * Aged: the fill of the current generation, its inserts over the planned g (0..1; 1 means the
   * next insert turns the ring, early for a time window). Stable accessor (inspect).
   */
  public double agedGenerationFill() {
    return (double) clock.count() / agedGeometry().generationSize();
  }

  /**
   * Aged, time window: generations that reached their planned size before their time (the rate was
   * above --rate; each shortened the window), since the filter was created; 0 for count windows.
   * Persisted, so it survives restores (the metric of the same name counts per run). Stable
   * accessor (inspect).
   */
  public long generationsAdvancedEarly() {
    agedGeometry();
    return clock.earlyAdvances();
  }

  /**
   * The layout version this header is written in: the lowest that represents it (stable and
   * scalable 2, aged layout 1: 3, aged layout 2: 4).
   */
  public int writeVersion() {
    return switch (kind) {
      case STABLE, SCALABLE -> 2;
      case AGED -> aged.layout() == 1 ? 3 : 4;
    };
  }

  /**
   * Aged, time window: milliseconds per generation, as persisted (the restored filter's, not what
   * today's sizing would choose); 0 for count windows.
   */
  public long generationMillis() {
    return generationMillis;
  }

  /** Appends a slice sized for {@code cap} elements at {@code sliceFpr}; returns its index. */
  int addSlice(long cap, double eps) {
    FilterMath.BlockedSizing sz = FilterMath.blockedSizing(eps);
    long b = Math.max(1, (long) Math.ceil(sz.bitsPerElement() * cap / FilterMath.BLOCK_BITS));
    appendSlice(cap, eps, b, sz.k(), 0);
    return slices - 1;
  }

  void appendSlice(long cap, double eps, long b, int sk, long count) {
    int i = slices;
    if (i >= MAX_SLICES) {
      throw new IllegalStateException("a scalable filter holds at most " + MAX_SLICES + " slices");
    }
    sliceCapacity = Arrays.copyOf(sliceCapacity, i + 1);
    sliceFpr = Arrays.copyOf(sliceFpr, i + 1);
    sliceBlocks = Arrays.copyOf(sliceBlocks, i + 1);
    sliceK = Arrays.copyOf(sliceK, i + 1);
    sliceCount = Arrays.copyOf(sliceCount, i + 1);
    sliceCapacity[i] = cap;
    sliceFpr[i] = eps;
    sliceBlocks[i] = b;
    sliceK[i] = sk;
    sliceCount[i] = count;
    slices = i + 1;
  }

  /** Bytes (whole pages) of the slices so far. */
  long sliceBytes() {
    long total = 0;
    for (int i = 0; i < slices; i++) {
      total += FilterMath.pagesForBlocks(sliceBlocks[i]) * PageStore.PAGE_BYTES;
    }
    return total;
  }

  /** Page id of page {@code page} of slice {@code slice}. */
  public static long pageId(int slice, long page) {
    return ((long) slice << SLICE_SHIFT) | page;
  }

  public FilterSpec.Kind kind() {
    return kind;
  }

  public int formatVersion() {
    return formatVersion;
  }

  public long seedFingerprint() {
    return seedFingerprint;
  }

  /**
   * Seed fingerprint, shard count and canonicalization this state was written under (UNKNOWN parts
   * in v1 state).
   */
  public UrlMapping mapping() {
    return new UrlMapping(
        seedFingerprint, shards, canonicalizationFingerprint, canonicalizationSettings);
  }

  /** The spec this header was built from (with the current memory cap). */
  public FilterSpec spec() {
    return switch (kind) {
      case STABLE -> FilterSpec.stable(fpr, memoryBytes, cellBits);
      case SCALABLE -> FilterSpec.scalable(fpr, capacity, growth, tightening, maxMemoryBytes);
      case AGED ->
          new FilterSpec(
              FilterSpec.Kind.AGED,
              fpr,
              0,
              0,
              0,
              0,
              0,
              0,
              windowUrls,
              windowMillis,
              generations,
              rate);
    };
  }

  /**
   * Stable: inserts so far (repeats are reads); scalable: elements answered unseen so far; aged:
   * inserts.
   */
  public long inserts() {
    return kind == FilterSpec.Kind.AGED ? clock.inserts : inserts;
  }

  /** Stable filter geometry (kind STABLE only). */
  public StableMath.Geometry stableGeometry() {
    if (kind != FilterSpec.Kind.STABLE) {
      throw new IllegalStateException("not a stable filter: " + kind);
    }
    return new StableMath.Geometry(cellBits, k, p, blockWords, blocks);
  }

  /** Scalable: slices in the chain; aged: k + l; stable: 1. */
  public int slices() {
    return switch (kind) {
      case STABLE -> 1;
      case SCALABLE -> slices;
      case AGED -> aged.slices();
    };
  }

  public boolean saturated() {
    return saturated;
  }

  public long sliceCapacity(int i) {
    return sliceCapacity[i];
  }

  public double sliceFpr(int i) {
    return sliceFpr[i];
  }

  public long sliceBlocks(int i) {
    return sliceBlocks[i];
  }

  public int sliceK(int i) {
    return sliceK[i];
  }

  public long sliceCount(int i) {
    return sliceCount[i];
  }

  /**
   * Throws {@link IncompatibleStateException} if state written under this header cannot serve
   * {@code spec} under mapping {@code now}: a newer format, another mapping ({@link
   * UrlMapping#checkServes}) or another filter ({@link FilterSpec#checkServes}).
   */
  public void checkCompatible(
      FilterSpec spec, UrlMapping now, boolean allowCanonicalizationChange) {
    if (formatVersion > FORMAT_VERSION) {
      throw new IncompatibleStateException(
          "state was written by a newer urldedup (filter format version "
              + formatVersion
              + ", this build reads up to "
              + FORMAT_VERSION
              + "); upgrade, or start from empty state");
    }
    mapping().checkServes(now, allowCanonicalizationChange);
    spec().checkServes(spec);
  }

  /** {@link UrlMapping#canonicalizationChange} of this state's mapping. */
  public String canonicalizationChange(UrlMapping now) {
    return mapping().canonicalizationChange(now);
  }

  /**
   * Takes over what may change across restores (call after {@link #checkCompatible}): the scalable
   * memory cap (raising it lets the filter grow again), an UNKNOWN shard count or canonicalization
   * (version 1 state), and an allowed canonicalization change.
   */
  public void adopt(FilterSpec spec, UrlMapping now) {
    if (kind == FilterSpec.Kind.SCALABLE
        && spec.kind() == kind
        && spec.maxMemoryBytes() != maxMemoryBytes) {
      maxMemoryBytes = spec.maxMemoryBytes();
      saturated = false;
    }
    if (shards == UrlMapping.UNKNOWN) {
      shards = now.shards();
    }
    if (now.canonicalizationFingerprint() != UrlMapping.UNKNOWN) {
      canonicalizationFingerprint = now.canonicalizationFingerprint();
      canonicalizationSettings = now.canonicalizationSettings();
    }
  }

  /** A deep copy. */
  public FilterHeader copy() {
    FilterHeader h =
        new FilterHeader(
            kind,
            formatVersion,
            seedFingerprint,
            fpr,
            memoryBytes,
            cellBits,
            capacity,
            growth,
            tightening,
            maxMemoryBytes,
            k,
            p,
            blockWords,
            blocks);
    h.shards = shards;
    h.canonicalizationFingerprint = canonicalizationFingerprint;
    h.canonicalizationSettings = canonicalizationSettings;
    h.inserts = inserts;
    h.saturated = saturated;
    h.slices = slices;
    h.sliceCapacity = sliceCapacity.clone();
    h.sliceFpr = sliceFpr.clone();
    h.sliceBlocks = sliceBlocks.clone();
    h.sliceK = sliceK.clone();
    h.sliceCount = sliceCount.clone();
    if (kind == FilterSpec.Kind.AGED) {
      h.setAged(windowUrls, windowMillis, generations, rate, aged, generationMillis, clock.copy());
    }
    return h;
  }

  /** Equal content; not the layout version it was read with (a v1 header equals its v2 rewrite). */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof FilterHeader h)) {
      return false;
    }
    return kind == h.kind
        && seedFingerprint == h.seedFingerprint
        && shards == h.shards
        && canonicalizationFingerprint == h.canonicalizationFingerprint
        && canonicalizationSettings.equals(h.canonicalizationSettings)
        && Double.compare(fpr, h.fpr) == 0
        && memoryBytes == h.memoryBytes
        && cellBits == h.cellBits
        && capacity == h.capacity
        && growth == h.growth
        && Double.compare(tightening, h.tightening) == 0
        && maxMemoryBytes == h.maxMemoryBytes
        && inserts == h.inserts
        && k == h.k
        && p == h.p
        && blockWords == h.blockWords
        && blocks == h.blocks
        && saturated == h.saturated
        && slices == h.slices
        && Arrays.equals(sliceCapacity, h.sliceCapacity)
        && Arrays.equals(sliceFpr, h.sliceFpr)
        && Arrays.equals(sliceBlocks, h.sliceBlocks)
        && Arrays.equals(sliceK, h.sliceK)
        && Arrays.equals(sliceCount, h.sliceCount)
        && windowUrls == h.windowUrls
        && windowMillis == h.windowMillis
        && generations == h.generations
        && Double.compare(rate, h.rate) == 0
        && Objects.equals(aged, h.aged)
        && generationMillis == h.generationMillis
        && Objects.equals(clock, h.clock);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        kind, seedFingerprint, inserts, blocks, slices, Arrays.hashCode(sliceCount));
  }

  @Override
  public String toString() {
    if (kind == FilterSpec.Kind.AGED) {
      return String.format(
          Locale.ROOT,
          "FilterHeader{aged, v%d, fpr=%s, %s, generations=%d, layout=%d, lines=%d, k=%d, l=%d, rows=%d, g=%d, %s}",
          formatVersion,
          fpr,
          windowMillis > 0
              ? "window="
                  + windowMillis
                  + "ms, rate="
                  + rate
                  + "/s, generation="
                  + generationMillis
                  + "ms"
              : "window-urls=" + windowUrls,
          generations,
          aged.layout(),
          aged.rowLines(),
          aged.k(),
          aged.l(),
          aged.rows(),
          aged.generationSize(),
          clock);
    }
    if (kind == FilterSpec.Kind.STABLE) {
      return String.format(
          Locale.ROOT,
          "FilterHeader{stable, v%d, shards=%d, fpr=%s, d=%d, K=%d, P=%d, blockWords=%d, blocks=%d, inserts=%d}",
          formatVersion,
          shards,
          fpr,
          cellBits,
          k,
          p,
          blockWords,
          blocks,
          inserts);
    }
    return String.format(
        Locale.ROOT,
        "FilterHeader{scalable, v%d, shards=%d, fpr=%s, capacity=%d, growth=%d, tightening=%s, maxMemory=%d,"
            + " slices=%d, inserts=%d, saturated=%s}",
        formatVersion,
        shards,
        fpr,
        capacity,
        growth,
        tightening,
        maxMemoryBytes,
        slices,
        inserts,
        saturated);
  }
}
