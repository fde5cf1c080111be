package io.urldedup.stateops;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
import io.urldedup.state.ByteSize;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterPlan;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.StableHolding;
import io.urldedup.state.UrlMapping;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What {@code inspect} prints: the filter in a snapshot, per shard and in total. Numbers come from
 * two independent sources where possible: the header's counters with the filter's own model
 * ({@link DedupFilter#estimatedFpr()}, {@link DedupFilter#fillRatio()}; generic over filter
 * kinds), and the bits in the pages ({@link ShardBits}). Aged filters get their own report: the
 * layout (k, l), the window, the per-shard clocks (generation, fill of the current generation,
 * generations advanced early; all in the header), and the bits per ring position.
 *
 * <p>Job-level FPR: a fresh URL lands in a uniform shard, so it is the mean of the shards'.
 */
public final class StateReport {

  /** One shard: its stored header, the model opened over it, and what its bits say. */
  public record Shard(int shard, FilterHeader header, DedupFilter model, ShardReport bits) {}

  private final StateLocation at;
  private final long bytesOnDisk;
  private final List<Shard> shards = new ArrayList<>();

  public StateReport(StateLocation at, long bytesOnDisk, List<ShardReport> reports) {
    this.at = at;
    this.bytesOnDisk = bytesOnDisk;
    for (ShardReport r : reports) {
      FilterHeader h = FilterStates.decode(r.header);
      shards.add(new Shard(r.shard, h, Filters.open(h, ReadOnlyPages.NONE), r));
    }
    shards.sort(Comparator.comparingInt(Shard::shard));
  }

  public List<Shard> shards() {
    return shards;
  }

  private FilterHeader first() {
    if (shards.isEmpty()) {
      throw new IllegalStateException("the snapshot holds no filter shard (no URL was ever processed)");
    }
    return shards.get(0).header();
  }

  /** --shards as recorded in the headers (format 2); for older state, the shards present. */
  public int shardCount() {
    int recorded = first().mapping().shards();
    return recorded != UrlMapping.UNKNOWN ? recorded : shards.size();
  }

  public FilterSpec.Kind kind() {
    return first().kind();
  }

  /** Scalable: URLs recorded (the exact insert counters); stable: inserts. */
  public long inserts() {
    return shards.stream().mapToLong(s -> s.header().inserts()).sum();
  }

  /** Scalable: the distinct count the bits imply (sum over shards and slices). */
  public double bitEstimate() {
    return shards.stream().mapToDouble(s -> sum(s.bits().bitEstimate)).sum();
  }

  /** Standard deviation of {@link #bitEstimate()} (blocks independent). */
  public double bitEstimateSd() {
    return Math.sqrt(shards.stream().mapToDouble(s -> sum(s.bits().bitEstimateVariance)).sum());
  }

  /** Stable: the model's estimate of the URLs still held; scalable: {@link #inserts()}. */
  public double held() {
    if (kind() != FilterSpec.Kind.STABLE) {
      return inserts();
    }
    StableHolding holding = new StableHolding(first().stableGeometry());
    return shards.stream().mapToDouble(s -> holding.held(s.header().inserts())).sum();
  }

  /** Mean over shards of the model FPR (a fresh URL lands in a uniform shard). */
  public double modelFpr() {
    return shards.stream().mapToDouble(s -> s.model().estimatedFpr()).average().orElse(0);
  }

  /** Mean over shards of the FPR the bits give: 1 - prod over slices (1 - slice FPR). */
  public double measuredFpr() {
    return shards.stream().mapToDouble(s -> {
      double pass = 1;
      for (double f : s.bits().measuredFpr) {
        pass *= 1 - f;
      }
      return 1 - pass;
    }).average().orElse(0);
  }

  public long saturatedShards() {
    return shards.stream().filter(s -> s.header().saturated()).count();
  }

  public long memoryBytes() {
    return shards.stream().mapToLong(s -> s.model().sizeBytes()).sum();
  }

  private static double sum(double[] a) {
    double t = 0;
    for (double v : a) {
      t += v;
    }
    return t;
  }

  // ---------------------------------------------------------------- text

  public String text() {
    StringBuilder b = new StringBuilder();
    FilterHeader h = first();
    FilterSpec spec = h.spec();
    int n = shardCount();
    UrlMapping m = h.mapping();
    line(b, "state: %s", at.display());
    line(b, "  %s, max parallelism %d, %s on disk (%s of state in the metadata), %d subtask states",
        at.nativeRocksDb() ? "native RocksDB snapshot" : "canonical savepoint format", at.maxParallelism(),
        ByteSize.format(bytesOnDisk), ByteSize.format(at.stateBytes()), at.subtasks());
    line(b, "filter: %s, format v%d, seed fingerprint %016x (a hash of the seed, never the seed)", lower(h.kind()),
        h.formatVersion(), h.seedFingerprint());
    line(b, "  flags: %s --shards %s", flags(spec, n), m.shards() == UrlMapping.UNKNOWN ? "(not recorded)" : m.shards());
    line(b, "  canonicalization: %s", m.canonicalizationFingerprint() == UrlMapping.UNKNOWN ? "(not recorded)"
        : String.format(Locale.ROOT, "fingerprint %016x (%s)", m.canonicalizationFingerprint(),
            m.canonicalizationSettings().replace('\n', ' ').trim()));
    line(b, "shards in state: %d of %d", shards.size(), n);
    if (h.kind() == FilterSpec.Kind.AGED) {
      agedText(b, h, spec, n);
      return b.toString();
    }
    if (h.kind() == FilterSpec.Kind.STABLE) {
      line(b, "distinct URLs: %,d inserted (a repeat is a read); the model says %,.0f are still held, the rest"
          + " forgotten", inserts(), held());
      line(b, "fill: %s of cells non-zero (model %s)", FilterPlan.pct(meanSet()), FilterPlan.pct(meanFill()));
    } else {
      line(b, "distinct URLs: %,d recorded (exact insert counts per slice); the bits say %,.0f +- %,.0f (1 sd)",
          inserts(), bitEstimate(), bitEstimateSd());
      line(b, "fill: %s of bits set", FilterPlan.pct(meanSet()));
    }
    double fpr = modelFpr();
    line(b, "false-positive rate: %s now (model), %s from the bits; target --fpr %s (%.2fx)%s",
        FilterPlan.pct(fpr), FilterPlan.pct(measuredFpr()), FilterPlan.pct(spec.fpr()), fpr / spec.fpr(),
        fpr > 2 * spec.fpr() ? "  WARNING: over 2x the target" : "");
    if (h.kind() == FilterSpec.Kind.STABLE) {
      line(b, "memory: %s (--memory, fixed)", ByteSize.format(memoryBytes()));
      b.append(FilterPlan.stableForgetting(spec, n));
    } else if (h.kind() == FilterSpec.Kind.SCALABLE) {
      FilterPlan.Cap cap = FilterPlan.cap(spec);
      int maxSlices = shards.stream().mapToInt(s -> s.header().slices()).max().orElse(0);
      line(b, "memory: %s in slices (up to %d per shard) of --max-memory %s; %d of %d shards saturated%s",
          ByteSize.format(memoryBytes()), maxSlices, ByteSize.format(spec.maxMemoryBytes() * n), saturatedShards(),
          n, saturatedShards() > 0 ? "  WARNING: saturated shards' FPR rises with every URL" : "");
      line(b, "cap: growth stops after %,d URLs (%,d per shard, %d slices, %s of --max-memory used); beyond it"
          + " the FPR rises", cap.urlsPerShard() * n, cap.urlsPerShard(), cap.slices(),
          ByteSize.format(cap.bytesPerShard() * n));
    }
    line(b, "per shard:");
    boolean scalable = h.kind() != FilterSpec.Kind.STABLE;
    line(b, "  %5s  %12s  %6s  %10s  %8s  %9s  %9s  %s", "shard", scalable ? "recorded" : "inserts",
        "slices", "bytes", "fill", "fpr", "fpr bits", scalable ? "saturated" : "held (model)");
    StableHolding holding = scalable ? null : new StableHolding(h.stableGeometry());
    for (Shard s : shards) {
      line(b, "  %5d  %,12d  %6d  %10s  %8s  %9s  %9s  %s", s.shard(), s.header().inserts(), s.model().sliceCount(),
          ByteSize.format(s.model().sizeBytes()), FilterPlan.pct(set(s)), FilterPlan.pct(s.model().estimatedFpr()),
          FilterPlan.pct(measured(s)), scalable ? (s.header().saturated() ? "yes" : "no")
              : String.format(Locale.ROOT, "%,.0f", holding.held(s.header().inserts())));
    }
    return b.toString();
  }

  private double meanSet() {
    return shards.stream().mapToDouble(StateReport::set).average().orElse(0);
  }

  private double meanFill() {
    return shards.stream().mapToDouble(s -> s.model().fillRatio()).average().orElse(0);
  }

  /** Set fraction over the shard's slices, weighted by their bits. */
  private static double set(Shard s) {
    double set = 0;
    double total = 0;
    FilterHeader h = s.header();
    for (int i = 0; i < s.bits().setFraction.length; i++) {
      double units = switch (h.kind()) {
        case STABLE -> h.stableGeometry().cells();
        case SCALABLE -> h.sliceBlocks(i) * (double) FilterMath.BLOCK_BITS;
        case AGED -> h.agedGeometry().rows() * (double) h.agedGeometry().segmentBits();
      };
      set += s.bits().setFraction[i] * units;
      total += units;
    }
    return total == 0 ? 0 : set / total;
  }

  private static double measured(Shard s) {
    double pass = 1;
    for (double f : s.bits().measuredFpr) {
      pass *= 1 - f;
    }
    return 1 - pass;
  }

  /** The flags as a user gives them (sizes are totals over the shards). */
  private static String flags(FilterSpec spec, int shards) {
    if (spec.kind() == FilterSpec.Kind.AGED) {
      String window = spec.timed()
          ? String.format(Locale.ROOT, "--window %s --rate %s", duration(spec.windowMillis()), num(spec.rate() * shards))
          : String.format(Locale.ROOT, "--window-urls %d", spec.windowUrls() * shards);
      return String.format(Locale.ROOT, "--filter aged --fpr %s %s%s", spec.fpr(), window,
          spec.generations() > 0 ? " --generations " + spec.generations() : "");
    }
    if (spec.kind() == FilterSpec.Kind.STABLE) {
      return String.format(Locale.ROOT, "--filter stable --fpr %s --memory %d --cell-bits %d", spec.fpr(),
          spec.memoryBytes() * shards, spec.cellBits());
    }
    return String.format(Locale.ROOT, "--filter scalable --fpr %s --capacity %d --growth %d --tightening %s"
        + " --max-memory %d", spec.fpr(), spec.capacity() * shards, spec.growth(), spec.tightening(),
        spec.maxMemoryBytes() * shards);
  }

  // ---------------------------------------------------------------- json

  public String json() {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = new JsonFactory().createGenerator(w)) {
      g.useDefaultPrettyPrinter();
      FilterHeader h = first();
      FilterSpec spec = h.spec();
      g.writeStartObject();
      g.writeStringField("path", at.display());
      g.writeStringField("snapshotFormat", at.nativeRocksDb() ? "native-rocksdb" : "canonical");
      g.writeNumberField("maxParallelism", at.maxParallelism());
      g.writeNumberField("bytesOnDisk", bytesOnDisk);
      g.writeObjectFieldStart("filter");
      g.writeStringField("kind", lower(h.kind()));
      g.writeNumberField("formatVersion", h.formatVersion());
      g.writeStringField("seedFingerprint", String.format("%016x", h.seedFingerprint()));
      g.writeNumberField("shards", shardCount());
      g.writeStringField("canonicalizationFingerprint",
          String.format("%016x", h.mapping().canonicalizationFingerprint()));
      g.writeStringField("canonicalizationSettings", h.mapping().canonicalizationSettings());
      g.writeNumberField("fpr", spec.fpr());
      if (h.kind() == FilterSpec.Kind.AGED) {
        agedJson(g, h, spec);
      } else {
        bloomJson(g, h, spec);
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w + "\n";
  }

  /** Stable and scalable: from the filter object's flags on (the caller closes the document). */
  private void bloomJson(JsonGenerator g, FilterHeader h, FilterSpec spec) throws IOException {
    boolean stable = h.kind() == FilterSpec.Kind.STABLE;
    if (stable) {
      g.writeNumberField("memoryBytesPerShard", spec.memoryBytes());
      g.writeNumberField("cellBits", spec.cellBits());
    } else {
      g.writeNumberField("capacityPerShard", spec.capacity());
      g.writeNumberField("growth", spec.growth());
      g.writeNumberField("tightening", spec.tightening());
      g.writeNumberField("maxMemoryBytesPerShard", spec.maxMemoryBytes());
    }
    g.writeEndObject();
    g.writeObjectFieldStart("total");
    g.writeNumberField("shardsInState", shards.size());
    g.writeNumberField("inserts", inserts());
    if (stable) {
      g.writeNumberField("heldEstimate", Math.round(held()));
    } else {
      g.writeNumberField("bitEstimate", Math.round(bitEstimate()));
      g.writeNumberField("bitEstimateSd", Math.round(bitEstimateSd()));
      FilterPlan.Cap cap = FilterPlan.cap(spec);
      g.writeNumberField("capReachedAtUrls", cap.urlsPerShard() * shardCount());
      g.writeNumberField("capBytes", cap.bytesPerShard() * shardCount());
      g.writeNumberField("maxMemoryBytes", spec.maxMemoryBytes() * shardCount());
      g.writeNumberField("saturatedShards", saturatedShards());
    }
    g.writeNumberField("memoryBytes", memoryBytes());
    g.writeNumberField("fillRatio", meanSet());
    g.writeNumberField("estimatedFpr", modelFpr());
    g.writeNumberField("measuredFpr", measuredFpr());
    g.writeNumberField("fprOverTarget", modelFpr() / spec.fpr());
    g.writeEndObject();
    g.writeArrayFieldStart("shards");
    for (Shard s : shards) {
      g.writeStartObject();
      g.writeNumberField("shard", s.shard());
      g.writeNumberField("inserts", s.header().inserts());
      g.writeNumberField("slices", s.model().sliceCount());
      g.writeNumberField("bytes", s.model().sizeBytes());
      g.writeNumberField("storedPages", s.bits().storedPages);
      g.writeNumberField("fillRatio", set(s));
      g.writeNumberField("estimatedFpr", s.model().estimatedFpr());
      g.writeNumberField("measuredFpr", measured(s));
      if (!stable) {
        g.writeBooleanField("saturated", s.header().saturated());
        g.writeArrayFieldStart("sliceCounts");
        for (int i = 0; i < s.header().slices(); i++) {
          g.writeNumber(s.header().sliceCount(i));
        }
        g.writeEndArray();
      }
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  // ---------------------------------------------------------------- aged

  /** Aged: URLs whose bits are still in the ring, from the bits (insertions over all positions / k). */
  public double ringEstimate() {
    return shards.stream().mapToDouble(s -> sum(s.bits().bitEstimate) / s.header().agedGeometry().k()).sum();
  }

  public double ringEstimateSd() {
    return Math.sqrt(shards.stream().mapToDouble(s -> {
      int k = s.header().agedGeometry().k();
      return sum(s.bits().bitEstimateVariance) / ((double) k * k);
    }).sum());
  }

  /**
   * Aged, count window: the URLs whose bits are still in the ring by the clock. An insert sets
   * positions 0..k-1 of its generation; t generations later they are at t..t+k-1 and those below
   * R = k + l remain, min(k, R - t) bits; past generations hold exactly g inserts each (a count
   * window advances when the current one is full). Time windows: NaN (past generations may hold
   * fewer than g).
   */
  public double ringModel() {
    double total = 0;
    for (Shard s : shards) {
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
    return shards.stream().mapToLong(s -> s.header().agedClock().earlyAdvances()).sum();
  }

  /** Mean over shards of the current generation's inserts over its planned size. */
  public double currentGenerationFill() {
    return shards.stream().mapToDouble(StateReport::generationFill).average().orElse(0);
  }

  private static double generationFill(Shard s) {
    return (double) s.header().agedClock().count() / s.header().agedGeometry().generationSize();
  }

  /** Mean over shards of the set fraction at each ring position (0 the newest). */
  public double[] setByPosition() {
    int r = first().agedGeometry().slices();
    double[] out = new double[r];
    for (Shard s : shards) {
      for (int i = 0; i < r && i < s.bits().setFraction.length; i++) {
        out[i] += s.bits().setFraction[i] / shards.size();
      }
    }
    return out;
  }

  private void agedText(StringBuilder b, FilterHeader h, FilterSpec spec, int n) {
    AgedMath.Geometry geo = h.agedGeometry();
    long gMin = shards.stream().mapToLong(s -> s.header().agedClock().generation()).min().orElse(0);
    long gMax = shards.stream().mapToLong(s -> s.header().agedClock().generation()).max().orElse(0);
    line(b, "layout: k = %d, l = %d: %d slices of %,d 64-bit words per shard; a generation is %,d new URLs per"
        + " shard%s", geo.k(), geo.l(), geo.slices(), geo.rows(), geo.generationSize(), h.generationMillis() > 0
            ? String.format(Locale.ROOT, " (planned) or %s, whichever comes first", duration(h.generationMillis())) : "");
    if (spec.timed()) {
      line(b, "window: --window %s at --rate %s new URLs/s (%s per shard): l = %d generations of %s", duration(
          spec.windowMillis()), num(spec.rate() * n), num(spec.rate()), geo.l(), duration(h.generationMillis()));
    } else {
      line(b, "window: --window-urls %,d (%,d per shard): a URL is seen for the %,d new URLs of its shard after it"
          + " (l x g), forgotten by %.0f%% more", spec.windowUrls() * n, spec.windowUrls(), geo.guaranteedInserts(),
          100 * geo.slack());
    }
    double model = ringModel();
    line(b, "distinct URLs: %,d inserted since the filter began (a repeat is a read); in the ring now the bits say"
        + " %,.0f +- %,.0f (1 sd)%s", inserts(), ringEstimate(), ringEstimateSd(),
        Double.isNaN(model) ? "" : String.format(Locale.ROOT, ", the clock %,.0f", model));
    line(b, "generation: %s (per-shard clocks); the current one is %s full on average (of %,d new URLs per shard)",
        gMin == gMax ? Long.toString(gMin) : gMin + ".." + gMax, FilterPlan.pct(currentGenerationFill()),
        geo.generationSize());
    line(b, "generations advanced early: %,d%s", generationsAdvancedEarly(), spec.timed()
        ? (generationsAdvancedEarly() > 0 ? "  WARNING: new URLs came faster than --rate; the window shrank" : "")
        : " (a count window advances on its count)");
    line(b, "fill: %s of bits set (model %s)", FilterPlan.pct(meanSet()), FilterPlan.pct(meanFill()));
    StringBuilder pos = new StringBuilder();
    for (double f : setByPosition()) {
      pos.append(' ').append(FilterPlan.pct(f));
    }
    line(b, "bits set by slice, newest first:%s", pos);
    double fpr = modelFpr();
    line(b, "false-positive rate: %s from the bits now; model %s at the end of a full generation; target --fpr %s"
        + " (%.2fx)%s", FilterPlan.pct(measuredFpr()), FilterPlan.pct(fpr), FilterPlan.pct(spec.fpr()),
        fpr / spec.fpr(), measuredFpr() > 2 * spec.fpr() ? "  WARNING: over 2x the target" : "");
    line(b, "memory: %s (fixed: %s per shard)", ByteSize.format(memoryBytes()), ByteSize.format(geo.bytes()));
    line(b, "per shard:");
    line(b, "  %5s  %12s  %10s  %8s  %10s  %8s  %9s  %9s  %s", "shard", "inserts", "generation", "current", "bytes",
        "fill", "fpr", "fpr bits", "early");
    for (Shard s : shards) {
      AgedClock c = s.header().agedClock();
      line(b, "  %5d  %,12d  %,10d  %8s  %10s  %8s  %9s  %9s  %,d", s.shard(), s.header().inserts(), c.generation(),
          FilterPlan.pct(generationFill(s)), ByteSize.format(s.model().sizeBytes()), FilterPlan.pct(set(s)),
          FilterPlan.pct(s.model().estimatedFpr()), FilterPlan.pct(measured(s)), c.earlyAdvances());
    }
  }

  private void agedJson(JsonGenerator g, FilterHeader h, FilterSpec spec) throws IOException {
    AgedMath.Geometry geo = h.agedGeometry();
    int n = shardCount();
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
    g.writeNumberField("shardsInState", shards.size());
    g.writeNumberField("inserts", inserts());
    g.writeNumberField("ringEstimate", Math.round(ringEstimate()));
    g.writeNumberField("ringEstimateSd", Math.round(ringEstimateSd()));
    double model = ringModel();
    if (!Double.isNaN(model)) {
      g.writeNumberField("ringModel", Math.round(model));
    }
    g.writeNumberField("generationMin", shards.stream().mapToLong(s -> s.header().agedClock().generation()).min()
        .orElse(0));
    g.writeNumberField("generationMax", shards.stream().mapToLong(s -> s.header().agedClock().generation()).max()
        .orElse(0));
    g.writeNumberField("currentGenerationFill", currentGenerationFill());
    g.writeNumberField("generationsAdvancedEarly", generationsAdvancedEarly());
    g.writeNumberField("memoryBytes", memoryBytes());
    g.writeNumberField("totalWindowUrls", spec.timed() ? 0 : spec.windowUrls() * n);
    g.writeNumberField("fillRatio", meanSet());
    g.writeNumberField("modelFillRatio", meanFill());
    g.writeArrayFieldStart("setFractionByPosition");
    for (double f : setByPosition()) {
      g.writeNumber(f);
    }
    g.writeEndArray();
    g.writeNumberField("estimatedFpr", modelFpr());
    g.writeNumberField("measuredFpr", measuredFpr());
    g.writeNumberField("fprOverTarget", modelFpr() / spec.fpr());
    g.writeEndObject();
    g.writeArrayFieldStart("shards");
    for (Shard s : shards) {
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

  private static String duration(long millis) {
    return org.apache.flink.util.TimeUtils.formatWithHighestUnit(java.time.Duration.ofMillis(millis));
  }

  private static String num(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.4g", v);
  }

  private static void line(StringBuilder b, String format, Object... args) {
    b.append(String.format(Locale.ROOT, format, args)).append('\n');
  }

  private static String lower(FilterSpec.Kind k) {
    return k.name().toLowerCase(Locale.ROOT);
  }
}
