package io.urldedup.stateops;

import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.Filters;
import io.urldedup.state.ScalableBloomFilter;
import java.util.HashMap;
import org.apache.flink.util.Collector;

/**
 * Answers "seen?" for hashed URLs with the shard's stored filter, read-only (the filter's own
 * {@code mightContain} over {@link ReplayedPages}). Every shard in state also reports its seed
 * fingerprint, so the caller refuses a seed the state was not written with.
 */
final class ProbeReader extends FilterShardReader<ProbeAnswer> {

  private static final long serialVersionUID = 1L;

  /** Per shard: index, h1, h2 of each URL asked, flattened. */
  private final HashMap<Integer, long[]> queries;

  ProbeReader(HashMap<Integer, long[]> queries) {
    this.queries = queries;
  }

  @Override
  void read(int shard, FilterHeader h, ReplayedPages pages, Collector<ProbeAnswer> out) {
    out.collect(ProbeAnswer.mapping(shard, h.mapping()));
    long[] q = queries.get(shard);
    if (q == null) {
      return;
    }
    DedupFilter f = Filters.open(h, pages);
    ScalableBloomFilter scalable = f instanceof ScalableBloomFilter s ? s : null;
    for (int i = 0; i < q.length; i += 3) {
      int slice = scalable != null ? scalable.sliceContaining(q[i + 1], q[i + 2]) : -1;
      boolean seen = scalable != null ? slice >= 0 : f.mightContain(q[i + 1], q[i + 2]);
      out.collect(ProbeAnswer.of((int) q[i], shard, seen, slice));
    }
  }
}
