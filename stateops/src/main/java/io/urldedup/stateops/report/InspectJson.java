package io.urldedup.stateops.report;

import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;
import io.urldedup.state.plan.ScalablePlan;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code inspect --json}: a {@link StateReport}'s numbers as the tree {@link JsonWriter} prints.
 * Keys, their order and their values are an interface (scripts parse them; InspectGoldenTest pins
 * them): a key only present for some states is left out, not null.
 */
final class InspectJson {

  private InspectJson() {}

  static Map<String, Object> tree(StateReport r) {
    FilterHeader h = r.header();
    FilterSpec spec = h.spec();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("path", r.at().display());
    doc.put("snapshotFormat", r.at().nativeRocksDb() ? "native-rocksdb" : "canonical");
    doc.put("maxParallelism", r.at().maxParallelism());
    doc.put("bytesOnDisk", r.bytesOnDisk());
    Map<String, Object> filter = new LinkedHashMap<>();
    filter.put("kind", lower(h.kind()));
    filter.put("formatVersion", h.formatVersion());
    filter.put("seedFingerprint", String.format(Locale.ROOT, "%016x", h.seedFingerprint()));
    filter.put("shards", r.shardCount());
    filter.put(
        "canonicalizationFingerprint",
        String.format(Locale.ROOT, "%016x", h.mapping().canonicalizationFingerprint()));
    filter.put("canonicalizationSettings", h.mapping().canonicalizationSettings());
    filter.put("fpr", spec.fpr());
    doc.put("filter", filter);
    if (spec instanceof AgedSpec aged) {
      aged(r, aged, filter, doc);
    } else {
      bloom(r, spec, filter, doc);
    }
    return doc;
  }

  /** Stable and scalable: the filter object's flags on, then the totals and the shards. */
  private static void bloom(
      StateReport r, FilterSpec spec, Map<String, Object> filter, Map<String, Object> doc) {
    if (spec instanceof StableSpec s) {
      filter.put("memoryBytesPerShard", s.memoryBytes());
      filter.put("cellBits", s.cellBits());
    }
    ScalableSpec scalable = spec instanceof ScalableSpec s ? s : null;
    if (scalable != null) {
      filter.put("capacityPerShard", scalable.capacity());
      filter.put("growth", scalable.growth());
      filter.put("tightening", scalable.tightening());
      filter.put("maxMemoryBytesPerShard", scalable.maxMemoryBytes());
    }
    Map<String, Object> total = new LinkedHashMap<>();
    total.put("shardsInState", r.shards().size());
    total.put("inserts", r.inserts());
    if (scalable == null) {
      total.put("heldEstimate", Math.round(r.held()));
    } else {
      total.put("bitEstimate", Math.round(r.bitEstimate()));
      total.put("bitEstimateSd", Math.round(r.bitEstimateSd()));
      ScalablePlan.Cap cap = ScalablePlan.cap(scalable);
      total.put("capReachedAtUrls", cap.urlsPerShard() * r.shardCount());
      total.put("capBytes", cap.bytesPerShard() * r.shardCount());
      total.put("maxMemoryBytes", scalable.maxMemoryBytes() * r.shardCount());
      total.put("saturatedShards", r.saturatedShards());
    }
    total.put("memoryBytes", r.memoryBytes());
    total.put("fillRatio", r.fill());
    total.put("estimatedFpr", r.modelFpr());
    total.put("measuredFpr", r.measuredFpr());
    total.put("fprOverTarget", r.modelFpr() / spec.fpr());
    doc.put("total", total);
    List<Map<String, Object>> shards = new ArrayList<>();
    for (StateReport.Shard s : r.shards()) {
      Map<String, Object> shard = new LinkedHashMap<>();
      shard.put("shard", s.shard());
      shard.put("inserts", s.header().inserts());
      shard.put("slices", s.slices());
      shard.put("bytes", s.bytes());
      shard.put("storedPages", s.storedPages());
      shard.put("fillRatio", s.fill());
      shard.put("estimatedFpr", s.estimatedFpr());
      shard.put("measuredFpr", s.measuredFpr());
      if (scalable != null) {
        shard.put("saturated", s.header().saturated());
        List<Long> counts = new ArrayList<>();
        for (int i = 0; i < s.header().slices(); i++) {
          counts.add(s.header().sliceCount(i));
        }
        shard.put("sliceCounts", counts);
      }
      shards.add(shard);
    }
    doc.put("shards", shards);
  }

  private static void aged(
      StateReport r, AgedSpec spec, Map<String, Object> filter, Map<String, Object> doc) {
    FilterHeader h = r.header();
    AgedMath.Geometry geo = h.agedGeometry();
    AgedStateReport a = r.aged();
    filter.put("k", geo.k());
    filter.put("l", geo.l());
    filter.put("generationsAsked", spec.generations());
    if (spec.timed()) {
      filter.put("windowMillis", spec.windowMillis());
      filter.put("ratePerShard", spec.rate());
      filter.put("generationMillis", h.generationMillis());
    } else {
      filter.put("windowUrlsPerShard", spec.windowUrls());
    }
    filter.put("generationSizePerShard", geo.generationSize());
    filter.put("rowsPerShard", geo.rows());
    filter.put("bytesPerShard", geo.bytes());
    Map<String, Object> total = new LinkedHashMap<>();
    total.put("shardsInState", r.shards().size());
    total.put("inserts", r.inserts());
    total.put("ringEstimate", Math.round(a.ringEstimate()));
    total.put("ringEstimateSd", Math.round(a.ringEstimateSd()));
    if (!Double.isNaN(a.ringModel())) {
      total.put("ringModel", Math.round(a.ringModel()));
    }
    total.put("generationMin", a.generationMin());
    total.put("generationMax", a.generationMax());
    total.put("currentGenerationFill", a.currentGenerationFill());
    total.put("generationsAdvancedEarly", a.generationsAdvancedEarly());
    total.put("memoryBytes", r.memoryBytes());
    total.put("totalWindowUrls", spec.timed() ? 0 : spec.windowUrls() * r.shardCount());
    total.put("fillRatio", r.fill());
    total.put("modelFillRatio", r.modelFill());
    total.put("setFractionByPosition", a.setByPosition());
    total.put("estimatedFpr", r.modelFpr());
    total.put("measuredFpr", r.measuredFpr());
    total.put("fprOverTarget", r.modelFpr() / spec.fpr());
    doc.put("total", total);
    List<Map<String, Object>> shards = new ArrayList<>();
    for (StateReport.Shard s : r.shards()) {
      AgedClock c = s.header().agedClock();
      Map<String, Object> shard = new LinkedHashMap<>();
      shard.put("shard", s.shard());
      shard.put("inserts", s.header().inserts());
      shard.put("generation", c.generation());
      shard.put("currentGenerationCount", c.count());
      if (c.epoch() != AgedClock.NO_EPOCH) {
        shard.put("epoch", c.epoch());
      }
      shard.put("generationsAdvancedEarly", c.earlyAdvances());
      shard.put("bytes", s.bytes());
      shard.put("storedPages", s.storedPages());
      shard.put("fillRatio", s.fill());
      shard.put("estimatedFpr", s.estimatedFpr());
      shard.put("measuredFpr", s.measuredFpr());
      shards.add(shard);
    }
    doc.put("shards", shards);
  }

  static String lower(FilterSpec.Kind k) {
    return k.name().toLowerCase(Locale.ROOT);
  }
}
