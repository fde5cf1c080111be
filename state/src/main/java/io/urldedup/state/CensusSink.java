package io.urldedup.state;

/**
 * Receives what a filter's census ({@link PageCensus}) finds in one stored page, unit by unit, in
 * the page's order: the counts a reader needs to estimate from the bits (inspect's distinct counts
 * and measured false-positive rates), with the layout already decoded by the filter that owns it.
 * Units of a page beyond the filter's end are not reported.
 */
public interface CensusSink {

  /**
   * One block. Scalable: a {@value FilterMath#BLOCK_BITS}-bit block of slice {@code slice} with
   * {@code set} bits set (every block of the page, empty ones too). Stable (slice 0): a block of
   * {@link StableMath.Geometry#cellsPerBlock} cells, {@code set} of them non-zero.
   */
  void block(int slice, int set);

  /**
   * One aged row: {@code set[i]} bits set in the row's segment ({@link
   * AgedMath.Geometry#segmentBits} bits) of ring position i, 0 the newest slice; a column recycled
   * since the row was last brought up to date reads as zero, as the filter's lookups read it. The
   * array is reused for the next row.
   */
  void row(int[] set);
}
