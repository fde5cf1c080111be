package io.urldedup.stateops.report;

import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.ByteSize;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Percent;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;
import io.urldedup.state.UrlMapping;
import io.urldedup.state.plan.PlanText;
import io.urldedup.state.plan.ScalablePlan;
import io.urldedup.state.plan.StablePlan;
import java.time.Duration;
import java.util.Locale;
import org.apache.flink.util.TimeUtils;

/** {@code inspect}'s text, from a {@link StateReport}'s numbers. */
final class InspectText {

  private InspectText() {}

  static String render(StateReport r) {
    StringBuilder b = new StringBuilder();
    FilterHeader h = r.header();
    FilterSpec spec = h.spec();
    int n = r.shardCount();
    UrlMapping m = h.mapping();
    line(b, "state: %s", r.at().display());
    line(
        b,
        "  %s, max parallelism %d, %s on disk (%s of state in the metadata), %d subtask states",
        r.at().nativeRocksDb() ? "native RocksDB snapshot" : "canonical savepoint format",
        r.at().maxParallelism(),
        ByteSize.format(r.bytesOnDisk()),
        ByteSize.format(r.at().stateBytes()),
        r.at().subtasks());
    line(
        b,
        "filter: %s, format v%d, seed fingerprint %016x (a hash of the seed, never the seed)",
        InspectJson.lower(h.kind()),
        h.formatVersion(),
        h.seedFingerprint());
    line(
        b,
        "  flags: %s --shards %s",
        flags(spec, n),
        m.shards() == UrlMapping.UNKNOWN ? "(not recorded)" : m.shards());
    line(
        b,
        "  canonicalization: %s",
        m.canonicalizationFingerprint() == UrlMapping.UNKNOWN
            ? "(not recorded)"
            : String.format(
                Locale.ROOT,
                "fingerprint %016x (%s)",
                m.canonicalizationFingerprint(),
                m.canonicalizationSettings().replace('\n', ' ').trim()));
    line(b, "shards in state: %d of %d", r.shards().size(), n);
    if (spec instanceof AgedSpec aged) {
      aged(b, r, aged, n);
    } else {
      bloom(b, r, spec, n);
    }
    return b.toString();
  }

  /** Stable and scalable. */
  private static void bloom(StringBuilder b, StateReport r, FilterSpec spec, int n) {
    if (spec instanceof StableSpec) {
      line(
          b,
          "distinct URLs: %,d inserted (a repeat is a read); the model says %,.0f are still held, the rest"
              + " forgotten",
          r.inserts(),
          r.held());
      line(
          b,
          "fill: %s of cells non-zero (model %s)",
          Percent.format(r.fill()),
          Percent.format(r.modelFill()));
    } else {
      line(
          b,
          "distinct URLs: %,d recorded (exact insert counts per slice); the bits say %,.0f +- %,.0f (1 sd)",
          r.inserts(),
          r.bitEstimate(),
          r.bitEstimateSd());
      line(b, "fill: %s of bits set", Percent.format(r.fill()));
    }
    double fpr = r.modelFpr();
    line(
        b,
        "false-positive rate: %s now (model), %s from the bits; target --fpr %s (%.2fx)%s",
        Percent.format(fpr),
        Percent.format(r.measuredFpr()),
        Percent.format(spec.fpr()),
        fpr / spec.fpr(),
        fpr > 2 * spec.fpr() ? "  WARNING: over 2x the target" : "");
    if (spec instanceof StableSpec stable) {
      line(b, "memory: %s (--memory, fixed)", ByteSize.format(r.memoryBytes()));
      b.append(PlanText.stableForgetting(StablePlan.of(stable, n)));
    } else if (spec instanceof ScalableSpec scalable) {
      ScalablePlan.Cap cap = ScalablePlan.cap(scalable);
      int maxSlices = r.shards().stream().mapToInt(s -> s.header().slices()).max().orElse(0);
      line(
          b,
          "memory: %s in slices (up to %d per shard) of --max-memory %s; %d of %d shards saturated%s",
          ByteSize.format(r.memoryBytes()),
          maxSlices,
          ByteSize.format(scalable.maxMemoryBytes() * n),
          r.saturatedShards(),
          n,
          r.saturatedShards() > 0 ? "  WARNING: saturated shards' FPR rises with every URL" : "");
      line(
          b,
          "cap: growth stops after %,d URLs (%,d per shard, %d slices, %s of --max-memory used); beyond it"
              + " the FPR rises",
          cap.urlsPerShard() * n,
          cap.urlsPerShard(),
          cap.slices(),
          ByteSize.format(cap.bytesPerShard() * n));
    }
    line(b, "per shard:");
    boolean scalable = spec instanceof ScalableSpec;
    line(
        b,
        "  %5s  %12s  %6s  %10s  %8s  %9s  %9s  %s",
        "shard",
        scalable ? "recorded" : "inserts",
        "slices",
        "bytes",
        "fill",
        "fpr",
        "fpr bits",
        scalable ? "saturated" : "held (model)");
    for (StateReport.Shard s : r.shards()) {
      line(
          b,
          "  %5d  %,12d  %6d  %10s  %8s  %9s  %9s  %s",
          s.shard(),
          s.header().inserts(),
          s.slices(),
          ByteSize.format(s.bytes()),
          Percent.format(s.fill()),
          Percent.format(s.estimatedFpr()),
          Percent.format(s.measuredFpr()),
          scalable
              ? (s.header().saturated() ? "yes" : "no")
              : String.format(Locale.ROOT, "%,.0f", s.held()));
    }
  }

  private static void aged(StringBuilder b, StateReport r, AgedSpec spec, int n) {
    FilterHeader h = r.header();
    AgedMath.Geometry geo = h.agedGeometry();
    AgedStateReport a = r.aged();
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
    double model = a.ringModel();
    line(
        b,
        "distinct URLs: %,d inserted since the filter began (a repeat is a read); in the ring now the bits say"
            + " %,.0f +- %,.0f (1 sd)%s",
        r.inserts(),
        a.ringEstimate(),
        a.ringEstimateSd(),
        Double.isNaN(model) ? "" : String.format(Locale.ROOT, ", the clock %,.0f", model));
    line(
        b,
        "generation: %s (per-shard clocks); the current one is %s full on average (of %,d new URLs per shard)",
        a.generationMin() == a.generationMax()
            ? Long.toString(a.generationMin())
            : a.generationMin() + ".." + a.generationMax(),
        Percent.format(a.currentGenerationFill()),
        geo.generationSize());
    line(
        b,
        "generations advanced early: %,d%s",
        a.generationsAdvancedEarly(),
        spec.timed()
            ? (a.generationsAdvancedEarly() > 0
                ? "  WARNING: new URLs came faster than --rate; the window shrank"
                : "")
            : " (a count window advances on its count)");
    line(
        b,
        "fill: %s of bits set (model %s)",
        Percent.format(r.fill()),
        Percent.format(r.modelFill()));
    StringBuilder pos = new StringBuilder();
    for (double f : a.setByPosition()) {
      pos.append(' ').append(Percent.format(f));
    }
    line(b, "bits set by slice, newest first:%s", pos);
    double fpr = r.modelFpr();
    line(
        b,
        "false-positive rate: %s from the bits now; model %s at the end of a full generation; target --fpr %s"
            + " (%.2fx)%s",
        Percent.format(r.measuredFpr()),
        Percent.format(fpr),
        Percent.format(spec.fpr()),
        fpr / spec.fpr(),
        r.measuredFpr() > 2 * spec.fpr() ? "  WARNING: over 2x the target" : "");
    line(
        b,
        "memory: %s (fixed: %s per shard)",
        ByteSize.format(r.memoryBytes()),
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
    for (StateReport.Shard s : r.shards()) {
      AgedClock c = s.header().agedClock();
      line(
          b,
          "  %5d  %,12d  %,10d  %8s  %10s  %8s  %9s  %9s  %,d",
          s.shard(),
          s.header().inserts(),
          c.generation(),
          Percent.format(AgedStateReport.generationFill(s.header())),
          ByteSize.format(s.bytes()),
          Percent.format(s.fill()),
          Percent.format(s.estimatedFpr()),
          Percent.format(s.measuredFpr()),
          c.earlyAdvances());
    }
  }

  /** The flags as a user gives them (sizes are totals over the shards). */
  private static String flags(FilterSpec spec, int shards) {
    if (spec instanceof AgedSpec aged) {
      String window =
          aged.timed()
              ? String.format(
                  Locale.ROOT,
                  "--window %s --rate %s",
                  duration(aged.windowMillis()),
                  num(aged.rate() * shards))
              : String.format(Locale.ROOT, "--window-urls %d", aged.windowUrls() * shards);
      return String.format(
          Locale.ROOT,
          "--filter aged --fpr %s %s%s",
          spec.fpr(),
          window,
          aged.generations() > 0 ? " --generations " + aged.generations() : "");
    }
    if (spec instanceof StableSpec stable) {
      return String.format(
          Locale.ROOT,
          "--filter stable --fpr %s --memory %d --cell-bits %d",
          spec.fpr(),
          stable.memoryBytes() * shards,
          stable.cellBits());
    }
    ScalableSpec scalable = (ScalableSpec) spec;
    return String.format(
        Locale.ROOT,
        "--filter scalable --fpr %s --capacity %d --growth %d --tightening %s" + " --max-memory %d",
        spec.fpr(),
        scalable.capacity() * shards,
        scalable.growth(),
        scalable.tightening(),
        scalable.maxMemoryBytes() * shards);
  }

  /**
   * In Flink's duration syntax, which the flags take back (plan's shorter form, "2.50h", they do
   * not).
   */
  private static String duration(long millis) {
    return TimeUtils.formatWithHighestUnit(Duration.ofMillis(millis));
  }

  private static String num(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15
        ? Long.toString((long) v)
        : String.format(Locale.ROOT, "%.4g", v);
  }

  private static void line(StringBuilder b, String format, Object... args) {
    b.append(String.format(Locale.ROOT, format, args)).append('\n');
  }
}
