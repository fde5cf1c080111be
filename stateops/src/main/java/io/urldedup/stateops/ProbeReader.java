package io.urldedup.stateops;

import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.Filters;
import io.urldedup.state.PageStore;
import io.urldedup.state.ScalableBloomFilter;
import java.util.HashMap;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * Answers "seen?" for hashed URLs with the shard's stored filter, read-only (the filter's own
 * {@code mightContain}, over pages fetched from the MapState one at a time). Every shard in state
 * also reports its seed fingerprint, so the caller refuses a seed the state was not written with.
 */
final class ProbeReader extends KeyedStateReaderFunction<Integer, ProbeAnswer> {

  private static final long serialVersionUID = 1L;

  /** Per shard: index, h1, h2 of each URL asked, flattened. */
  private final HashMap<Integer, long[]> queries;

  private transient ValueState<FilterHeader> header;
  private transient MapState<Long, long[]> pages;

  ProbeReader(HashMap<Integer, long[]> queries) {
    this.queries = queries;
  }

  @Override
  public void open(OpenContext context) {
    header = getRuntimeContext().getState(FilterStates.header());
    pages = getRuntimeContext().getMapState(FilterStates.pages());
  }

  @Override
  public void readKey(Integer shard, Context ctx, Collector<ProbeAnswer> out) throws Exception {
    FilterHeader h = header.value();
    if (h == null) {
      return;
    }
    out.collect(ProbeAnswer.mapping(shard, h.mapping()));
    long[] q = queries.get(shard);
    if (q == null) {
      return;
    }
    DedupFilter f = Filters.open(h, new StatePages());
    for (int i = 0; i < q.length; i += 3) {
      int slice = f instanceof ScalableBloomFilter s ? s.sliceContaining(q[i + 1], q[i + 2]) : -1;
      boolean seen = f instanceof ScalableBloomFilter ? slice >= 0 : f.mightContain(q[i + 1], q[i + 2]);
      out.collect(ProbeAnswer.of((int) q[i], shard, seen, slice));
    }
  }

  /** The shard's pages, read on demand; a page never written reads as zeros. */
  private final class StatePages implements PageStore {
    private final long[] zeros = new long[PAGE_WORDS];

    @Override
    public long[] page(long pageId) {
      try {
        long[] p = pages.get(pageId);
        return p == null ? zeros : p;
      } catch (Exception e) {
        throw new IllegalStateException("cannot read page " + pageId + " from state", e);
      }
    }

    @Override
    public void markDirty(long pageId) {
      throw new UnsupportedOperationException("probe reads state; it never writes");
    }
  }
}
