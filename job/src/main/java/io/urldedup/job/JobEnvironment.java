package io.urldedup.job;

import java.nio.file.Path;
import java.util.Locale;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.state.rocksdb.RocksDBOptions;

/**
 * The Flink configuration a run needs. Only operational settings go here: this configuration is
 * shown in the Web UI, so the seed and Kafka credentials never do (they travel inside the
 * operators).
 */
public final class JobEnvironment {

  private static final String LOOPBACK = "127.0.0.1";

  private JobEnvironment() {}

  public static Configuration configuration(JobConfig c) {
    Configuration conf = new Configuration();
    // Key groups bound rescaling: fixed from the shard count, savepoints rescale up to it.
    conf.set(PipelineOptions.MAX_PARALLELISM, c.maxParallelism());
    // every record type has its own serializer: fail at job build time rather than fall back to
    // Kryo
    conf.set(PipelineOptions.GENERIC_TYPES, false);
    // chained operators hand records on without a serializer copy: no operator keeps a record (or
    // its arrays) after emitting it, and the sinks serialize or write it at once
    conf.set(PipelineOptions.OBJECT_REUSE, true);
    conf.set(StateBackendOptions.STATE_BACKEND, c.stateBackend.name().toLowerCase(Locale.ROOT));
    conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, true);
    if (c.stateBackend == JobConfig.StateBackend.ROCKSDB) {
      conf.set(RocksDBOptions.OPTIONS_FACTORY, PageStateRocksDBOptions.class.getName());
      conf.set(PageStateRocksDBOptions.MATERIALIZE_EVERY, c.materializeEvery);
    }
    if (c.checkpointInterval != null) {
      conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, c.checkpointInterval);
      conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    }
    if (c.checkpointDir != null) {
      conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, uri(c.checkpointDir));
      // a cancelled job can be restarted from its last checkpoint (-s <dir>/chk-N)
      conf.set(
          CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
          ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    }
    if (c.mode == JobConfig.Mode.EMBEDDED) {
      // A local run fails fast instead of replaying into non-transactional file sinks.
      conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    }
    return conf;
  }

  /** A plain path becomes a file URI; URIs (file://, s3://, hdfs://) pass through. */
  static String uri(String dir) {
    return dir.contains("://") ? dir : Path.of(dir).toAbsolutePath().toUri().toString();
  }

  /**
   * Binds a mini-cluster's REST endpoint, blob server and TaskManager to loopback: Flink's defaults
   * listen on every interface. Used by the embedded mode and by the benchmarks.
   */
  public static void onLoopback(Configuration conf) {
    conf.set(RestOptions.BIND_ADDRESS, LOOPBACK);
    conf.set(RestOptions.ADDRESS, LOOPBACK);
    conf.set(JobManagerOptions.BIND_HOST, LOOPBACK); // the blob server's
    conf.set(TaskManagerOptions.BIND_HOST, LOOPBACK);
    conf.set(TaskManagerOptions.HOST, LOOPBACK);
  }
}
