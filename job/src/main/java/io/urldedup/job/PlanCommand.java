package io.urldedup.job;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.PageCacheSizing;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.ByteSize;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.ScalableMath;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;
import io.urldedup.state.plan.FilterPlan;
import io.urldedup.state.plan.PlanJson;
import io.urldedup.state.plan.PlanText;
import io.urldedup.stateops.report.JsonWriter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code plan}: the filter's plan ({@link FilterPlan}) with the job around it (shards, parallelism,
 * page cache, checkpoints, and with {@code --rate} the {@link ClusterShape}), as text or as one
 * JSON document (docs/plan-json.md).
 */
final class PlanCommand {

  private PlanCommand() {}

  /**
   * Version of the {@code plan --json} document; bump only for an incompatible change (keys are
   * only added).
   */
  static final int PLAN_JSON_VERSION = 1;

  /**
   * The plan's numbers, one JSON object: job-level keys, then the filter kind's own object (key =
   * the kind, e.g. {@code "stable"}) from {@link PlanJson}. Rates are fractions, sizes bytes.
   */
  static String json(JobConfig c) {
    FilterSpec spec = c.perShardSpec();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("planVersion", PLAN_JSON_VERSION);
    String kind = spec.kind().name().toLowerCase(Locale.ROOT);
    doc.put("filter", kind);
    doc.put("fpr", spec.fpr());
    doc.put("shards", c.shards);
    doc.put("maxParallelism", c.maxParallelism());
    doc.put("parallelism", c.parallelism > 0 ? c.parallelism : null);
    doc.put("shardsPerSubtask", c.parallelism > 0 ? ceilDiv(c.shards, c.parallelism) : null);
    doc.put("cachePagesPerSubtask", c.cachePages());
    doc.put("cacheBytesPerSubtask", c.cachePages() * 4096L);
    doc.put(kind, PlanJson.tree(FilterPlan.of(spec, c.shards)));
    if (c.rate > 0) {
      doc.put("cluster", clusterShape(c).facts());
    }
    return JsonWriter.write(doc);
  }

  /** The per-shard filter plan and the job-level view. */
  static String text(JobConfig c) {
    FilterSpec spec = c.perShardSpec();
    StringBuilder b = new StringBuilder(PlanText.render(FilterPlan.of(spec, c.shards)));
    if (b.length() > 0 && b.charAt(b.length() - 1) != '\n') {
      b.append('\n');
    }
    b.append("\nJob\n");
    b.append("  shards:           ").append(c.shards).append('\n');
    b.append("  max parallelism:  ")
        .append(c.maxParallelism())
        .append(" (savepoints rescale up to this)\n");
    if (c.parallelism > 0) {
      b.append("  parallelism:      ")
          .append(c.parallelism)
          .append(" (")
          .append(ceilDiv(c.shards, c.parallelism))
          .append(" shards per subtask at most)\n");
    } else {
      b.append("  parallelism:      cluster default\n");
    }
    if (spec instanceof AgedSpec aged) {
      b.append("  total memory:     ")
          .append(ByteSize.format(aged.geometry().bytes() * c.shards))
          .append(" (")
          .append(ByteSize.format(aged.geometry().bytes()))
          .append(" per shard)\n");
      if (c.generationTime() != null) {
        b.append("  time:             ")
            .append(
                c.generationTime().event()
                    ? "event (record timestamps, watermark "
                        + c.maxOutOfOrderness.toMillis()
                        + " ms behind)"
                    : "processing")
            .append('\n');
      }
    } else if (spec instanceof StableSpec stable) {
      b.append("  total memory:     ")
          .append(ByteSize.format(stable.memoryBytes() * c.shards))
          .append(" (")
          .append(ByteSize.format(stable.memoryBytes()))
          .append(" per shard)\n");
    } else if (spec instanceof ScalableSpec scalable) {
      b.append("  total capacity:   ")
          .append(scalable.capacity() * c.shards)
          .append(" URLs in the first slices\n");
      b.append("  total max memory: ")
          .append(ByteSize.format(scalable.maxMemoryBytes() * c.shards))
          .append(" (")
          .append(ByteSize.format(scalable.maxMemoryBytes()))
          .append(" per shard)\n");
    }
    if (c.cachePages() == DedupOperator.AUTO_CACHE) {
      int shardsPerSubtask = c.parallelism > 0 ? ceilDiv(c.shards, c.parallelism) : c.shards;
      b.append("  page cache:       auto: up to ")
          .append(ByteSize.format(PageCacheSizing.filterPages(spec) * shardsPerSubtask * 4096L))
          .append(" per subtask (its shards' whole filter), at most ")
          .append(Math.round(PageCacheSizing.HEAP_SHARE * 100))
          .append("% of the TaskManager heap over its slots\n");
    } else {
      b.append("  page cache:       ")
          .append(c.cachePages())
          .append(" pages (")
          .append(ByteSize.format(c.cachePages() * 4096L))
          .append(") per subtask\n");
    }
    if (c.materializeEvery == 1) {
      b.append(
          "  checkpoints:      every checkpoint writes the pages its shards changed (--materialize-every 1)\n");
    } else {
      b.append("  checkpoints:      the inserts since the last (16 B each); every ")
          .append(c.materializeEvery)
          .append("th also the pages of the shards changed since: a restore replays at most ")
          .append(c.materializeEvery)
          .append(" intervals of inserts")
          .append(c.rate > 0 ? " (below)" : " (plan --rate R: how many, and how long)")
          .append('\n');
    }
    if (c.rate > 0) {
      b.append(clusterShape(c).render());
    }
    return b.toString();
  }

  /**
   * The cluster for {@code --rate} records/s; the filter at its planned size (scalable: its first
   * slices).
   */
  static ClusterShape clusterShape(JobConfig c) {
    FilterSpec spec = c.perShardSpec();
    long perShard =
        spec instanceof StableSpec s
            ? s.memoryBytes()
            : spec instanceof ScalableSpec s
                ? ScalableMath.sliceBytes(s.fpr(), s.capacity(), s.growth(), s.tightening(), 0)
                : ((AgedSpec) spec).geometry().bytes();
    double interval =
        (c.checkpointInterval != null ? c.checkpointInterval : Flags.defaultCheckpointInterval())
                .toMillis()
            / 1000.0;
    return ClusterShape.of(
        c.rate, perShard * c.shards, c.materializeEvery, interval, c.maxParallelism());
  }

  private static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
