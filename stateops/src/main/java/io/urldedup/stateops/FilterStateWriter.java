package io.urldedup.stateops;

import io.urldedup.operators.UrlRecord;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.UrlMapping;
import org.apache.flink.api.common.functions.Partitioner;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.state.api.OperatorTransformation;
import org.apache.flink.state.api.SavepointWriter;
import org.apache.flink.state.api.StateBootstrapTransformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Bootstrap: adds to {@code records}' environment a batch job that applies the dedup operator's
 * decisions to them ({@link BootstrapFilterOperator}) and writes the resulting filters as a
 * savepoint of the operator's uid and states ({@code env.execute()} runs it). Restored by {@code
 * flink run -s} or {@code run --state}, the job holds exactly what a run over the same records
 * would have left.
 *
 * <p>Order: a shard's decisions depend on the order of its URLs (stable and aged filters, and where
 * a scalable filter grows). The records come from one reader; they are partitioned by shard (a
 * custom partitioner: no sort), and one upstream channel keeps their order per shard, as the
 * streaming job's keyBy does.
 *
 * <p>Parallelism (the environment's, P): the filters run in P subtasks, shard s in subtask s mod P,
 * each holding its shards' filters on its heap; at P = 1 the whole pipeline is one chained task.
 * Their pages then go, keyed by shard, to P writer subtasks that own the shards' key groups and
 * write their part of the savepoint in parallel. Useful P is at most {@code --shards}.
 */
public final class FilterStateWriter {

  private FilterStateWriter() {}

  /**
   * @param spec each shard's filter (an aged filter only with a count window: the time of each URL
   *     is not in a file)
   * @param mapping seed fingerprint, shard count and canonicalization recorded in the headers
   * @param backend the backend that writes the snapshot (the savepoint is canonical: either backend
   *     restores it)
   * @param maxParallelism the job's max parallelism (key groups), which a restore must match
   */
  public static void bootstrap(
      DataStream<UrlRecord> records,
      FilterSpec spec,
      UrlMapping mapping,
      StateBackend backend,
      int maxParallelism,
      String savepointPath) {
    StreamExecutionEnvironment env = records.getExecutionEnvironment();
    int p = env.getParallelism();
    DataStream<HashedUrl> hashed =
        records
            .map(HashedUrl::of)
            .returns(TypeInformation.of(HashedUrl.class))
            .setParallelism(records.getParallelism())
            .name("hash only");
    if (p != records.getParallelism()) {
      hashed = hashed.partitionCustom(new ByShard(), new ShardOf());
    }
    DataStream<ShardPage> pages =
        hashed
            .transform(
                "filters",
                TypeInformation.of(ShardPage.class),
                new BootstrapFilterOperator(spec, mapping))
            .setParallelism(p);
    StateBootstrapTransformation<ShardPage> t =
        OperatorTransformation.bootstrapWith(pages)
            .keyBy(new PageShard(), Types.INT)
            .transform(new FilterStateBootstrapFunction());
    SavepointWriter.newSavepoint(env, backend, maxParallelism)
        .withOperator(FilterStates.OPERATOR, t)
        .write(savepointPath);
  }

  static final class ShardOf implements KeySelector<HashedUrl, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer getKey(HashedUrl u) {
      return u.shard;
    }
  }

  /** Shard s to filter subtask s mod P. */
  static final class ByShard implements Partitioner<Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public int partition(Integer shard, int partitions) {
      return shard % partitions;
    }
  }

  static final class PageShard implements KeySelector<ShardPage, Integer> {
    private static final long serialVersionUID = 1L;

    @Override
    public Integer getKey(ShardPage p) {
      return p.shard;
    }
  }
}
