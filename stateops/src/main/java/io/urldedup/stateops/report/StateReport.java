package io.urldedup.stateops.report;

import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.StableHolding;
import io.urldedup.state.UrlMapping;
import io.urldedup.stateops.ShardReport;
import io.urldedup.stateops.StateLocation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What {@code inspect} shows of the filter in a snapshot, per shard and in total, computed once
 * here; {@link InspectText} and {@link InspectJson} only format it. Numbers come from two
 * independent sources where possible: the header's counters with the filter's own model ({@link
 * DedupFilter#estimatedFpr()}, {@link DedupFilter#fillRatio()}; generic over filter kinds), and the
 * bits in the pages ({@code ShardBits}). Aged filters add their own figures, {@link
 * AgedStateReport}.
 *
 * <p>Job-level FPR: a fresh URL lands in a uniform shard, so it is the mean of the shards'.
 */
public final class StateReport {

  /**
   * One shard: its stored header and its figures.
   *
   * @param fill set fraction over the shard's slices, weighted by their bits (cells for stable)
   * @param estimatedFpr the model's, from the header's counters
   * @param measuredFpr from the bits: 1 - prod over slices (1 - slice FPR)
   * @param held stable: the model's estimate of the URLs still held; other kinds: NaN
   */
  public record Shard(
      int shard,
      FilterHeader header,
      int slices,
      long bytes,
      long storedPages,
      double fill,
      double modelFill,
      double estimatedFpr,
      double measuredFpr,
      double held) {}

  private final StateLocation at;
  private final long bytesOnDisk;
  private final List<Shard> shards = new ArrayList<>();
  private final long inserts;
  private final double held;
  private final double bitEstimate;
  private final double bitEstimateSd;
  private final double modelFpr;
  private final double measuredFpr;
  private final double fill;
  private final double modelFill;
  private final long saturatedShards;
  private final long memoryBytes;
  private final AgedStateReport aged;

  public StateReport(StateLocation at, long bytesOnDisk, List<ShardReport> reports) {
    this.at = at;
    this.bytesOnDisk = bytesOnDisk;
    List<ShardReport> sorted = new ArrayList<>(reports);
    sorted.sort(Comparator.comparingInt(r -> r.shard));
    List<FilterHeader> headers = sorted.stream().map(ShardReport::decodedHeader).toList();
    // every shard has the first one's settings
    StableHolding holding =
        !headers.isEmpty() && headers.get(0).kind() == FilterSpec.Kind.STABLE
            ? new StableHolding(headers.get(0).stableGeometry())
            : null;
    for (int i = 0; i < sorted.size(); i++) {
      shards.add(shard(sorted.get(i), headers.get(i), holding));
    }
    inserts = shards.stream().mapToLong(s -> s.header().inserts()).sum();
    held = holding != null ? shards.stream().mapToDouble(Shard::held).sum() : inserts;
    bitEstimate = sorted.stream().mapToDouble(r -> sum(r.bitEstimate)).sum();
    bitEstimateSd = Math.sqrt(sorted.stream().mapToDouble(r -> sum(r.bitEstimateVariance)).sum());
    modelFpr = shards.stream().mapToDouble(Shard::estimatedFpr).average().orElse(0);
    measuredFpr = shards.stream().mapToDouble(Shard::measuredFpr).average().orElse(0);
    fill = shards.stream().mapToDouble(Shard::fill).average().orElse(0);
    modelFill = shards.stream().mapToDouble(Shard::modelFill).average().orElse(0);
    saturatedShards = shards.stream().filter(s -> s.header().saturated()).count();
    memoryBytes = shards.stream().mapToLong(Shard::bytes).sum();
    aged =
        !shards.isEmpty() && kind() == FilterSpec.Kind.AGED
            ? AgedStateReport.of(sorted, headers)
            : null;
  }

  /**
   * @param holding stable only, else null
   */
  private static Shard shard(ShardReport r, FilterHeader h, StableHolding holding) {
    DedupFilter model = ShardReport.model(h);
    double held = holding != null ? holding.held(h.inserts()) : Double.NaN;
    return new Shard(
        r.shard,
        h,
        model.sliceCount(),
        model.sizeBytes(),
        r.storedPages,
        set(r, h),
        model.fillRatio(),
        model.estimatedFpr(),
        measured(r),
        held);
  }

  public StateLocation at() {
    return at;
  }

  public long bytesOnDisk() {
    return bytesOnDisk;
  }

  public List<Shard> shards() {
    return shards;
  }

  /** The first shard's header: the filter's settings, which every shard shares. */
  public FilterHeader header() {
    if (shards.isEmpty()) {
      throw new IllegalStateException(
          "the snapshot holds no filter shard (no URL was ever processed)");
    }
    return shards.get(0).header();
  }

  /** --shards as recorded in the headers (format 2); for older state, the shards present. */
  public int shardCount() {
    int recorded = header().mapping().shards();
    return recorded != UrlMapping.UNKNOWN ? recorded : shards.size();
  }

  public FilterSpec.Kind kind() {
    return header().kind();
  }

  /** Scalable: URLs recorded (the exact insert counters); stable and aged: inserts. */
  public long inserts() {
    return inserts;
  }

  /** Scalable: the distinct count the bits imply (sum over shards and slices). */
  public double bitEstimate() {
    return bitEstimate;
  }

  /** Standard deviation of {@link #bitEstimate()} (blocks independent). */
  public double bitEstimateSd() {
    return bitEstimateSd;
  }

  /** Stable: the model's estimate of the URLs still held; other kinds: {@link #inserts()}. */
  public double held() {
    return held;
  }

  /** Mean over shards of the model FPR. */
  public double modelFpr() {
    return modelFpr;
  }

  /** Mean over shards of the FPR the bits give. */
  public double measuredFpr() {
    return measuredFpr;
  }

  /** Mean over shards of the set fraction the bits give. */
  public double fill() {
    return fill;
  }

  /** Mean over shards of the model's fill ratio. */
  public double modelFill() {
    return modelFill;
  }

  public long saturatedShards() {
    return saturatedShards;
  }

  public long memoryBytes() {
    return memoryBytes;
  }

  /** The aged filter's own figures. */
  public AgedStateReport aged() {
    if (aged == null) {
      throw new IllegalStateException("not an aged filter: " + kind());
    }
    return aged;
  }

  public String text() {
    return InspectText.render(this);
  }

  public String json() {
    return JsonWriter.write(InspectJson.tree(this));
  }

  static double sum(double[] a) {
    double t = 0;
    for (double v : a) {
      t += v;
    }
    return t;
  }

  private static double set(ShardReport r, FilterHeader h) {
    double set = 0;
    double total = 0;
    for (int i = 0; i < r.setFraction.length; i++) {
      double units =
          switch (h.kind()) {
            case STABLE -> h.stableGeometry().cells();
            case SCALABLE -> h.sliceBlocks(i) * (double) FilterMath.BLOCK_BITS;
            case AGED -> h.agedGeometry().rows() * (double) h.agedGeometry().segmentBits();
          };
      set += r.setFraction[i] * units;
      total += units;
    }
    return total == 0 ? 0 : set / total;
  }

  private static double measured(ShardReport r) {
    double pass = 1;
    for (double f : r.measuredFpr) {
      pass *= 1 - f;
    }
    return 1 - pass;
  }
}
