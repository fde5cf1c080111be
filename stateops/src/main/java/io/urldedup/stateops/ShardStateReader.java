package io.urldedup.stateops;

import io.urldedup.state.FilterHeader;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.util.Collector;

/** Reads one shard's header and all its pages once, and summarizes the bits ({@link ShardBits}). */
final class ShardStateReader extends FilterShardReader<ShardReport> {

  private static final long serialVersionUID = 1L;

  @Override
  void read(int shard, FilterHeader h, MapState<Long, long[]> pages, Collector<ShardReport> out) throws Exception {
    ShardBits bits = new ShardBits(h);
    for (Map.Entry<Long, long[]> e : pages.entries()) {
      bits.page(e.getKey(), e.getValue());
    }
    out.collect(bits.report(shard));
  }
}
