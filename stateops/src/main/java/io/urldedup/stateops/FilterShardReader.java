package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.state.FilterHeader;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * A State Processor API reader of the dedup operator's shards: opens its two keyed states (the
 * operator's own descriptors) and hands each shard that has a header to {@link #read}.
 */
abstract class FilterShardReader<T> extends KeyedStateReaderFunction<Integer, T> {

  private static final long serialVersionUID = 1L;

  private transient ValueState<FilterHeader> header;
  private transient MapState<Long, long[]> pages;

  @Override
  public void open(OpenContext context) throws Exception {
    header = getRuntimeContext().getState(DedupOperator.headerDescriptor());
    pages = getRuntimeContext().getMapState(DedupOperator.pagesDescriptor());
  }

  @Override
  public final void readKey(Integer shard, Context ctx, Collector<T> out) throws Exception {
    FilterHeader h = header.value();
    if (h != null) {
      read(shard, h, pages, out);
    }
  }

  /** One shard: its header as stored, and its pages (absent pages are zeros). */
  abstract void read(int shard, FilterHeader header, MapState<Long, long[]> pages, Collector<T> out) throws Exception;
}
