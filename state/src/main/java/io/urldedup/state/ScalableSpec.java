package io.urldedup.state;

/**
 * A scalable Bloom filter per shard (Almeida et al. 2007): a chain of slices, each {@code growth}
 * times larger with an error {@code tightening} times the previous, so that the compound
 * false-positive rate stays below {@code fpr}: P <= fpr (1 - r) sum r^i = fpr.
 *
 * @param fpr the compound bound
 * @param capacity elements the first slice holds at its error
 * @param growth s, each slice s times larger (Almeida et al. suggest 2 or 4)
 * @param tightening r, each slice's error r times the previous (0 < r < 1)
 * @param maxMemoryBytes hard cap on bytes of slices for this shard; the one parameter a restore may
 *     change ({@link FilterHeader#adopt})
 */
public record ScalableSpec(
    double fpr, long capacity, int growth, double tightening, long maxMemoryBytes)
    implements FilterSpec {

  public static final int MIN_GROWTH = 2;
  public static final int MAX_GROWTH = 16;
  public static final long MAX_CAPACITY = 1L << 40;

  public ScalableSpec {
    FilterSpec.checkFpr(fpr);
    if (capacity < 1 || capacity > MAX_CAPACITY) {
      throw new InvalidSpecException(
          "{capacity} (URLs the first slice holds, per shard) must be between 1 and "
              + MAX_CAPACITY
              + "; got "
              + capacity);
    }
    if (growth < MIN_GROWTH || growth > MAX_GROWTH) {
      throw new InvalidSpecException(
          "{growth} must be an integer between "
              + MIN_GROWTH
              + " and "
              + MAX_GROWTH
              + " (2 or 4 recommended); got "
              + growth);
    }
    if (!(tightening > 0 && tightening < 1)) {
      throw new InvalidSpecException(
          "{tightening} must be in (0, 1), e.g. 0.5 (default) or 0.8-0.9; got " + tightening);
    }
    if (maxMemoryBytes < MIN_MEMORY_BYTES || maxMemoryBytes > MAX_MEMORY_BYTES) {
      throw new InvalidSpecException(
          "{maxMemoryBytes} (per shard) must be between 4096 bytes and "
              + MAX_MEMORY_BYTES
              + " bytes (1 TiB); got "
              + maxMemoryBytes);
    }
    long first =
        FilterMath.blockedPages(capacity, fpr * (1 - tightening)) * (long) PageStore.PAGE_BYTES;
    if (first > maxMemoryBytes) {
      throw new InvalidSpecException(
          "the first slice ({capacity} "
              + capacity
              + " at {fpr} "
              + fpr
              + " x (1 - {tightening} "
              + tightening
              + ")) needs "
              + first
              + " bytes, more than {maxMemoryBytes} "
              + maxMemoryBytes
              + "; raise {maxMemoryBytes} or lower {capacity}");
    }
  }

  @Override
  public Kind kind() {
    return Kind.SCALABLE;
  }

  /** The same filter with another memory cap (what a restore may change). */
  public ScalableSpec withMaxMemoryBytes(long bytes) {
    return new ScalableSpec(fpr, capacity, growth, tightening, bytes);
  }

  @Override
  public FilterHeader newHeader(UrlMapping mapping) {
    FilterHeader h = FilterHeader.scalable(this, mapping);
    h.addSlice(capacity, fpr * (1 - tightening));
    return h;
  }
}
