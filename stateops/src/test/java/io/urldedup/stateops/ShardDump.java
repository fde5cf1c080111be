package io.urldedup.stateops;

import io.urldedup.state.FilterHeader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.util.Collector;

/**
 * One shard's whole state as read from a snapshot or a live backend (a Flink POJO): the header's
 * bytes and every page, by id. Two states are the same iff their dumps are equal.
 */
public class ShardDump {

  public int shard;
  public byte[] header;
  public long[] pageIds;
  public long[] words;

  public ShardDump() {}

  static ShardDump of(int shard, FilterHeader h, Iterable<Map.Entry<Long, long[]>> pages) {
    TreeMap<Long, long[]> sorted = new TreeMap<>();
    for (Map.Entry<Long, long[]> e : pages) {
      sorted.put(e.getKey(), e.getValue().clone());
    }
    ShardDump d = new ShardDump();
    d.shard = shard;
    d.header = FilterStates.encode(h);
    d.pageIds = sorted.keySet().stream().mapToLong(Long::longValue).toArray();
    List<long[]> all = new ArrayList<>(sorted.values());
    d.words = all.stream().flatMapToLong(Arrays::stream).toArray();
    return d;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShardDump d
        && d.shard == shard
        && Arrays.equals(d.header, header)
        && Arrays.equals(d.pageIds, pageIds)
        && Arrays.equals(d.words, words);
  }

  @Override
  public int hashCode() {
    return shard;
  }

  @Override
  public String toString() {
    return "shard "
        + shard
        + ": header "
        + FilterStates.decode(header)
        + ", pages "
        + Arrays.toString(pageIds)
        + ", words hash "
        + Arrays.hashCode(words);
  }

  /** The reader that dumps every shard of a snapshot. */
  static final class Reader extends FilterShardReader<ShardDump> {
    private static final long serialVersionUID = 1L;

    @Override
    void read(int shard, FilterHeader header, ReplayedPages pages, Collector<ShardDump> out)
        throws Exception {
      TreeMap<Long, long[]> all = new TreeMap<>();
      pages.forEach(all::put);
      out.collect(ShardDump.of(shard, header, all.entrySet()));
    }
  }
}
