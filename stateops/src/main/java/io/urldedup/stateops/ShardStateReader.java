package io.urldedup.stateops;

import io.urldedup.state.FilterHeader;
import org.apache.flink.util.Collector;

/** Reads one shard's header and all its pages once, and summarizes the bits ({@link ShardBits}). */
final class ShardStateReader extends FilterShardReader<ShardReport> {

  private static final long serialVersionUID = 1L;

  @Override
  void read(int shard, FilterHeader h, ReplayedPages pages, Collector<ShardReport> out)
      throws Exception {
    ShardBits bits = new ShardBits(h);
    pages.forEach(bits::page);
    out.collect(bits.report(shard));
  }
}
