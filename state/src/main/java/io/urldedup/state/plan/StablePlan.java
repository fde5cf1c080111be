package io.urldedup.state.plan;

import io.urldedup.state.PageStore;
import io.urldedup.state.StableMath;
import io.urldedup.state.StableSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The stable filter's plan: its geometry, its memory in whole pages, and how fast it forgets.
 *
 * @param forgetting one row per {@link #GAPS} entry
 */
public record StablePlan(
    StableSpec spec,
    int shards,
    StableMath.Geometry geometry,
    long bytesPerShard,
    List<ForgettingRow> forgetting)
    implements FilterPlan {

  /**
   * New URLs (inserts, whole job) since a URL was emitted at which the stable filter's forgetting
   * is shown.
   */
  static final long[] GAPS = {100_000L, 1_000_000L, 10_000_000L, 100_000_000L, 1_000_000_000L};

  /** One row of the forgetting table. */
  public record ForgettingRow(long newUrls, double reemittedIfSeenAgain, double forgottenBy) {}

  public static StablePlan of(StableSpec spec, int shards) {
    StableMath.Geometry g = spec.geometry();
    List<ForgettingRow> rows = new ArrayList<>();
    for (long gap : GAPS) {
      long perShard = Math.max(1, gap / shards);
      rows.add(
          new ForgettingRow(
              gap, StableMath.falseNegative(g, perShard), StableMath.forgottenBy(g, perShard)));
    }
    return new StablePlan(spec, shards, g, pagesBytes(g), List.copyOf(rows));
  }

  public long totalBytes() {
    return bytesPerShard * shards;
  }

  private static long pagesBytes(StableMath.Geometry g) {
    return (g.blocks() * g.blockWords() + PageStore.PAGE_WORDS - 1)
        / PageStore.PAGE_WORDS
        * PageStore.PAGE_BYTES;
  }
}
