package io.urldedup.state;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the job's {@code plan} command prints: the concrete filter a spec turns into, per shard and
 * in total, and what to expect of it (FPR, forgetting, growth, where the memory cap bites). {@link
 * #render} is the text; {@link #facts} the same numbers for {@code plan --json}, computed by the
 * same row methods.
 */
public final class FilterPlan {

  /**
   * New URLs (inserts, whole job) since a URL was emitted at which the stable filter's forgetting
   * is shown.
   */
  static final long[] STABLE_GAPS = {
    100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L
  };

  /** Distinct URLs (whole job) at which the scalable filter's size is shown. */
  static final long[] SCALABLE_SIZES = {1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L};

  private FilterPlan() {}

  /** One row of the stable filter's forgetting table. */
  public record ForgettingRow(long newUrls, double reemittedIfSeenAgain, double forgottenBy) {}

  /** One row of the scalable filter's growth table. */
  public record GrowthRow(
      long urls,
      long urlsPerShard,
      int slices,
      long bytesPerShard,
      double fprBound,
      boolean capped) {}

  /** Where the scalable filter's memory cap is reached, per shard. */
  public record Cap(long urlsPerShard, int slices, long bytesPerShard) {}

  public static List<ForgettingRow> forgetting(StableSpec spec, int shards) {
    StableMath.Geometry g = spec.geometry();
    List<ForgettingRow> rows = new ArrayList<>();
    for (long gap : STABLE_GAPS) {
      long perShard = Math.max(1, gap / shards);
      rows.add(
          new ForgettingRow(
              gap, StableMath.falseNegative(g, perShard), StableMath.forgottenBy(g, perShard)));
    }
    return rows;
  }

  public static List<GrowthRow> growth(ScalableSpec spec, int shards) {
    List<GrowthRow> rows = new ArrayList<>();
    for (long n : SCALABLE_SIZES) {
      long perShard = (n + shards - 1) / shards;
      ScalableMath.Usage u = ScalableMath.usage(spec, perShard);
      rows.add(new GrowthRow(n, perShard, u.slices(), u.bytes(), u.fprBound(), u.saturated()));
    }
    return rows;
  }

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

  /**
   * The plan's numbers as nested maps and lists (insertion-ordered; rates as fractions, sizes in
   * bytes) for {@code plan --json}. Key names are an interface (scripts parse them): add keys, do
   * not rename or remove them; a new filter kind adds its own branch. See docs/plan-json.md.
   */
  public static Map<String, Object> facts(FilterSpec spec, int shards) {
    Map<String, Object> out = new LinkedHashMap<>();
    if (spec instanceof StableSpec s) {
      stableFacts(s, shards, out);
    } else if (spec instanceof ScalableSpec s) {
      scalableFacts(s, shards, out);
    } else {
      agedFacts((AgedSpec) spec, shards, out);
    }
    return out;
  }

  private static void stableFacts(StableSpec spec, int shards, Map<String, Object> out) {
    StableMath.Geometry g = spec.geometry();
    out.put("cellBits", g.cellBits());
    out.put("max", g.max());
    out.put("k", g.k());
    out.put("p", g.p());
    out.put("blockWords", g.blockWords());
    out.put("cellsPerShard", g.cells());
    out.put("blocksPerShard", g.blocks());
    out.put("bytesPerShard", pagesBytes(g));
    out.put("totalBytes", pagesBytes(g) * shards);
    out.put("stableFpr", g.stableFpr());
    out.put("stableZeroFraction", g.stableZeroFraction());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ForgettingRow r : forgetting(spec, shards)) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("newUrls", r.newUrls());
      row.put("reemittedIfSeenAgain", r.reemittedIfSeenAgain());
      row.put("forgottenBy", r.forgottenBy());
      rows.add(row);
    }
    out.put("forgetting", rows);
  }

  private static void scalableFacts(ScalableSpec spec, int shards, Map<String, Object> out) {
    double eps0 = ScalableMath.sliceFpr(spec.fpr(), spec.tightening(), 0);
    FilterMath.BlockedSizing s0 = FilterMath.blockedSizing(eps0);
    out.put("capacityPerShard", spec.capacity());
    out.put("growth", spec.growth());
    out.put("tightening", spec.tightening());
    out.put("firstSliceFpr", eps0);
    out.put("firstSliceK", s0.k());
    out.put("firstSliceBitsPerUrl", s0.bitsPerElement());
    out.put(
        "firstSliceBytesPerShard",
        ScalableMath.sliceBytes(spec.fpr(), spec.capacity(), spec.growth(), spec.tightening(), 0));
    out.put("maxMemoryPerShard", spec.maxMemoryBytes());
    out.put("totalMaxMemory", spec.maxMemoryBytes() * shards);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (GrowthRow r : growth(spec, shards)) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("urls", r.urls());
      row.put("urlsPerShard", r.urlsPerShard());
      row.put("slices", r.slices());
      row.put("bytesPerShard", r.bytesPerShard());
      row.put("totalBytes", r.bytesPerShard() * shards);
      row.put("fprBound", r.fprBound());
      row.put("capped", r.capped());
      rows.add(row);
    }
    out.put("growthTable", rows);
    Cap c = cap(spec);
    out.put("capReachedAfterUrlsPerShard", c.urlsPerShard());
    out.put("capReachedAfterUrls", c.urlsPerShard() * shards);
    out.put("slicesAtCap", c.slices());
    out.put("bytesPerShardAtCap", c.bytesPerShard());
  }

  /** The aged plan's numbers; time windows in milliseconds, count windows in new URLs per shard. */
  private static void agedFacts(AgedSpec spec, int shards, Map<String, Object> out) {
    AgedMath.Geometry g = spec.geometry();
    boolean timed = spec.timed();
    long d = timed ? spec.generationMillis() : 0;
    out.put("window", timed ? "time" : "count");
    out.put("windowMillis", timed ? spec.windowMillis() : null);
    out.put("windowUrlsPerShard", timed ? null : spec.windowUrls());
    out.put("windowUrls", timed ? null : spec.windowUrls() * shards);
    out.put("ratePerShard", timed ? spec.rate() : null);
    out.put("rate", timed ? spec.rate() * shards : null);
    out.put("k", g.k());
    out.put("l", g.l());
    out.put("slices", g.slices());
    out.put("layout", g.layout());
    out.put("rowLines", g.rowLines());
    out.put("segmentBits", g.segmentBits());
    out.put("bitsPerWindowUrl", g.bitsPerWindowUrl());
    out.put("generationMillis", timed ? d : null);
    out.put("generationUrlsPerShard", g.generationSize());
    out.put("urlsPerRowPerGeneration", g.lambda());
    out.put("rowsPerShard", g.rows());
    out.put("pagesPerShard", g.pages());
    out.put("bytesPerShard", g.bytes());
    out.put("totalBytes", g.bytes() * shards);
    out.put("modelFpr", g.fpr());
    out.put("guaranteedWindowMillis", timed ? (long) g.l() * d : null);
    out.put("guaranteedWindowUrlsPerShard", timed ? null : g.guaranteedInserts());
    int by = g.forgottenByShifts();
    out.put("slack", g.slack());
    out.put("forgottenShare", AgedMath.FORGOTTEN_SHARE);
    out.put("forgottenByGenerations", by);
    out.put("forgottenByMillis", timed ? by * d : null);
    out.put("forgottenByUrlsPerShard", timed ? null : by * g.generationSize());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int s = g.l(); s <= Math.min(g.slices(), by + 1); s++) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("generations", s);
      row.put("ageMillis", timed ? s * d : null);
      row.put("ageUrlsPerShard", timed ? null : s * g.generationSize());
      row.put("reemittedIfSeenAgain", 1 - g.seenAfter(s));
      rows.add(row);
    }
    out.put("forgetting", rows);
  }

  public static String render(FilterSpec spec, int shards) {
    if (shards < 1) {
      throw new InvalidSpecException("{shards} must be >= 1; got " + shards);
    }
    if (spec instanceof StableSpec s) {
      return renderStable(s, shards);
    }
    return spec instanceof ScalableSpec s
        ? renderScalable(s, shards)
        : renderAged((AgedSpec) spec, shards);
  }

  /**
   * The aged filter: its layout, FPR, window and the forgetting after it, per shard and in total.
   */
  private static String renderAged(AgedSpec spec, int shards) {
    AgedMath.Geometry g = spec.geometry();
    boolean timed = spec.timed();
    long d = spec.generationMillis();
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
        pct(g.fpr()),
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
    int by = g.forgottenByShifts();
    line(
        sb,
        "  slack: %.0f%%: at least %.0f%% of URLs are re-emitted when seen %s or more after their emission;"
            + " from %s on only false positives keep one",
        100 * g.slack(),
        100 * AgedMath.FORGOTTEN_SHARE,
        age(g, by, timed, d),
        age(g, g.slices(), timed, d));
    line(sb, "    %22s  %24s", "age (at least)", "re-emitted if seen again");
    // a URL of age a has seen at least floor(a / generation) shifts since its own generation
    for (int s = g.l(); s <= Math.min(g.slices(), by + 1); s++) {
      line(sb, "    %22s  %24s", age(g, s, timed, d), pct(1 - g.seenAfter(s)));
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

  /** s generations as an age: new URLs per shard (count window) or a duration (time window). */
  private static String age(AgedMath.Geometry g, int shifts, boolean timed, long generationMillis) {
    return timed
        ? duration(shifts * generationMillis)
        : String.format(Locale.ROOT, "%,d new URLs", shifts * g.generationSize());
  }

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

  private static String renderStable(StableSpec spec, int shards) {
    StableMath.Geometry g = spec.geometry();
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
        ByteSize.format(pagesBytes(g)));
    line(
        sb,
        "  total:     %d cells, %s",
        g.cells() * shards,
        ByteSize.format(pagesBytes(g) * shards));
    line(
        sb,
        "  stable false-positive rate: %s (target --fpr %s); stable zero fraction %.4f",
        pct(g.stableFpr()),
        spec.fpr(),
        g.stableZeroFraction());
    sb.append(stableForgetting(spec, shards));
    return sb.toString();
  }

  /**
   * The stable filter's forgetting table (plan prints it; inspect too, for the filter in state).
   */
  public static String stableForgetting(StableSpec spec, int shards) {
    StableMath.Geometry g = spec.geometry();
    StringBuilder sb = new StringBuilder();
    line(
        sb,
        "  forgetting: a repeat is a read, so a URL is forgotten some number of new URLs after it was last");
    line(
        sb,
        "  emitted, however often it was seen since (new URLs over the whole job, spread over %d shards):",
        shards);
    line(
        sb,
        "    %15s  %26s  %26s",
        "new URLs",
        "re-emitted if seen again",
        "forgotten by (seen often)");
    for (ForgettingRow r : forgetting(spec, shards)) {
      line(
          sb,
          "    %,15d  %26s  %26s",
          r.newUrls(),
          pct(r.reemittedIfSeenAgain()),
          pct(r.forgottenBy()));
    }
    return sb.toString();
  }

  private static String renderScalable(ScalableSpec spec, int shards) {
    StringBuilder sb = new StringBuilder();
    double eps0 = ScalableMath.sliceFpr(spec.fpr(), spec.tightening(), 0);
    FilterMath.BlockedSizing s0 = FilterMath.blockedSizing(eps0);
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
        fmt(eps0),
        fmt(spec.tightening()),
        s0.k(),
        s0.bitsPerElement(),
        ByteSize.format(
            ScalableMath.sliceBytes(
                spec.fpr(), spec.capacity(), spec.growth(), spec.tightening(), 0)));
    line(sb, "  false-positive bound: %s (--fpr), until the memory cap", pct(spec.fpr()));
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
    for (GrowthRow r : growth(spec, shards)) {
      line(
          sb,
          "  %,15d  %,13d  %6d  %12s  %12s  %s%s",
          r.urls(),
          r.urlsPerShard(),
          r.slices(),
          ByteSize.format(r.bytesPerShard()),
          ByteSize.format(r.bytesPerShard() * shards),
          pct(r.fprBound()),
          r.capped() ? "  (capped: rises with overfill)" : "");
    }
    Cap c = cap(spec);
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

  private static long pagesBytes(StableMath.Geometry g) {
    return (g.blocks() * g.blockWords() + PageStore.PAGE_WORDS - 1)
        / PageStore.PAGE_WORDS
        * PageStore.PAGE_BYTES;
  }

  private static void line(StringBuilder sb, String format, Object... args) {
    sb.append(String.format(Locale.ROOT, format, args)).append('\n');
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.4g", v);
  }

  public static String pct(double p) {
    if (p == 0) {
      return "0%";
    }
    return String.format(Locale.ROOT, p >= 0.001 ? "%.3f%%" : "%.3g%%", p * 100);
  }
}
