package io.urldedup.state.plan;

import io.urldedup.state.AgedMath;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.ByteSize;
import io.urldedup.state.Percent;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableMath;
import java.util.Locale;

/** {@code plan}'s filter section as text, from a {@link FilterPlan}'s numbers. */
public final class PlanText {

  private PlanText() {}

  public static String render(FilterPlan plan) {
    if (plan instanceof StablePlan p) {
      return stable(p);
    }
    return plan instanceof ScalablePlan p ? scalable(p) : aged((AgedPlan) plan);
  }

  private static String stable(StablePlan plan) {
    StableMath.Geometry g = plan.geometry();
    int shards = plan.shards();
    StringBuilder sb = new StringBuilder();
    line(sb, "filter: stable Bloom filter (Deng & Rafiei 2006), blocked; %d shards", shards);
    line(
        sb,
        "  cells: %d bits each (Max = %d); K = %d cells set per URL; P = %d cells decremented per new URL",
        g.cellBits(),
        g.max(),
        g.k(),
        g.p());
    line(
        sb,
        "  block: %d words (%d bytes, %d cells); each URL touches one block",
        g.blockWords(),
        g.blockWords() * 8,
        g.cellsPerBlock());
    line(
        sb,
        "  per shard: %d cells in %d blocks, %s",
        g.cells(),
        g.blocks(),
        ByteSize.format(plan.bytesPerShard()));
    line(sb, "  total:     %d cells, %s", g.cells() * shards, ByteSize.format(plan.totalBytes()));
    line(
        sb,
        "  stable false-positive rate: %s (target --fpr %s); stable zero fraction %.4f",
        Percent.format(g.stableFpr()),
        plan.spec().fpr(),
        g.stableZeroFraction());
    sb.append(stableForgetting(plan));
    return sb.toString();
  }

  /**
   * The stable filter's forgetting table (plan prints it; inspect too, for the filter in state).
   */
  public static String stableForgetting(StablePlan plan) {
    StringBuilder sb = new StringBuilder();
    line(
        sb,
        "  forgetting: a repeat is a read, so a URL is forgotten some number of new URLs after it was last");
    line(
        sb,
        "  emitted, however often it was seen since (new URLs over the whole job, spread over %d shards):",
        plan.shards());
    line(
        sb,
        "    %15s  %26s  %26s",
        "new URLs",
        "re-emitted if seen again",
        "forgotten by (seen often)");
    for (StablePlan.ForgettingRow r : plan.forgetting()) {
      line(
          sb,
          "    %,15d  %26s  %26s",
          r.newUrls(),
          Percent.format(r.reemittedIfSeenAgain()),
          Percent.format(r.forgottenBy()));
    }
    return sb.toString();
  }

  private static String scalable(ScalablePlan plan) {
    ScalableSpec spec = plan.spec();
    int shards = plan.shards();
    StringBuilder sb = new StringBuilder();
    line(
        sb,
        "filter: scalable Bloom filter (Almeida et al. 2007) of blocked slices; %d shards",
        shards);
    line(
        sb,
        "  slice i (per shard): capacity %d x %d^i URLs at error %s x %s^i (first slice: k = %d, %.2f bits/URL,"
            + " %s)",
        spec.capacity(),
        spec.growth(),
        fmt(plan.firstSliceFpr()),
        fmt(spec.tightening()),
        plan.firstSlice().k(),
        plan.firstSlice().bitsPerElement(),
        ByteSize.format(plan.firstSliceBytesPerShard()));
    line(
        sb, "  false-positive bound: %s (--fpr), until the memory cap", Percent.format(spec.fpr()));
    line(
        sb,
        "  memory cap: --max-memory %s per shard, %s total",
        ByteSize.format(spec.maxMemoryBytes()),
        ByteSize.format(spec.maxMemoryBytes() * shards));
    line(
        sb,
        "  %15s  %13s  %6s  %12s  %12s  %s",
        "URLs (total)",
        "per shard",
        "slices",
        "per shard",
        "total",
        "FPR bound");
    for (ScalablePlan.GrowthRow r : plan.growthTable()) {
      line(
          sb,
          "  %,15d  %,13d  %6d  %12s  %12s  %s%s",
          r.urls(),
          r.urlsPerShard(),
          r.slices(),
          ByteSize.format(r.bytesPerShard()),
          ByteSize.format(r.bytesPerShard() * shards),
          Percent.format(r.fprBound()),
          r.capped() ? "  (capped: rises with overfill)" : "");
    }
    ScalablePlan.Cap c = plan.cap();
    line(
        sb,
        "  cap reached after %,d URLs per shard (%,d total) with %d slices (%s per shard, %s total); beyond it"
            + " the last slice is overfilled and the FPR rises",
        c.urlsPerShard(),
        c.urlsPerShard() * shards,
        c.slices(),
        ByteSize.format(c.bytesPerShard()),
        ByteSize.format(c.bytesPerShard() * shards));
    return sb.toString();
  }

  private static String aged(AgedPlan plan) {
    AgedSpec spec = plan.spec();
    AgedMath.Geometry g = plan.geometry();
    int shards = plan.shards();
    boolean timed = spec.timed();
    long d = plan.generationMillis();
    StringBuilder sb = new StringBuilder();
    line(
        sb,
        "filter: aged (age-partitioned blocked Bloom filter, Shtul et al. 2020); %d shards",
        shards);
    if (timed) {
      line(
          sb,
          "  window: %s in l = %d generations of %s (time), sized for --rate %s new URLs/s in total"
              + " (%s per shard): g = %,d new URLs per generation per shard",
          duration(spec.windowMillis()),
          g.l(),
          duration(d),
          fmt(spec.rate() * shards),
          fmt(spec.rate()),
          g.generationSize());
    } else {
      line(
          sb,
          "  window: %,d new URLs per shard (%,d in total) in l = %d generations of g = %,d new URLs",
          spec.windowUrls(),
          spec.windowUrls() * shards,
          g.l(),
          g.generationSize());
    }
    line(
        sb,
        "  slices: k = %d (a new URL sets one bit in each of the k newest), l = %d, k + l = %d",
        g.k(),
        g.l(),
        g.slices());
    line(
        sb,
        "  rows: %d cache lines (%d bytes): a generation stamp and a %d-bit segment of every slice; a URL uses"
            + " one row, %.2f new URLs per row per generation",
        g.rowLines(),
        8 * g.rowWords(),
        g.segmentBits(),
        g.lambda());
    line(
        sb,
        "  per shard: %,d rows in %,d pages, %s (%.1f bits per URL of the window)",
        g.rows(),
        g.pages(),
        ByteSize.format(g.bytes()),
        g.bitsPerWindowUrl());
    line(sb, "  total:     %s", ByteSize.format(g.bytes() * shards));
    line(
        sb,
        "  false-positive rate: %s at the end of a full generation (target --fpr %s)",
        Percent.format(plan.modelFpr()),
        spec.fpr());
    String window =
        timed
            ? duration((long) g.l() * d)
            : String.format(Locale.ROOT, "%,d new URLs", g.guaranteedInserts());
    line(
        sb,
        "  guaranteed window: a URL is suppressed for %s after it was emitted, however often it is seen (a repeat"
            + " is a read)",
        window);
    line(
        sb,
        "  slack: %.0f%%: at least %.0f%% of URLs are re-emitted when seen %s or more after their emission;"
            + " from %s on only false positives keep one",
        100 * plan.slack(),
        100 * AgedMath.FORGOTTEN_SHARE,
        age(plan, plan.forgottenByShifts()),
        age(plan, g.slices()));
    line(sb, "    %22s  %24s", "age (at least)", "re-emitted if seen again");
    for (AgedPlan.AgeRow r : plan.forgetting()) {
      line(
          sb,
          "    %22s  %24s",
          age(plan, r.generations()),
          Percent.format(r.reemittedIfSeenAgain()));
    }
    if (timed) {
      line(
          sb,
          "  rate above plan: a generation that reaches g new URLs before its %s advances early (metric"
              + " generationsAdvancedEarly): the FPR stays at target, the window shrinks to l g / rate",
          duration(d));
    }
    return sb.toString();
  }

  /** Generations as an age: new URLs per shard (count window) or a duration (time window). */
  private static String age(AgedPlan plan, int shifts) {
    return plan.spec().timed()
        ? duration(shifts * plan.generationMillis())
        : String.format(Locale.ROOT, "%,d new URLs", shifts * plan.geometry().generationSize());
  }

  /** Short and exact where it can be ("7d", "1h"), else two decimals of the largest unit. */
  static String duration(long ms) {
    long[] units = {86_400_000L, 3_600_000L, 60_000L, 1_000L};
    String[] names = {"d", "h", "min", "s"};
    for (int i = 0; i < units.length; i++) {
      if (ms >= units[i]) {
        return ms % units[i] == 0
            ? ms / units[i] + names[i]
            : String.format(Locale.ROOT, "%.2f%s", (double) ms / units[i], names[i]);
      }
    }
    return ms + "ms";
  }

  private static void line(StringBuilder sb, String format, Object... args) {
    sb.append(String.format(Locale.ROOT, format, args)).append('\n');
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.4g", v);
  }
}
