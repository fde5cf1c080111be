package io.urldedup.state.plan;

import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterMath;
import io.urldedup.state.ScalableMath;
import io.urldedup.state.ScalableSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The scalable filter's plan: its first slice, how it grows with distinct URLs, and where the
 * memory cap stops the growth.
 *
 * @param growthTable one row per {@link #SIZES} entry
 */
public record ScalablePlan(
    ScalableSpec spec,
    int shards,
    double firstSliceFpr,
    FilterMath.BlockedSizing firstSlice,
    long firstSliceBytesPerShard,
    List<GrowthRow> growthTable,
    Cap cap)
    implements FilterPlan {

  /** Distinct URLs (whole job) at which the filter's size is shown. */
  static final long[] SIZES = {1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L};

  /** One row of the growth table. */
  public record GrowthRow(
      long urls,
      long urlsPerShard,
      int slices,
      long bytesPerShard,
      double fprBound,
      boolean capped) {}

  /** Where the memory cap is reached, per shard. */
  public record Cap(long urlsPerShard, int slices, long bytesPerShard) {}

  public static ScalablePlan of(ScalableSpec spec, int shards) {
    double eps0 = ScalableMath.sliceFpr(spec.fpr(), spec.tightening(), 0);
    List<GrowthRow> rows = new ArrayList<>();
    for (long n : SIZES) {
      long perShard = (n + shards - 1) / shards;
      ScalableMath.Usage u = ScalableMath.usage(spec, perShard);
      rows.add(new GrowthRow(n, perShard, u.slices(), u.bytes(), u.fprBound(), u.saturated()));
    }
    return new ScalablePlan(
        spec,
        shards,
        eps0,
        FilterMath.blockedSizing(eps0),
        ScalableMath.sliceBytes(spec.fpr(), spec.capacity(), spec.growth(), spec.tightening(), 0),
        List.copyOf(rows),
        cap(spec));
  }

  /** Inspect shows the cap of the filter in state too. */
  public static Cap cap(ScalableSpec spec) {
    long capAt = 0;
    int slices = 0;
    long used = 0;
    while (slices < FilterHeader.MAX_SLICES) {
      long b =
          ScalableMath.sliceBytes(
              spec.fpr(), spec.capacity(), spec.growth(), spec.tightening(), slices);
      if (used + b > spec.maxMemoryBytes()) {
        break;
      }
      used += b;
      capAt += ScalableMath.sliceCapacity(spec.capacity(), spec.growth(), slices);
      slices++;
    }
    return new Cap(capAt, slices, used);
  }
}
