package io.urldedup.stateops;

import static io.urldedup.stateops.StateReport.duration;
import static io.urldedup.stateops.StateReport.line;
import static io.urldedup.stateops.StateReport.measured;
import static io.urldedup.stateops.StateReport.num;
import static io.urldedup.stateops.StateReport.set;
import static io.urldedup.stateops.StateReport.sum;

import com.fasterxml.jackson.core.JsonGenerator;
import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.ByteSize;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterPlan;
import java.io.IOException;
import java.util.Locale;

/**
 * The aged filter's part of {@code inspect} ({@link StateReport}): the layout (k, l), the window,
 * the per-shard clocks (generation, fill of the current generation, generations advanced early; all
 * in the header), the URLs still in the ring counted two ways (from the bits and from the clocks),
 * and the bits per ring position.
 */
public final class AgedStateReport {

  private final StateReport report;

  AgedStateReport(StateReport report) {
    this.report = report;
  }

  /**
   * Aged: URLs whose bits are still in the ring, from the bits (insertions over all positions / k).
   */
  public double ringEstimate() {
    return report.shards().stream()
        .mapToDouble(s -> sum(s.bits().bitEstimate) / s.header().agedGeometry().k())
        .sum();
  }

  public double ringEstimateSd() {
    return Math.sqrt(
        report.shards().stream()
            .mapToDouble(
                s -> {
                  int k = s.header().agedGeometry().k();
                  return sum(s.bits().bitEstimateVariance) / ((double) k * k);
                })
            .sum());
  }

  /**
   * Aged, count window: the URLs whose bits are still in the ring by the clock. An insert sets
   * positions 0..k-1 of its generation; t generations later they are at t..t+k-1 and those below R
   * = k + l remain, min(k, R - t) bits; past generations hold exactly g inserts each (a count
   * window advances when the current one is full). Time windows: NaN (past generations may hold
   * fewer than g).
   */
  public double ringModel() {
    double total = 0;
    for (StateReport.Shard s : report.shards()) {
      FilterHeader h = s.header();
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

  public long generationsAdvancedEarly() {
    return report.shards().stream().mapToLong(s -> s.header().agedClock().earlyAdvances()).sum();
  }

  /** Mean over shards of the current generation's inserts over its planned size. */
  public double currentGenerationFill() {
    return report.shards().stream()
        .mapToDouble(AgedStateReport::generationFill)
        .average()
        .orElse(0);
  }

  private static double generationFill(StateReport.Shard s) {
    return (double) s.header().agedClock().count() / s.header().agedGeometry().generationSize();
  }

  /** Mean over shards of the set fraction at each ring position (0 the newest). */
  public double[] setByPosition() {
    int r = report.first().agedGeometry().slices();
    double[] out = new double[r];
    for (StateReport.Shard s : report.shards()) {
      for (int i = 0; i < r && i < s.bits().setFraction.length; i++) {
        out[i] += s.bits().setFraction[i] / report.shards().size();
      }
    }
    return out;
  }

  void text(StringBuilder b, FilterHeader h, AgedSpec spec, int n) {
    AgedMath.Geometry geo = h.agedGeometry();
    long gMin =
        report.shards().stream()
            .mapToLong(s -> s.header().agedClock().generation())
            .min()
            .orElse(0);
    long gMax =
        report.shards().stream()
            .mapToLong(s -> s.header().agedClock().generation())
            .max()
            .orElse(0);
    line(
        b,
        "layout: k = %d, l = %d: %d slices of %,d 64-bit words per shard; a generation is %,d new URLs per"
            + " shard%s",
        geo.k(),
        geo.l(),
        geo.slices(),
        geo.rows(),
        geo.generationSize(),
        h.generationMillis() > 0
            ? String.format(
                Locale.ROOT,
                " (planned) or %s, whichever comes first",
                duration(h.generationMillis()))
            : "");
    if (spec.timed()) {
      line(
          b,
          "window: --window %s at --rate %s new URLs/s (%s per shard): l = %d generations of %s",
          duration(spec.windowMillis()),
          num(spec.rate() * n),
          num(spec.rate()),
          geo.l(),
          duration(h.generationMillis()));
    } else {
      line(
          b,
          "window: --window-urls %,d (%,d per shard): a URL is seen for the %,d new URLs of its shard after it"
              + " (l x g), forgotten by %.0f%% more",
          spec.windowUrls() * n,
          spec.windowUrls(),
          geo.guaranteedInserts(),
          100 * geo.slack());
    }
    double model = ringModel();
    line(
        b,
        "distinct URLs: %,d inserted since the filter began (a repeat is a read); in the ring now the bits say"
            + " %,.0f +- %,.0f (1 sd)%s",
        report.inserts(),
        ringEstimate(),
        ringEstimateSd(),
        Double.isNaN(model) ? "" : String.format(Locale.ROOT, ", the clock %,.0f", model));
    line(
        b,
        "generation: %s (per-shard clocks); the current one is %s full on average (of %,d new URLs per shard)",
        gMin == gMax ? Long.toString(gMin) : gMin + ".." + gMax,
        FilterPlan.pct(currentGenerationFill()),
        geo.generationSize());
    line(
        b,
        "generations advanced early: %,d%s",
        generationsAdvancedEarly(),
        spec.timed()
            ? (generationsAdvancedEarly() > 0
                ? "  WARNING: new URLs came faster than --rate; the window shrank"
                : "")
            : " (a count window advances on its count)");
    line(
        b,
        "fill: %s of bits set (model %s)",
        FilterPlan.pct(report.meanSet()),
        FilterPlan.pct(report.meanFill()));
    StringBuilder pos = new StringBuilder();
    for (double f : setByPosition()) {
      pos.append(' ').append(FilterPlan.pct(f));
    }
    line(b, "bits set by slice, newest first:%s", pos);
    double fpr = report.modelFpr();
    line(
        b,
        "false-positive rate: %s from the bits now; model %s at the end of a full generation; target --fpr %s"
            + " (%.2fx)%s",
        FilterPlan.pct(report.measuredFpr()),
        FilterPlan.pct(fpr),
        FilterPlan.pct(spec.fpr()),
        fpr / spec.fpr(),
        report.measuredFpr() > 2 * spec.fpr() ? "  WARNING: over 2x the target" : "");
    line(
        b,
        "memory: %s (fixed: %s per shard)",
        ByteSize.format(report.memoryBytes()),
        ByteSize.format(geo.bytes()));
    line(b, "per shard:");
    line(
        b,
        "  %5s  %12s  %10s  %8s  %10s  %8s  %9s  %9s  %s",
        "shard",
        "inserts",
        "generation",
        "current",
        "bytes",
        "fill",
        "fpr",
        "fpr bits",
        "early");
    for (StateReport.Shard s : report.shards()) {
      AgedClock c = s.header().agedClock();
      line(
          b,
          "  %5d  %,12d  %,10d  %8s  %10s  %8s  %9s  %9s  %,d",
          s.shard(),
          s.header().inserts(),
          c.generation(),
          FilterPlan.pct(generationFill(s)),
          ByteSize.format(s.model().sizeBytes()),
          FilterPlan.pct(set(s)),
          FilterPlan.pct(s.model().estimatedFpr()),
          FilterPlan.pct(measured(s)),
          c.earlyAdvances());
    }
  }

  void json(JsonGenerator g, FilterHeader h, AgedSpec spec) throws IOException {
    AgedMath.Geometry geo = h.agedGeometry();
    int n = report.shardCount();
    g.writeNumberField("k", geo.k());
    g.writeNumberField("l", geo.l());
    g.writeNumberField("generationsAsked", spec.generations());
    if (spec.timed()) {
      g.writeNumberField("windowMillis", spec.windowMillis());
      g.writeNumberField("ratePerShard", spec.rate());
      g.writeNumberField("generationMillis", h.generationMillis());
    } else {
      g.writeNumberField("windowUrlsPerShard", spec.windowUrls());
    }
    g.writeNumberField("generationSizePerShard", geo.generationSize());
    g.writeNumberField("rowsPerShard", geo.rows());
    g.writeNumberField("bytesPerShard", geo.bytes());
    g.writeEndObject();
    g.writeObjectFieldStart("total");
    g.writeNumberField("shardsInState", report.shards().size());
    g.writeNumberField("inserts", report.inserts());
    g.writeNumberField("ringEstimate", Math.round(ringEstimate()));
    g.writeNumberField("ringEstimateSd", Math.round(ringEstimateSd()));
    double model = ringModel();
    if (!Double.isNaN(model)) {
      g.writeNumberField("ringModel", Math.round(model));
    }
    g.writeNumberField(
        "generationMin",
        report.shards().stream()
            .mapToLong(s -> s.header().agedClock().generation())
            .min()
            .orElse(0));
    g.writeNumberField(
        "generationMax",
        report.shards().stream()
            .mapToLong(s -> s.header().agedClock().generation())
            .max()
            .orElse(0));
    g.writeNumberField("currentGenerationFill", currentGenerationFill());
    g.writeNumberField("generationsAdvancedEarly", generationsAdvancedEarly());
    g.writeNumberField("memoryBytes", report.memoryBytes());
    g.writeNumberField("totalWindowUrls", spec.timed() ? 0 : spec.windowUrls() * n);
    g.writeNumberField("fillRatio", report.meanSet());
    g.writeNumberField("modelFillRatio", report.meanFill());
    g.writeArrayFieldStart("setFractionByPosition");
    for (double f : setByPosition()) {
      g.writeNumber(f);
    }
    g.writeEndArray();
    g.writeNumberField("estimatedFpr", report.modelFpr());
    g.writeNumberField("measuredFpr", report.measuredFpr());
    g.writeNumberField("fprOverTarget", report.modelFpr() / spec.fpr());
    g.writeEndObject();
    g.writeArrayFieldStart("shards");
    for (StateReport.Shard s : report.shards()) {
      AgedClock c = s.header().agedClock();
      g.writeStartObject();
      g.writeNumberField("shard", s.shard());
      g.writeNumberField("inserts", s.header().inserts());
      g.writeNumberField("generation", c.generation());
      g.writeNumberField("currentGenerationCount", c.count());
      if (c.epoch() != AgedClock.NO_EPOCH) {
        g.writeNumberField("epoch", c.epoch());
      }
      g.writeNumberField("generationsAdvancedEarly", c.earlyAdvances());
      g.writeNumberField("bytes", s.model().sizeBytes());
      g.writeNumberField("storedPages", s.bits().storedPages);
      g.writeNumberField("fillRatio", set(s));
      g.writeNumberField("estimatedFpr", s.model().estimatedFpr());
      g.writeNumberField("measuredFpr", measured(s));
      g.writeEndObject();
    }
    g.writeEndArray();
  }
}
