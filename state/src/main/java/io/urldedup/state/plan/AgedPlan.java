package io.urldedup.state.plan;

import io.urldedup.state.AgedMath;
import io.urldedup.state.AgedSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The aged filter's plan: its layout, FPR, window and the forgetting after it. The model's figures
 * (FPR, forgotten-by point, the forgetting rows) are Monte Carlo estimates: computed here once, not
 * per output.
 *
 * @param forgottenByShifts generations after its own by which {@link AgedMath#FORGOTTEN_SHARE} of
 *     URLs are forgotten
 * @param forgetting from l generations to just past {@code forgottenByShifts}
 */
public record AgedPlan(
    AgedSpec spec,
    int shards,
    AgedMath.Geometry geometry,
    double modelFpr,
    int forgottenByShifts,
    double slack,
    List<AgeRow> forgetting)
    implements FilterPlan {

  /** A URL {@code generations} generations old, and the chance it is emitted again if seen. */
  public record AgeRow(int generations, double reemittedIfSeenAgain) {}

  public static AgedPlan of(AgedSpec spec, int shards) {
    AgedMath.Geometry g = spec.geometry();
    int by = g.forgottenByShifts();
    List<AgeRow> rows = new ArrayList<>();
    // a URL of age a has seen at least floor(a / generation) shifts since its own generation
    for (int s = g.l(); s <= Math.min(g.slices(), by + 1); s++) {
      rows.add(new AgeRow(s, 1 - g.seenAfter(s)));
    }
    return new AgedPlan(spec, shards, g, g.fpr(), by, (double) by / g.l() - 1, List.copyOf(rows));
  }

  /** Time windows: the generation's length; count windows: 0. */
  public long generationMillis() {
    return spec.timed() ? spec.generationMillis() : 0;
  }
}
