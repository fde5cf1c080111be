package io.urldedup.state;

/**
 * What a job asks for, per shard: the filter kind and its targets. Validated on construction with
 * messages that name the user-facing flag. {@link #newHeader(long)} turns it into concrete
 * parameters (cells, K, P, slices) with the sizing math in {@link FilterMath}.
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
    long maxMemoryBytes) {

  public enum Kind { STABLE, SCALABLE }
}
