package io.urldedup.stateops;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.api.SavepointReader;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/** Runs the State Processor API readers over a snapshot and collects what they emit. */
public final class FilterStateReader {

  private FilterStateReader() {}

  /** One report per shard in state. */
  public static List<ShardReport> shards(StreamExecutionEnvironment env, StateLocation at)
      throws Exception {
    return read(env, at, new ShardStateReader(), TypeInformation.of(ShardReport.class));
  }

  /**
   * Answers for the hashed URLs ({@code queries}: per shard, index, h1, h2 flattened), plus one
   * fingerprint record (index -1) per shard in state.
   */
  public static List<ProbeAnswer> probe(
      StreamExecutionEnvironment env, StateLocation at, HashMap<Integer, long[]> queries)
      throws Exception {
    return read(env, at, new ProbeReader(queries), TypeInformation.of(ProbeAnswer.class));
  }

  static <T> List<T> read(
      StreamExecutionEnvironment env,
      StateLocation at,
      FilterShardReader<T> fn,
      TypeInformation<T> type)
      throws Exception {
    StateBackend backend =
        at.nativeRocksDb() ? new EmbeddedRocksDBStateBackend() : new HashMapStateBackend();
    DataStream<T> s =
        SavepointReader.read(env, at.path().toString(), backend)
            .readKeyedState(FilterStates.OPERATOR, fn, Types.INT, type);
    List<T> out = new ArrayList<>();
    try (CloseableIterator<T> it = s.executeAndCollect("urldedup state reader")) {
      it.forEachRemaining(out::add);
    }
    return out;
  }
}
