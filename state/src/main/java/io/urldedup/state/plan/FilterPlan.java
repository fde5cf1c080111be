package io.urldedup.state.plan;

import io.urldedup.state.AgedSpec;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.InvalidSpecException;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;

/**
 * What the job's {@code plan} command shows: the concrete filter a spec turns into, per shard and
 * in total, and what to expect of it (FPR, forgetting, growth, where the memory cap bites). Each
 * kind's numbers are computed once, in its record; {@link PlanText} and {@link PlanJson} only
 * format them, so the text and {@code plan --json} cannot disagree.
 */
public sealed interface FilterPlan permits StablePlan, ScalablePlan, AgedPlan {

  int shards();

  static FilterPlan of(FilterSpec spec, int shards) {
    if (shards < 1) {
      throw new InvalidSpecException("{shards} must be >= 1; got " + shards);
    }
    if (spec instanceof StableSpec s) {
      return StablePlan.of(s, shards);
    }
    return spec instanceof ScalableSpec s
        ? ScalablePlan.of(s, shards)
        : AgedPlan.of((AgedSpec) spec, shards);
  }

  /** The text of {@code plan}'s filter section. */
  static String render(FilterSpec spec, int shards) {
    return PlanText.render(of(spec, shards));
  }
}
