package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.UrlRecord;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * Bootstrap: adds to {@code records}' environment a batch job that runs the job's dedup operator
 * over them and writes its state as a savepoint of the operator's uid ({@code env.execute()} runs
 * it). Restored by {@code flink run -s} or {@code run --state}, the job answers "seen" for every
 * URL a run over the same records would have recorded.
 *
 * <p>Order: a shard's decisions depend on the order of its URLs (stable filters, and where a
 * scalable filter grows). In batch mode Flink sorts a keyed input by key and then by timestamp,
 * so each record's timestamp is set to its position in its input subtask: a single reader (the
 * embedded file source) keeps the file's order within every shard, as the streaming job does.
 *
 * <p>Parallelism: the sort and the operator run with the environment's parallelism, each subtask
 * owning the shards of its key groups; on a cluster a bootstrap scales out like the job itself,
 * up to the max parallelism (the shard count bounds useful parallelism).
 */
public final class FilterStateWriter {

  private FilterStateWriter() {}

  /**
   * @param backend the backend that writes the snapshot (the savepoint is canonical: either
   *     backend restores it)
   * @param maxParallelism the job's max parallelism (key groups), which a restore must match
   */
  public static void bootstrap(DataStream<UrlRecord> records, DedupOperator operator, StateBackend backend,
      int maxParallelism, String savepointPath) {
    DataStream<HashedUrl> hashed = records
        .map(HashedUrl::of)
        .returns(TypeInformation.of(HashedUrl.class))
        .setParallelism(records.getParallelism())
        .name("hash only")
        .assignTimestampsAndWatermarks(WatermarkStrategy.<HashedUrl>noWatermarks()
            .withTimestampAssigner(new InputOrder()))
        .setParallelism(records.getParallelism());
    StateBootstrapTransformation<HashedUrl> t = OperatorTransformation.bootstrapWith(hashed)
        .keyBy(new ShardOf(), Types.INT)
        .transform((timestamp, path) -> new DedupBootstrapOperatorFactory(operator, 0L, timestamp, path));
    SavepointWriter.newSavepoint(records.getExecutionEnvironment(), backend, maxParallelism)
        .withOperator(FilterStates.OPERATOR, t)
        .write(savepointPath);
  }

  /** Timestamp = position in this subtask's input, so batch mode's key-then-timestamp sort keeps input order. */
  static final class InputOrder implements SerializableTimestampAssigner<HashedUrl> {
    private static final long serialVersionUID = 1L;
    private long next;

    @Override
    public long extractTimestamp(HashedUrl element, long recordTimestamp) {
      return next++;
    }
  }

  static final class ShardOf implements KeySelector<HashedUrl, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer getKey(HashedUrl u) {
      return u.shard;
    }
  }
}
