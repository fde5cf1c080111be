package io.urldedup.state;

import java.util.Locale;

/**
 * What a job asks for, per shard: the filter kind and its targets. Validated on construction with
 * messages that name the user-facing flag. {@link #newHeader(UrlMapping)} turns it into concrete
 * parameters (cells, K, P, slices) with the sizing math in {@link FilterMath}.
 *
 * <p>Fields that do not apply to the kind are zero.
 *
 * @param kind stable, scalable or aged
 * @param fpr target false-positive rate (stable: the stable-point rate; scalable: the compound
 *     bound)
 * @param memoryBytes stable: bytes of cells for this shard
 * @param cellBits stable: d, bits per cell (1..4), Max = 2^d - 1
 * @param capacity scalable: elements the first slice holds at its error
 * @param growth scalable: s, each slice s times larger (Almeida et al. suggest 2 or 4)
 * @param tightening scalable: r, each slice's error r times the previous (0 < r < 1)
 * @param maxMemoryBytes scalable: hard cap on bytes of slices for this shard
 * @param windowUrls aged, count window: new URLs of this shard during which a URL is suppressed
 * @param windowMillis aged, time window: milliseconds during which a URL is suppressed
 * @param generations aged: l, generations per window; 0 = chosen for a {@link
 *     AgedMath#DEFAULT_SLACK} slack
 * @param rate aged, time window: planned new URLs per second for this shard (sizes the slices)
 */
public record FilterSpec(
    Kind kind,
    double fpr,
    long memoryBytes,
    int cellBits,
    long capacity,
    int growth,
    double tightening,
    long maxMemoryBytes,
    long windowUrls,
    long windowMillis,
    int generations,
    double rate)
    implements java.io.Serializable {

  public enum Kind {
    STABLE,
    SCALABLE,
    AGED
  }

  /** Smallest filter: one 4 KiB page. */
  public static final long MIN_MEMORY_BYTES = PageStore.PAGE_BYTES;

  /** Largest filter per shard: 1 TiB (2^43 bits), far beyond 32-bit indices on purpose. */
  public static final long MAX_MEMORY_BYTES = 1L << 40;

  public static final double MIN_FPR = 1e-9;
  public static final double MAX_FPR = 0.5;
  public static final int MIN_CELL_BITS = 1;
  public static final int MAX_CELL_BITS = 4;
  public static final int MIN_GROWTH = 2;
  public static final int MAX_GROWTH = 16;
  public static final long MAX_CAPACITY = 1L << 40;

  public FilterSpec {
    if (kind == null) {
      throw new IllegalArgumentException(
          "filter kind is required: --filter stable, scalable or aged");
    }
    if (!(fpr >= MIN_FPR && fpr < MAX_FPR)) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--fpr must be a false-positive rate in [%s, %s), e.g. 0.01 or 1e-6; got %s",
              MIN_FPR,
              MAX_FPR,
              fpr));
    }
    if (kind != Kind.AGED
        && (windowUrls != 0 || windowMillis != 0 || generations != 0 || rate != 0)) {
      throw new IllegalArgumentException(
          "--window, --window-urls, --generations and --rate apply to --filter aged only");
    }
    if (kind == Kind.AGED) {
      validateAged(
          fpr,
          windowUrls,
          windowMillis,
          generations,
          rate,
          memoryBytes | cellBits | capacity | growth | maxMemoryBytes | (tightening != 0 ? 1 : 0));
    } else if (kind == Kind.STABLE) {
      if (memoryBytes < MIN_MEMORY_BYTES || memoryBytes > MAX_MEMORY_BYTES) {
        throw new IllegalArgumentException(
            "--memory (per shard) must be between 4096 bytes (one 4 KiB page) and "
                + MAX_MEMORY_BYTES
                + " bytes (1 TiB); got "
                + memoryBytes);
      }
      if (cellBits < MIN_CELL_BITS || cellBits > MAX_CELL_BITS) {
        throw new IllegalArgumentException(
            "--cell-bits must be 1, 2, 3 or 4 (cells count down from 2^d-1); got " + cellBits);
      }
      if (capacity != 0 || growth != 0 || tightening != 0 || maxMemoryBytes != 0) {
        throw new IllegalArgumentException(
            "--capacity, --growth, --tightening and --max-memory apply to --filter scalable only");
      }
    } else {
      if (capacity < 1 || capacity > MAX_CAPACITY) {
        throw new IllegalArgumentException(
            "--capacity (URLs the first slice holds, per shard) must be between 1 and "
                + MAX_CAPACITY
                + "; got "
                + capacity);
      }
      if (growth < MIN_GROWTH || growth > MAX_GROWTH) {
        throw new IllegalArgumentException(
            "--growth must be an integer between "
                + MIN_GROWTH
                + " and "
                + MAX_GROWTH
                + " (2 or 4 recommended); got "
                + growth);
      }
      if (!(tightening > 0 && tightening < 1)) {
        throw new IllegalArgumentException(
            "--tightening must be in (0, 1), e.g. 0.5 (default) or 0.8-0.9; got " + tightening);
      }
      if (maxMemoryBytes < MIN_MEMORY_BYTES || maxMemoryBytes > MAX_MEMORY_BYTES) {
        throw new IllegalArgumentException(
            "--max-memory (per shard) must be between 4096 bytes and "
                + MAX_MEMORY_BYTES
                + " bytes (1 TiB); got "
                + maxMemoryBytes);
      }
      if (memoryBytes != 0 || cellBits != 0) {
        throw new IllegalArgumentException(
            "--memory and --cell-bits apply to --filter stable only");
      }
      long first =
          FilterMath.blockedPages(capacity, fpr * (1 - tightening)) * (long) PageStore.PAGE_BYTES;
      if (first > maxMemoryBytes) {
        throw new IllegalArgumentException(
            "the first slice (--capacity "
                + capacity
                + " at --fpr "
                + fpr
                + " x (1 - --tightening "
                + tightening
                + ")) needs "
                + first
                + " bytes, more than --max-memory "
                + maxMemoryBytes
                + "; raise --max-memory or lower --capacity");
      }
    }
  }

  /** Largest --generations: the slices of a row are the bits of a 64-bit mask (k >= 1). */
  public static final int MAX_GENERATIONS = AgedMath.MAX_SLICES - 1;

  public static final long MAX_WINDOW_MILLIS = 3650L * 24 * 3600 * 1000;

  /**
   * The record's fields are not assigned yet in its compact constructor: validation works on the
   * parameters.
   */
  private static void validateAged(
      double fpr,
      long windowUrls,
      long windowMillis,
      int generations,
      double rate,
      long otherKinds) {
    if ((windowUrls > 0) == (windowMillis > 0) || windowUrls < 0 || windowMillis < 0) {
      throw new IllegalArgumentException(
          "--filter aged needs exactly one of --window DURATION (e.g. 7d) or"
              + " --window-urls N (new URLs, >= 1); got window "
              + windowMillis
              + " ms, window-urls "
              + windowUrls);
    }
    if (windowMillis > MAX_WINDOW_MILLIS) {
      throw new IllegalArgumentException(
          "--window must be at most 3650d; got " + windowMillis + " ms");
    }
    if (generations < 0 || generations > MAX_GENERATIONS) {
      throw new IllegalArgumentException(
          "--generations must be between 1 and "
              + MAX_GENERATIONS
              + " (or unset: chosen for a "
              + Math.round(AgedMath.DEFAULT_SLACK * 100)
              + "% slack); got "
              + generations);
    }
    if (windowMillis > 0 ? !(rate > 0 && rate < 1e12) : rate != 0) {
      throw new IllegalArgumentException(
          windowMillis > 0
              ? "--window DURATION needs --rate URLS/s, the expected new URLs per second (> 0; sizes the slices); got "
                  + rate
              : "--rate applies to time windows (--window DURATION), not to --window-urls");
    }
    if (otherKinds != 0) {
      throw new IllegalArgumentException(
          "--memory, --cell-bits, --capacity, --growth, --tightening and --max-memory"
              + " do not apply to --filter aged (its size follows from the window, --fpr and --rate)");
    }
    AgedMath.Geometry g = agedGeometry(fpr, windowUrls, windowMillis, generations, rate);
    if (g.bytes() > MAX_MEMORY_BYTES) {
      throw new IllegalArgumentException(
          "--filter aged would need "
              + g.bytes()
              + " bytes per shard (more than 1 TiB):"
              + " shorten the window, lower --rate, raise --fpr or add --shards");
    }
  }

  /**
   * A stable Bloom filter of {@code memoryBytes} per shard with d-bit cells at stable FPR {@code
   * fpr}.
   */
  public static FilterSpec stable(double fpr, long memoryBytes, int cellBits) {
    return new FilterSpec(Kind.STABLE, fpr, memoryBytes, cellBits, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /**
   * A scalable Bloom filter per shard: compound FPR bound {@code fpr}, first slice {@code
   * capacity}.
   */
  public static FilterSpec scalable(
      double fpr, long capacity, int growth, double tightening, long maxMemoryBytes) {
    return new FilterSpec(
        Kind.SCALABLE, fpr, 0, 0, capacity, growth, tightening, maxMemoryBytes, 0, 0, 0, 0);
  }

  /** An aged filter over a window of {@code windowUrls} new URLs of this shard. */
  public static FilterSpec agedCount(double fpr, long windowUrls, int generations) {
    return new FilterSpec(Kind.AGED, fpr, 0, 0, 0, 0, 0, 0, windowUrls, 0, generations, 0);
  }

  /**
   * An aged filter over a time window, sized for {@code rate} new URLs per second of this shard.
   */
  public static FilterSpec agedTime(double fpr, long windowMillis, int generations, double rate) {
    return new FilterSpec(Kind.AGED, fpr, 0, 0, 0, 0, 0, 0, 0, windowMillis, generations, rate);
  }

  /**
   * Aged, time window: milliseconds per generation, ceil(window / l), so that l generations cover
   * the window.
   */
  public long generationMillis() {
    return generationMillis(fpr, windowMillis, generations);
  }

  private static long generationMillis(double fpr, long windowMillis, int generations) {
    int l = AgedMath.sizing(fpr, generations, AgedMath.DEFAULT_SLACK).l();
    return Math.max(1, (windowMillis + l - 1) / l);
  }

  /**
   * Aged: the concrete layout. Count window: g = ceil(window / l) inserts per generation, so l g >=
   * the window. Time window: g = ceil(rate x generation length), the planned inserts per
   * generation; reaching it early advances early.
   */
  public AgedMath.Geometry agedGeometry() {
    return agedGeometry(fpr, windowUrls, windowMillis, generations, rate);
  }

  private static AgedMath.Geometry agedGeometry(
      double fpr, long windowUrls, long windowMillis, int generations, double rate) {
    int l = AgedMath.sizing(fpr, generations, AgedMath.DEFAULT_SLACK).l();
    long g =
        windowUrls > 0
            ? (windowUrls + l - 1) / l
            : Math.max(
                1,
                (long) Math.ceil(rate * generationMillis(fpr, windowMillis, generations) / 1000.0));
    return AgedMath.geometry(fpr, generations, AgedMath.DEFAULT_SLACK, g);
  }

  /** Aged: whether generations advance on time. */
  public boolean timed() {
    return windowMillis > 0;
  }

  /**
   * Throws {@link IncompatibleStateException} if a filter built from this spec (the state's) cannot
   * serve {@code now}: another kind or another parameter. The scalable {@code --max-memory} may
   * change (raising it lets the filter grow again, {@link FilterHeader#adopt}). The aged window and
   * rate are per shard here; the flags are totals (the job divides them).
   */
  public void checkServes(FilterSpec now) {
    if (now.kind != kind) {
      throw new IncompatibleStateException(
          "state holds a "
              + lower(kind)
              + " filter but --filter is "
              + lower(now.kind)
              + "; restore with --filter "
              + lower(kind)
              + " or start from empty state");
    }
    Differences diff = new Differences().add("--fpr", fpr, now.fpr);
    switch (kind) {
      case AGED ->
          diff.add("--window-urls (per shard)", windowUrls, now.windowUrls)
              .add("--window (ms)", windowMillis, now.windowMillis)
              .add("--generations", generations, now.generations)
              .add("--rate (per shard)", rate, now.rate);
      case STABLE ->
          diff.add("--memory", memoryBytes, now.memoryBytes)
              .add("--cell-bits", cellBits, now.cellBits);
      case SCALABLE ->
          diff.add("--capacity", capacity, now.capacity)
              .add("--growth", growth, now.growth)
              .add("--tightening", tightening, now.tightening);
    }
    if (!diff.isEmpty()) {
      throw new IncompatibleStateException(
          "state was written with different filter parameters ("
              + diff
              + "); restore with the original values or start from empty state");
    }
  }

  private static String lower(Kind k) {
    return k.name().toLowerCase(Locale.ROOT);
  }

  /** Concrete parameters for an empty filter written under {@code mapping}. */
  public FilterHeader newHeader(UrlMapping mapping) {
    if (kind == Kind.AGED) {
      return FilterHeader.aged(this, mapping);
    }
    if (kind == Kind.STABLE) {
      StableMath.Geometry g = StableMath.geometry(fpr, memoryBytes, cellBits);
      return FilterHeader.stable(this, mapping, g);
    }
    FilterHeader h = FilterHeader.scalable(this, mapping);
    h.addSlice(capacity, fpr * (1 - tightening));
    return h;
  }

  /**
   * An empty filter that records only the seed fingerprint (no shard count, no canonicalization):
   * tools, tests.
   */
  public FilterHeader newHeader(long seedFingerprint) {
    return newHeader(UrlMapping.seedOnly(seedFingerprint));
  }
}
