package io.urldedup.state.plan;

import io.urldedup.state.AgedMath;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableMath;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link FilterPlan}'s numbers as the filter kind's object of {@code plan --json}: a tree of
 * insertion-ordered maps, lists and scalars (rates as fractions, sizes in bytes), which the job
 * prints with its one JSON writer (this module has no JSON library). Key names and order are an
 * interface (scripts parse them): add keys, do not rename or remove them; a new filter kind adds
 * its own branch. See docs/plan-json.md.
 */
public final class PlanJson {

  private PlanJson() {}

  public static Map<String, Object> tree(FilterPlan plan) {
    if (plan instanceof StablePlan p) {
      return stable(p);
    }
    return plan instanceof ScalablePlan p ? scalable(p) : aged((AgedPlan) plan);
  }

  private static Map<String, Object> stable(StablePlan plan) {
    StableMath.Geometry g = plan.geometry();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("cellBits", g.cellBits());
    out.put("max", g.max());
    out.put("k", g.k());
    out.put("p", g.p());
    out.put("blockWords", g.blockWords());
    out.put("cellsPerShard", g.cells());
    out.put("blocksPerShard", g.blocks());
    out.put("bytesPerShard", plan.bytesPerShard());
    out.put("totalBytes", plan.totalBytes());
    out.put("stableFpr", g.stableFpr());
    out.put("stableZeroFraction", g.stableZeroFraction());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (StablePlan.ForgettingRow r : plan.forgetting()) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("newUrls", r.newUrls());
      row.put("reemittedIfSeenAgain", r.reemittedIfSeenAgain());
      row.put("forgottenBy", r.forgottenBy());
      rows.add(row);
    }
    out.put("forgetting", rows);
    return out;
  }

  private static Map<String, Object> scalable(ScalablePlan plan) {
    ScalableSpec spec = plan.spec();
    int shards = plan.shards();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("capacityPerShard", spec.capacity());
    out.put("growth", spec.growth());
    out.put("tightening", spec.tightening());
    out.put("firstSliceFpr", plan.firstSliceFpr());
    out.put("firstSliceK", plan.firstSlice().k());
    out.put("firstSliceBitsPerUrl", plan.firstSlice().bitsPerElement());
    out.put("firstSliceBytesPerShard", plan.firstSliceBytesPerShard());
    out.put("maxMemoryPerShard", spec.maxMemoryBytes());
    out.put("totalMaxMemory", spec.maxMemoryBytes() * shards);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ScalablePlan.GrowthRow r : plan.growthTable()) {
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
    ScalablePlan.Cap c = plan.cap();
    out.put("capReachedAfterUrlsPerShard", c.urlsPerShard());
    out.put("capReachedAfterUrls", c.urlsPerShard() * shards);
    out.put("slicesAtCap", c.slices());
    out.put("bytesPerShardAtCap", c.bytesPerShard());
    return out;
  }

  /**
   * Time windows in milliseconds, count windows in new URLs per shard; the keys of the other window
   * kind are null.
   */
  private static Map<String, Object> aged(AgedPlan plan) {
    AgedSpec spec = plan.spec();
    AgedMath.Geometry g = plan.geometry();
    int shards = plan.shards();
    boolean timed = spec.timed();
    long d = plan.generationMillis();
    int by = plan.forgottenByShifts();
    Map<String, Object> out = new LinkedHashMap<>();
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
    out.put("modelFpr", plan.modelFpr());
    out.put("guaranteedWindowMillis", timed ? (long) g.l() * d : null);
    out.put("guaranteedWindowUrlsPerShard", timed ? null : g.guaranteedInserts());
    out.put("slack", plan.slack());
    out.put("forgottenShare", AgedMath.FORGOTTEN_SHARE);
    out.put("forgottenByGenerations", by);
    out.put("forgottenByMillis", timed ? by * d : null);
    out.put("forgottenByUrlsPerShard", timed ? null : by * g.generationSize());
    List<Map<String, Object>> rows = new ArrayList<>();
    for (AgedPlan.AgeRow r : plan.forgetting()) {
      int s = r.generations();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("generations", s);
      row.put("ageMillis", timed ? s * d : null);
      row.put("ageUrlsPerShard", timed ? null : s * g.generationSize());
      row.put("reemittedIfSeenAgain", r.reemittedIfSeenAgain());
      rows.add(row);
    }
    out.put("forgetting", rows);
    return out;
  }
}
