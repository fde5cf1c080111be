package io.urldedup.stateops.report;

import static io.urldedup.stateops.report.StateReport.sum;

import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
import io.urldedup.state.FilterHeader;
import io.urldedup.stateops.ShardReport;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The aged filter's own part of {@code inspect} ({@link StateReport}): the per-shard clocks
 * (generation, fill of the current generation, generations advanced early; all in the header), the
 * URLs still in the ring counted two ways (from the bits and from the clocks), and the bits per
 * ring position.
 *
 * @param ringEstimate URLs whose bits are still in the ring, from the bits (insertions over all
 *     positions / k)
 * @param ringModel count windows: the URLs whose bits are still in the ring by the clock; time
 *     windows: NaN (past generations may hold fewer than g)
 * @param currentGenerationFill mean over shards of the current generation's inserts over its
 *     planned size
 * @param setByPosition mean over shards of the set fraction at each ring position (0 the newest)
 */
public record AgedStateReport(
    double ringEstimate,
    double ringEstimateSd,
    double ringModel,
    long generationMin,
    long generationMax,
    double currentGenerationFill,
    long generationsAdvancedEarly,
    double[] setByPosition) {

  /**
   * @param headers the reports' decoded headers, in the same order
   */
  static AgedStateReport of(List<ShardReport> reports, List<FilterHeader> headers) {
    double ring =
        IntStream.range(0, reports.size())
            .mapToDouble(i -> sum(reports.get(i).bitEstimate) / headers.get(i).agedGeometry().k())
            .sum();
    double ringSd =
        Math.sqrt(
            IntStream.range(0, reports.size())
                .mapToDouble(
                    i -> {
                      int k = headers.get(i).agedGeometry().k();
                      return sum(reports.get(i).bitEstimateVariance) / ((double) k * k);
                    })
                .sum());
    return new AgedStateReport(
        ring,
        ringSd,
        ringModel(headers),
        headers.stream().mapToLong(h -> h.agedClock().generation()).min().orElse(0),
        headers.stream().mapToLong(h -> h.agedClock().generation()).max().orElse(0),
        headers.stream().mapToDouble(AgedStateReport::generationFill).average().orElse(0),
        headers.stream().mapToLong(h -> h.agedClock().earlyAdvances()).sum(),
        setByPosition(reports, headers));
  }

  /** The current generation's inserts over its planned size. */
  static double generationFill(FilterHeader h) {
    return (double) h.agedClock().count() / h.agedGeometry().generationSize();
  }

  /**
   * An insert sets positions 0..k-1 of its generation; t generations later they are at t..t+k-1 and
   * those below R = k + l remain, min(k, R - t) bits; past generations hold exactly g inserts each
   * (a count window advances when the current one is full).
   */
  private static double ringModel(List<FilterHeader> headers) {
    double total = 0;
    for (FilterHeader h : headers) {
      if (h.generationMillis() > 0) {
        return Double.NaN;
      }
      AgedMath.Geometry geo = h.agedGeometry();
      AgedClock c = h.agedClock();
      int k = geo.k();
      int r = geo.slices();
      double bits = (double) k * c.count();
      long past = Math.min(c.generation(), r - 1);
      for (int t = 1; t <= past; t++) {
        bits += (double) geo.generationSize() * Math.min(k, r - t);
      }
      total += bits / k;
    }
    return total;
  }

  private static double[] setByPosition(List<ShardReport> reports, List<FilterHeader> headers) {
    int r = headers.get(0).agedGeometry().slices();
    double[] out = new double[r];
    for (ShardReport s : reports) {
      for (int i = 0; i < r && i < s.setFraction.length; i++) {
        out[i] += s.setFraction[i] / reports.size();
      }
    }
    return out;
  }
}
