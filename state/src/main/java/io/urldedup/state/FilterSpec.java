package io.urldedup.state;

import java.util.Locale;

/**
 * What a job asks for, per shard: the filter kind and its targets. Validated on construction with
 * messages that name the user-facing flag. {@link #newHeader(UrlMapping)} turns it into concrete
 * parameters (cells, K, P, slices) with the sizing math in {@link FilterMath}.
 *
 * <p>Fields that do not apply to the kind are zero.
 *
 * @param kind            stable or scalable
 * @param fpr             target false-positive rate (stable: the stable-point rate; scalable: the compound bound)
 * @param memoryBytes     stable: bytes of cells for this shard
 * @param cellBits        stable: d, bits per cell (1..4), Max = 2^d - 1
 * @param capacity        scalable: elements the first slice holds at its error
 * @param growth          scalable: s, each slice s times larger (Almeida et al. suggest 2 or 4)
 * @param tightening      scalable: r, each slice's error r times the previous (0 < r < 1)
 * @param maxMemoryBytes  scalable: hard cap on bytes of slices for this shard
 */
public record FilterSpec(
    Kind kind,
    double fpr,
    long memoryBytes,
    int cellBits,
    long capacity,
    int growth,
    double tightening,
    long maxMemoryBytes) implements java.io.Serializable {

  public enum Kind { STABLE, SCALABLE }

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
      throw new IllegalArgumentException("filter kind is required: --filter stable or --filter scalable");
    }
    if (!(fpr >= MIN_FPR && fpr < MAX_FPR)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "--fpr must be a false-positive rate in [%s, %s), e.g. 0.01 or 1e-6; got %s", MIN_FPR, MAX_FPR, fpr));
    }
    if (kind == Kind.STABLE) {
      if (memoryBytes < MIN_MEMORY_BYTES || memoryBytes > MAX_MEMORY_BYTES) {
        throw new IllegalArgumentException("--memory (per shard) must be between 4096 bytes (one 4 KiB page) and "
            + MAX_MEMORY_BYTES + " bytes (1 TiB); got " + memoryBytes);
      }
      if (cellBits < MIN_CELL_BITS || cellBits > MAX_CELL_BITS) {
        throw new IllegalArgumentException("--cell-bits must be 1, 2, 3 or 4 (cells count down from 2^d-1); got " + cellBits);
      }
      if (capacity != 0 || growth != 0 || tightening != 0 || maxMemoryBytes != 0) {
        throw new IllegalArgumentException(
            "--capacity, --growth, --tightening and --max-memory apply to --filter scalable only");
      }
    } else {
      if (capacity < 1 || capacity > MAX_CAPACITY) {
        throw new IllegalArgumentException("--capacity (URLs the first slice holds, per shard) must be between 1 and "
            + MAX_CAPACITY + "; got " + capacity);
      }
      if (growth < MIN_GROWTH || growth > MAX_GROWTH) {
        throw new IllegalArgumentException("--growth must be an integer between " + MIN_GROWTH + " and " + MAX_GROWTH
            + " (2 or 4 recommended); got " + growth);
      }
      if (!(tightening > 0 && tightening < 1)) {
        throw new IllegalArgumentException(
            "--tightening must be in (0, 1), e.g. 0.5 (default) or 0.8-0.9; got " + tightening);
      }
      if (maxMemoryBytes < MIN_MEMORY_BYTES || maxMemoryBytes > MAX_MEMORY_BYTES) {
        throw new IllegalArgumentException("--max-memory (per shard) must be between 4096 bytes and "
            + MAX_MEMORY_BYTES + " bytes (1 TiB); got " + maxMemoryBytes);
      }
      if (memoryBytes != 0 || cellBits != 0) {
        throw new IllegalArgumentException("--memory and --cell-bits apply to --filter stable only");
      }
      long first = FilterMath.blockedPages(capacity, fpr * (1 - tightening)) * (long) PageStore.PAGE_BYTES;
      if (first > maxMemoryBytes) {
        throw new IllegalArgumentException("the first slice (--capacity " + capacity + " at --fpr " + fpr
            + " x (1 - --tightening " + tightening + ")) needs " + first + " bytes, more than --max-memory "
            + maxMemoryBytes + "; raise --max-memory or lower --capacity");
      }
    }
  }

  /** A stable Bloom filter of {@code memoryBytes} per shard with d-bit cells at stable FPR {@code fpr}. */
  public static FilterSpec stable(double fpr, long memoryBytes, int cellBits) {
    return new FilterSpec(Kind.STABLE, fpr, memoryBytes, cellBits, 0, 0, 0, 0);
  }

  /** A scalable Bloom filter per shard: compound FPR bound {@code fpr}, first slice {@code capacity}. */
  public static FilterSpec scalable(double fpr, long capacity, int growth, double tightening, long maxMemoryBytes) {
    return new FilterSpec(Kind.SCALABLE, fpr, 0, 0, capacity, growth, tightening, maxMemoryBytes);
  }

  /** Concrete parameters for an empty filter written under {@code mapping}. */
  public FilterHeader newHeader(UrlMapping mapping) {
    if (kind == Kind.STABLE) {
      FilterMath.StableGeometry g = FilterMath.stableGeometry(fpr, memoryBytes, cellBits);
      return FilterHeader.stable(this, mapping, g);
    }
    FilterHeader h = FilterHeader.scalable(this, mapping);
    h.addSlice(capacity, fpr * (1 - tightening));
    return h;
  }

  /** An empty filter that records only the seed fingerprint (no shard count, no canonicalization): tools, tests. */
  public FilterHeader newHeader(long seedFingerprint) {
    return newHeader(UrlMapping.seedOnly(seedFingerprint));
  }
}
