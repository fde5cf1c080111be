package io.urldedup.jobbench;

import io.urldedup.job.JobConfig;
import io.urldedup.job.JobEnvironment;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.state.rocksdb.RocksDBOptions;

/**
 * The configuration of a benchmark's mini-cluster: the job's own (object reuse, RocksDB options:
 * the defaults a user gets), then exactly-once checkpoints into {@code work/checkpoints}, retained
 * on cancel (their size on disk is reported, and the scale benchmark restores from them), RocksDB's
 * files under {@code work/rocksdb}, no restarts, every checkpoint's statistics kept, and every port
 * on loopback.
 */
final class BenchCluster {

  private BenchCluster() {}

  static Configuration configuration(
      JobConfig config,
      String backend,
      boolean incremental,
      Duration interval,
      Path work,
      int parallelism,
      String managed) {
    Configuration conf = JobEnvironment.configuration(config);
    conf.set(StateBackendOptions.STATE_BACKEND, backend);
    conf.set(CheckpointingOptions.INCREMENTAL_CHECKPOINTS, incremental);
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, interval);
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    conf.set(
        CheckpointingOptions.CHECKPOINTS_DIRECTORY, work.resolve("checkpoints").toUri().toString());
    conf.set(
        CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
        ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
    conf.set(CheckpointingOptions.MAX_RETAINED_CHECKPOINTS, 1);
    conf.set(RocksDBOptions.LOCAL_DIRECTORIES, work.resolve("rocksdb").toString());
    conf.set(PipelineOptions.MAX_PARALLELISM, config.maxParallelism());
    conf.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    conf.set(TaskManagerOptions.MANAGED_MEMORY_SIZE, MemorySize.parse(managed));
    conf.set(RestOptions.BIND_PORT, "0");
    JobEnvironment.onLoopback(conf);
    conf.setString("web.checkpoints.history", "10000");
    return conf;
  }
}
