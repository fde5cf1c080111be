package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.state.FilterHeader;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateBootstrapFunction;

/**
 * Writes a shard's header and pages ({@link ShardPage}s, keyed by shard) into the dedup operator's
 * two keyed states.
 */
final class FilterStateBootstrapFunction extends KeyedStateBootstrapFunction<Integer, ShardPage> {

  private static final long serialVersionUID = 1L;

  private transient ValueState<FilterHeader> header;
  private transient MapState<Long, long[]> pages;

  @Override
  public void open(OpenContext context) {
    header = getRuntimeContext().getState(DedupOperator.headerDescriptor());
    pages = getRuntimeContext().getMapState(DedupOperator.pagesDescriptor());
  }

  @Override
  public void processElement(ShardPage p, Context ctx) throws Exception {
    if (p.header != null) {
      header.update(FilterStates.decode(p.header));
    } else {
      pages.put(p.pageId, p.words);
    }
  }
}
