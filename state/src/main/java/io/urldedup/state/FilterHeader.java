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

  /** The layout version this header was read with (its {@link #writeVersion()} when built here). */
  final int formatVersion;

  /** Seed fingerprint, shard count, canonicalization; UNKNOWN parts in version 1 until adopted. */
  UrlMapping mapping;

  /** As asked; a scalable filter's memory cap may be raised by a restore ({@link #adopt}). */
  FilterSpec spec;

  // counters: stable: inserts (testAndAdd answered unseen, and add); scalable: elements answered
  // unseen; aged: in the clock
  long inserts;

  /** Stable: K, P and the block layout; null for the other kinds. */
  final StableMath.Geometry stable;

  // scalable: the slices; sliceCount[i]: elements inserted into slice i (not found in an older one)
  boolean saturated;
  int slices;
  long[] sliceCapacity = new long[0];
  double[] sliceFpr = new double[0];
  long[] sliceBlocks = new long[0];
  int[] sliceK = new int[0];
  long[] sliceCount = new long[0];

  // aged: the layout, the generation length of time windows (0 for count windows), the clock
  AgedMath.Geometry aged;
  long generationMillis;
  AgedClock clock;

  FilterHeader(int formatVersion, UrlMapping mapping, FilterSpec spec, StableMath.Geometry stable) {
    this.formatVersion = formatVersion;
    this.mapping = Objects.requireNonNull(mapping);
    this.spec = Objects.requireNonNull(spec);
    this.stable = stable;
  }

  static FilterHeader stable(StableSpec s, UrlMapping m, StableMath.Geometry g) {
    return new FilterHeader(2, m, s, Objects.requireNonNull(g));
  }

  static FilterHeader scalable(ScalableSpec s, UrlMapping m) {
    return new FilterHeader(2, m, s, null);
  }

  /**
   * An empty aged header with a given layout and generation length (golden tests pin the geometry
   * state was written with; sizing may change).
   */
  static FilterHeader aged(
      AgedSpec s, UrlMapping m, AgedMath.Geometry geometry, long generationMillis) {
    FilterHeader h = new FilterHeader(geometry.layout() == 1 ? 3 : 4, m, s, null);
    h.setAged(geometry, generationMillis, new AgedClock());
    return h;
  }

  void setAged(AgedMath.Geometry geometry, long generationMillis, AgedClock clock) {
    this.aged = geometry;
    this.generationMillis = generationMillis;
    this.clock = clock;
  }

  /** Aged: the concrete layout (kind AGED only). */
  public AgedMath.Geometry agedGeometry() {
    if (aged == null) {
      throw new IllegalStateException("not an aged filter: " + kind());
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
    return switch (kind()) {
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
    return spec.kind();
  }

  public int formatVersion() {
    return formatVersion;
  }

  public long seedFingerprint() {
    return mapping.seedFingerprint();
  }

  /**
   * Seed fingerprint, shard count and canonicalization this state was written under (UNKNOWN parts
   * in v1 state).
   */
  public UrlMapping mapping() {
    return mapping;
  }

  /** The spec this header was built from (with the current memory cap). */
  public FilterSpec spec() {
    return spec;
  }

  /**
   * Stable: inserts so far (repeats are reads); scalable: elements answered unseen so far; aged:
   * inserts.
   */
  public long inserts() {
    return clock != null ? clock.inserts : inserts;
  }

  /** Stable filter geometry (kind STABLE only). */
  public StableMath.Geometry stableGeometry() {
    if (stable == null) {
      throw new IllegalStateException("not a stable filter: " + kind());
    }
    return stable;
  }

  /** Scalable: slices in the chain; aged: k + l; stable: 1. */
  public int slices() {
    return switch (kind()) {
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
    mapping.checkServes(now, allowCanonicalizationChange);
    this.spec.checkServes(spec);
  }

  /** {@link UrlMapping#canonicalizationChange} of this state's mapping. */
  public String canonicalizationChange(UrlMapping now) {
    return mapping.canonicalizationChange(now);
  }

  /**
   * Takes over what may change across restores (call after {@link #checkCompatible}): the scalable
   * memory cap (raising it lets the filter grow again), an UNKNOWN shard count or canonicalization
   * (version 1 state), and an allowed canonicalization change.
   */
  public void adopt(FilterSpec now, UrlMapping nowMapping) {
    if (spec instanceof ScalableSpec s
        && now instanceof ScalableSpec n
        && n.maxMemoryBytes() != s.maxMemoryBytes()) {
      spec = s.withMaxMemoryBytes(n.maxMemoryBytes());
      saturated = false;
    }
    int shards = mapping.shards() == UrlMapping.UNKNOWN ? nowMapping.shards() : mapping.shards();
    mapping =
        nowMapping.canonicalizationFingerprint() != UrlMapping.UNKNOWN
            ? new UrlMapping(
                mapping.seedFingerprint(),
                shards,
                nowMapping.canonicalizationFingerprint(),
                nowMapping.canonicalizationSettings())
            : new UrlMapping(
                mapping.seedFingerprint(),
                shards,
                mapping.canonicalizationFingerprint(),
                mapping.canonicalizationSettings());
  }

  /** A deep copy. */
  public FilterHeader copy() {
    FilterHeader h = new FilterHeader(formatVersion, mapping, spec, stable);
    h.inserts = inserts;
    h.saturated = saturated;
    h.slices = slices;
    h.sliceCapacity = sliceCapacity.clone();
    h.sliceFpr = sliceFpr.clone();
    h.sliceBlocks = sliceBlocks.clone();
    h.sliceK = sliceK.clone();
    h.sliceCount = sliceCount.clone();
    if (clock != null) {
      h.setAged(aged, generationMillis, clock.copy());
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
    return mapping.equals(h.mapping)
        && spec.equals(h.spec)
        && inserts == h.inserts
        && Objects.equals(stable, h.stable)
        && saturated == h.saturated
        && slices == h.slices
        && Arrays.equals(sliceCapacity, h.sliceCapacity)
        && Arrays.equals(sliceFpr, h.sliceFpr)
        && Arrays.equals(sliceBlocks, h.sliceBlocks)
        && Arrays.equals(sliceK, h.sliceK)
        && Arrays.equals(sliceCount, h.sliceCount)
        && Objects.equals(aged, h.aged)
        && generationMillis == h.generationMillis
        && Objects.equals(clock, h.clock);
  }

  @Override
  public int hashCode() {
    return Objects.hash(spec, mapping, inserts, slices, Arrays.hashCode(sliceCount));
  }

  @Override
  public String toString() {
    if (spec instanceof AgedSpec a) {
      return String.format(
          Locale.ROOT,
          "FilterHeader{aged, v%d, fpr=%s, %s, generations=%d, layout=%d, lines=%d, k=%d, l=%d, rows=%d, g=%d, %s}",
          formatVersion,
          a.fpr(),
          a.timed()
              ? "window="
                  + a.windowMillis()
                  + "ms, rate="
                  + a.rate()
                  + "/s, generation="
                  + generationMillis
                  + "ms"
              : "window-urls=" + a.windowUrls(),
          a.generations(),
          aged.layout(),
          aged.rowLines(),
          aged.k(),
          aged.l(),
          aged.rows(),
          aged.generationSize(),
          clock);
    }
    if (spec instanceof StableSpec s) {
      return String.format(
          Locale.ROOT,
          "FilterHeader{stable, v%d, shards=%d, fpr=%s, d=%d, K=%d, P=%d, blockWords=%d, blocks=%d, inserts=%d}",
          formatVersion,
          mapping.shards(),
          s.fpr(),
          s.cellBits(),
          stable.k(),
          stable.p(),
          stable.blockWords(),
          stable.blocks(),
          inserts);
    }
    ScalableSpec s = (ScalableSpec) spec;
    return String.format(
        Locale.ROOT,
        "FilterHeader{scalable, v%d, shards=%d, fpr=%s, capacity=%d, growth=%d, tightening=%s, maxMemory=%d,"
            + " slices=%d, inserts=%d, saturated=%s}",
        formatVersion,
        mapping.shards(),
        s.fpr(),
        s.capacity(),
        s.growth(),
        s.tightening(),
        s.maxMemoryBytes(),
        slices,
        inserts,
        saturated);
  }
}
