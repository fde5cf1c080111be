package io.urldedup.operators;

import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.PageStore;
import io.urldedup.state.UrlMapping;

/**
 * What one record does to its shard's filter, and whether it goes out: the decision of {@link
 * DedupOperator}, shared with the bootstrap (module stateops), so that a bootstrap leaves exactly
 * the state a run over the same records leaves, by construction. The state a shard starts from and
 * the order of its records are the caller's; time windows (aged, {@code --window}) advance the
 * filter before the decision and are the operator's alone.
 */
public final class DedupDecision {

  private DedupDecision() {}

  /** A shard that has seen nothing yet: a new header of {@code spec}, recording {@code mapping}. */
  public static DedupFilter newShard(FilterSpec spec, UrlMapping mapping, PageStore pages) {
    return Filters.open(spec.newHeader(mapping), pages);
  }

  /**
   * Whether the record goes out. A forced record is recorded and goes out whatever the filter says
   * (Heritrix addForce); any other goes out iff the filter has not seen it, and is then recorded (a
   * repeat is a read).
   */
  public static boolean emits(DedupFilter filter, long h1, long h2, boolean force) {
    if (force) {
      filter.add(h1, h2);
      return true;
    }
    return !filter.testAndAdd(h1, h2);
  }
}
