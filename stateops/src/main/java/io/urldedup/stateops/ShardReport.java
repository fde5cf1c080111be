package io.urldedup.stateops;

import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.Filters;

/**
 * What {@link ShardStateReader} found in one shard's state: the header as stored and what the
 * pages' bits say. A Flink POJO (public fields, no-arg constructor), so the reader job needs no
 * generic serializer.
 *
 * <p>Per slice (stable: one; aged: per ring position, 0 the newest): the fraction of set bits
 * (non-zero cells), the distinct count the bits imply with its variance, and the false-positive
 * rate those bits give a fresh URL (aged: one number for the whole ring). See {@link ShardBits}.
 */
public class ShardReport {

  public int shard;

  /** {@link io.urldedup.state.FilterHeaderSerializer} bytes of the stored header. */
  public byte[] header;

  /** Pages present in state (a page never written is absent and reads as zeros). */
  public long storedPages;

  public double[] setFraction;
  public double[] bitEstimate;
  public double[] bitEstimateVariance;
  public double[] measuredFpr;

  public ShardReport() {}

  public FilterHeader decodedHeader() {
    return FilterStates.decode(header);
  }

  /**
   * The filter over {@code h} (this shard's {@link #decodedHeader()}) for its model figures, which
   * come from the header's counters: it reads no page.
   */
  public static DedupFilter model(FilterHeader h) {
    return Filters.open(h, ReadOnlyPages.NONE);
  }
}
