package io.urldedup.state;

/**
 * A stable Bloom filter per shard (Deng and Rafiei 2006): fixed memory, d-bit cells, constant
 * false-positive rate at the stable point.
 *
 * @param fpr the stable-point false-positive rate
 * @param memoryBytes bytes of cells for this shard
 * @param cellBits d, bits per cell (1..4), Max = 2^d - 1
 */
public record StableSpec(double fpr, long memoryBytes, int cellBits) implements FilterSpec {

  public static final int MIN_CELL_BITS = 1;
  public static final int MAX_CELL_BITS = 4;

  public StableSpec {
    FilterSpec.checkFpr(fpr);
    if (memoryBytes < MIN_MEMORY_BYTES || memoryBytes > MAX_MEMORY_BYTES) {
      throw new InvalidSpecException(
          "{memoryBytes} (per shard) must be between 4096 bytes (one 4 KiB page) and "
              + MAX_MEMORY_BYTES
              + " bytes (1 TiB); got "
              + memoryBytes);
    }
    if (cellBits < MIN_CELL_BITS || cellBits > MAX_CELL_BITS) {
      throw new InvalidSpecException(
          "{cellBits} must be 1, 2, 3 or 4 (cells count down from 2^d-1); got " + cellBits);
    }
  }

  @Override
  public Kind kind() {
    return Kind.STABLE;
  }

  /** K, P and the block layout for these targets ({@link StableMath#geometry}). */
  public StableMath.Geometry geometry() {
    return StableMath.geometry(fpr, memoryBytes, cellBits);
  }

  @Override
  public FilterHeader newHeader(UrlMapping mapping) {
    return FilterHeader.stable(this, mapping, geometry());
  }
}
