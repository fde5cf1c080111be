package io.urldedup.job;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.flink.client.deployment.executors.LocalExecutor;
import org.apache.flink.configuration.BlobServerOptions;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.WebOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.operators.collect.CollectResultIterator;

/**
 * Where a command's jobs run when no cluster runs them ({@code ./urldedup}): a Flink MiniCluster
 * per job in this JVM, and a private directory for every file they write.
 *
 * <p><b>Network.</b> A MiniCluster always starts Flink's REST API (no authentication: it cancels
 * jobs and writes savepoints wherever it is told) and the blob server; its RPC is in-process
 * ({@code RpcServiceSharing.SHARED}: no port) and one TaskManager needs no shuffle port. Both
 * listen on loopback only here (Flink's defaults are all interfaces). Nothing a run does goes
 * through them: the job is submitted and stopped through the in-process dispatcher, and blobs are
 * never offloaded, so the TaskManager never fetches one from the blob server (its blob cache would
 * dial the host's name, which need not be loopback).
 *
 * <p><b>Files.</b> Flink's RPC jar (21 MB), the MiniCluster's working directories, the REST upload
 * directory, RocksDB's files and the checkpoints (without {@code --checkpoint-dir}) go into one
 * directory under {@code java.io.tmpdir}, removed by {@link #close}, by a JVM shutdown before it
 * (SIGHUP; SIGINT/SIGTERM where {@link StopSignals} is not installed) and by {@link StopSignals}'
 * second signal; only {@code kill -9} leaves it behind. Flink removes its own files only once the
 * MiniCluster has shut down, which {@code System.exit} does not wait for.
 *
 * <p><b>Checkpoints.</b> Without {@code --checkpoint-dir}, Flink keeps checkpoints and the state of
 * savepoints in the JobManager's memory, at most 5 MiB per subtask: a 128 MiB filter could not be
 * saved. Here they go to files: {@code --checkpoint-dir}, or this directory.
 *
 * <p>Under a test's MiniCluster or {@code flink run} the jobs run there: {@link #environment}
 * returns that environment and only takes the checkpoint storage from here (embedded mode).
 */
final class LocalCluster implements AutoCloseable {

  /**
   * How long {@link #close} waits for a MiniCluster to shut down before removing its files anyway.
   */
  private static final long CLOSE_SECONDS = 30;

  private final Path dir;
  private final List<MiniCluster> clusters = new CopyOnWriteArrayList<>();
  private final List<Runnable> beforeShutdown = new CopyOnWriteArrayList<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Thread hook = new Thread(this::shutdown, "urldedup-local-cluster-cleanup");

  private LocalCluster(Path dir) {
    this.dir = dir;
  }

  /** A new private directory (mode 700) under {@code java.io.tmpdir}, removed on exit. */
  static LocalCluster open() throws IOException {
    LocalCluster c =
        new LocalCluster(
            Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "urldedup-"));
    Runtime.getRuntime().addShutdownHook(c.hook);
    return c;
  }

  /**
   * The environment the job runs in: a MiniCluster of this process bound to loopback, unless a
   * context (a test's MiniCluster, {@code flink run}) provides one. Adds the checkpoint storage for
   * a job that runs here or in the embedded mode; a job on a cluster keeps the cluster's.
   */
  StreamExecutionEnvironment environment(JobConfig c, Configuration conf) {
    boolean here =
        StreamExecutionEnvironment.getExecutionEnvironment() instanceof LocalStreamEnvironment;
    if ((here || c.mode == JobConfig.Mode.EMBEDDED) && c.checkpointDir == null) {
      conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
      conf.set(
          CheckpointingOptions.CHECKPOINTS_DIRECTORY,
          dir.resolve("checkpoints").toUri().toString());
    }
    if (here || c.mode == JobConfig.Mode.EMBEDDED) {
      // a short path: RocksDB's working directory names grow long (job, operator, uuid)
      conf.set(RocksDBOptions.LOCAL_DIRECTORIES, dir.resolve("rocksdb").toString());
    }
    if (!here) {
      return StreamExecutionEnvironment.getExecutionEnvironment(conf);
    }
    JobEnvironment.onLoopback(conf);
    conf.set(BlobServerOptions.OFFLOAD_MINSIZE, Integer.MAX_VALUE);
    conf.set(CoreOptions.TMP_DIRS, dir.resolve("tmp").toString());
    conf.set(WebOptions.TMP_DIR, dir.resolve("web").toString());
    return new Env(conf);
  }

  /** Whether {@code env} runs its jobs in this JVM (then this JVM's heap holds the state). */
  static boolean runsHere(StreamExecutionEnvironment env) {
    return env instanceof LocalStreamEnvironment;
  }

  /**
   * Runs {@code action} first if the JVM shuts down before {@link #close} (the savepoint of {@code
   * run --state} needs the cluster running); the returned handle takes it back.
   */
  AutoCloseable beforeShutdown(Runnable action) {
    beforeShutdown.add(action);
    return () -> beforeShutdown.remove(action);
  }

  /** Shuts the MiniClusters down (waiting a bounded time), then removes the directory. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // this is the hook
    }
    for (MiniCluster m : clusters) {
      try {
        m.closeAsync().get(CLOSE_SECONDS, TimeUnit.SECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // its files go below all the same
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    removeDirectory();
  }

  /** Removes the directory at once, without waiting for anything: the process is about to halt. */
  void removeDirectory() {
    for (int attempt = 0; attempt < 3 && Files.exists(dir); attempt++) {
      // a component still shutting down may add a file while the tree is walked: walk again
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException | UncheckedIOException e) {
        if (attempt == 2) {
          System.err.println("urldedup: warning: could not remove " + dir + ": " + e.getMessage());
        }
      }
    }
  }

  private void shutdown() {
    for (Runnable r : beforeShutdown) {
      r.run();
    }
    close();
  }

  /**
   * Flink's local environment, except that its MiniClusters are the ones this class shuts down
   * (Flink's own executor closes a MiniCluster asynchronously when its job ends).
   *
   * <p>{@code executeAndCollect} (inspect, probe) registers its result iterator with the
   * environment, whose own {@code executeAsync} hands it the job client; this one must do that too,
   * or the iterator fails with "Job client must be configured before first use".
   */
  private final class Env extends LocalStreamEnvironment {
    private final Configuration conf;
    private final List<CollectResultIterator<?>> collectIterators = new ArrayList<>();

    Env(Configuration conf) {
      super(conf);
      this.conf = conf;
    }

    @Override
    public void registerCollectIterator(CollectResultIterator<?> iterator) {
      collectIterators.add(iterator);
    }

    @Override
    public JobClient executeAsync(StreamGraph streamGraph) throws Exception {
      JobClient client =
          LocalExecutor.createWithFactory(
                  conf,
                  config -> {
                    MiniCluster m = new MiniCluster(config);
                    clusters.add(m);
                    return m;
                  })
              .execute(streamGraph, (Configuration) getConfiguration(), getUserClassloader())
              .get();
      collectIterators.forEach(it -> it.setJobClient(client));
      collectIterators.clear();
      return client;
    }
  }
}
