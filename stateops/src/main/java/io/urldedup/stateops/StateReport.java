package io.urldedup.stateops;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.ByteSize;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterPlan;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableHolding;
import io.urldedup.state.StableSpec;
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
 * two independent sources where possible: the header's counters with the filter's own model ({@link
 * DedupFilter#estimatedFpr()}, {@link DedupFilter#fillRatio()}; generic over filter kinds), and the
 * bits in the pages ({@link ShardBits}). Aged filters get their own part, {@link AgedStateReport}.
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

  /** The aged filter's figures (kind AGED only). */
  public AgedStateReport aged() {
    return new AgedStateReport(this);
  }

  FilterHeader first() {
    if (shards.isEmpty()) {
      throw new IllegalStateException(
          "the snapshot holds no filter shard (no URL was ever processed)");
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
    return shards.stream()
        .mapToDouble(
            s -> {
              double pass = 1;
              for (double f : s.bits().measuredFpr) {
                pass *= 1 - f;
              }
              return 1 - pass;
            })
        .average()
        .orElse(0);
  }

  public long saturatedShards() {
    return shards.stream().filter(s -> s.header().saturated()).count();
  }

  public long memoryBytes() {
    return shards.stream().mapToLong(s -> s.model().sizeBytes()).sum();
  }

  static double sum(double[] a) {
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
    line(
        b,
        "  %s, max parallelism %d, %s on disk (%s of state in the metadata), %d subtask states",
        at.nativeRocksDb() ? "native RocksDB snapshot" : "canonical savepoint format",
        at.maxParallelism(),
        ByteSize.format(bytesOnDisk),
        ByteSize.format(at.stateBytes()),
        at.subtasks());
    line(
        b,
        "filter: %s, format v%d, seed fingerprint %016x (a hash of the seed, never the seed)",
        lower(h.kind()),
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
    line(b, "shards in state: %d of %d", shards.size(), n);
    if (h.kind() == FilterSpec.Kind.AGED) {
      new AgedStateReport(this).text(b, h, (AgedSpec) spec, n);
      return b.toString();
    }
    if (h.kind() == FilterSpec.Kind.STABLE) {
      line(
          b,
          "distinct URLs: %,d inserted (a repeat is a read); the model says %,.0f are still held, the rest"
              + " forgotten",
          inserts(),
          held());
      line(
          b,
          "fill: %s of cells non-zero (model %s)",
          FilterPlan.pct(meanSet()),
          FilterPlan.pct(meanFill()));
    } else {
      line(
          b,
          "distinct URLs: %,d recorded (exact insert counts per slice); the bits say %,.0f +- %,.0f (1 sd)",
          inserts(),
          bitEstimate(),
          bitEstimateSd());
      line(b, "fill: %s of bits set", FilterPlan.pct(meanSet()));
    }
    double fpr = modelFpr();
    line(
        b,
        "false-positive rate: %s now (model), %s from the bits; target --fpr %s (%.2fx)%s",
        FilterPlan.pct(fpr),
        FilterPlan.pct(measuredFpr()),
        FilterPlan.pct(spec.fpr()),
        fpr / spec.fpr(),
        fpr > 2 * spec.fpr() ? "  WARNING: over 2x the target" : "");
    if (spec instanceof StableSpec stable) {
      line(b, "memory: %s (--memory, fixed)", ByteSize.format(memoryBytes()));
      b.append(FilterPlan.stableForgetting(stable, n));
    } else if (spec instanceof ScalableSpec scalable) {
      FilterPlan.Cap cap = FilterPlan.cap(scalable);
      int maxSlices = shards.stream().mapToInt(s -> s.header().slices()).max().orElse(0);
      line(
          b,
          "memory: %s in slices (up to %d per shard) of --max-memory %s; %d of %d shards saturated%s",
          ByteSize.format(memoryBytes()),
          maxSlices,
          ByteSize.format(scalable.maxMemoryBytes() * n),
          saturatedShards(),
          n,
          saturatedShards() > 0 ? "  WARNING: saturated shards' FPR rises with every URL" : "");
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
    boolean scalable = h.kind() != FilterSpec.Kind.STABLE;
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
    StableHolding holding = scalable ? null : new StableHolding(h.stableGeometry());
    for (Shard s : shards) {
      line(
          b,
          "  %5d  %,12d  %6d  %10s  %8s  %9s  %9s  %s",
          s.shard(),
          s.header().inserts(),
          s.model().sliceCount(),
          ByteSize.format(s.model().sizeBytes()),
          FilterPlan.pct(set(s)),
          FilterPlan.pct(s.model().estimatedFpr()),
          FilterPlan.pct(measured(s)),
          scalable
              ? (s.header().saturated() ? "yes" : "no")
              : String.format(Locale.ROOT, "%,.0f", holding.held(s.header().inserts())));
    }
    return b.toString();
  }

  double meanSet() {
    return shards.stream().mapToDouble(StateReport::set).average().orElse(0);
  }

  double meanFill() {
    return shards.stream().mapToDouble(s -> s.model().fillRatio()).average().orElse(0);
  }

  /** Set fraction over the shard's slices, weighted by their bits. */
  static double set(Shard s) {
    double set = 0;
    double total = 0;
    FilterHeader h = s.header();
    for (int i = 0; i < s.bits().setFraction.length; i++) {
      double units =
          switch (h.kind()) {
            case STABLE -> h.stableGeometry().cells();
            case SCALABLE -> h.sliceBlocks(i) * (double) FilterMath.BLOCK_BITS;
            case AGED -> h.agedGeometry().rows() * (double) h.agedGeometry().segmentBits();
          };
      set += s.bits().setFraction[i] * units;
      total += units;
    }
    return total == 0 ? 0 : set / total;
  }

  static double measured(Shard s) {
    double pass = 1;
    for (double f : s.bits().measuredFpr) {
      pass *= 1 - f;
    }
    return 1 - pass;
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
      g.writeStringField(
          "canonicalizationFingerprint",
          String.format("%016x", h.mapping().canonicalizationFingerprint()));
      g.writeStringField("canonicalizationSettings", h.mapping().canonicalizationSettings());
      g.writeNumberField("fpr", spec.fpr());
      if (h.kind() == FilterSpec.Kind.AGED) {
        new AgedStateReport(this).json(g, h, (AgedSpec) spec);
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
    boolean stable = spec instanceof StableSpec;
    if (spec instanceof StableSpec s) {
      g.writeNumberField("memoryBytesPerShard", s.memoryBytes());
      g.writeNumberField("cellBits", s.cellBits());
    }
    ScalableSpec scalable = spec instanceof ScalableSpec s ? s : null;
    if (scalable != null) {
      g.writeNumberField("capacityPerShard", scalable.capacity());
      g.writeNumberField("growth", scalable.growth());
      g.writeNumberField("tightening", scalable.tightening());
      g.writeNumberField("maxMemoryBytesPerShard", scalable.maxMemoryBytes());
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
      FilterPlan.Cap cap = FilterPlan.cap(scalable);
      g.writeNumberField("capReachedAtUrls", cap.urlsPerShard() * shardCount());
      g.writeNumberField("capBytes", cap.bytesPerShard() * shardCount());
      g.writeNumberField("maxMemoryBytes", scalable.maxMemoryBytes() * shardCount());
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

  static String duration(long millis) {
    return org.apache.flink.util.TimeUtils.formatWithHighestUnit(
        java.time.Duration.ofMillis(millis));
  }

  static String num(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15
        ? Long.toString((long) v)
        : String.format(Locale.ROOT, "%.4g", v);
  }

  static void line(StringBuilder b, String format, Object... args) {
    b.append(String.format(Locale.ROOT, format, args)).append('\n');
  }

  private static String lower(FilterSpec.Kind k) {
    return k.name().toLowerCase(Locale.ROOT);
  }
}
