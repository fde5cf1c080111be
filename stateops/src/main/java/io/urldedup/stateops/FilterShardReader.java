package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.Filters;
import io.urldedup.state.InsertLog;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * A State Processor API reader of the dedup operator's shards: opens its keyed states (the
 * operator's own descriptors) and hands each shard that has a header to {@link #read}. A shard with
 * insert log chunks ({@code --materialize-every} above 1) is handed over as the operator would
 * restore it: its log replayed, in chunk order, over a copy of its header and over its stored pages
 * (copied where the replay touches them; the snapshot is not changed).
 */
abstract class FilterShardReader<T> extends KeyedStateReaderFunction<Integer, T> {

  private static final long serialVersionUID = 1L;

  private transient ValueState<FilterHeader> header;
  private transient MapState<Long, long[]> pages;
  private transient MapState<Long, InsertLog> log;

  @Override
  public void open(OpenContext context) throws Exception {
    header = getRuntimeContext().getState(DedupOperator.headerDescriptor());
    pages = getRuntimeContext().getMapState(DedupOperator.pagesDescriptor());
    log = getRuntimeContext().getMapState(DedupOperator.logDescriptor());
  }

  @Override
  public final void readKey(Integer shard, Context ctx, Collector<T> out) throws Exception {
    FilterHeader h = header.value();
    if (h == null) {
      return;
    }
    ReplayedPages shardPages = new ReplayedPages(pages);
    List<Long> keys = new ArrayList<>();
    for (Long k : log.keys()) {
      keys.add(k);
    }
    if (!keys.isEmpty()) {
      keys.sort(null);
      h = h.copy();
      shardPages.startReplay();
      var filter = Filters.open(h, shardPages);
      for (Long k : keys) {
        log.get(k).replay(filter);
      }
    }
    read(shard, h, shardPages, out);
  }

  /** One shard: its header and pages (absent pages are zeros), with its insert log replayed. */
  abstract void read(int shard, FilterHeader header, ReplayedPages pages, Collector<T> out)
      throws Exception;
}
