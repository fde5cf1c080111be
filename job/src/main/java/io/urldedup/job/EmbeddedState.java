package io.urldedup.job;

import io.urldedup.stateops.StateLocation;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code run --state DIR} in the embedded mode: the job restores from the newest savepoint in DIR
 * (with the operator's usual restore checks: seed, filter flags, shards, canonicalization), reads
 * its whole {@code --input}, and is stopped with a savepoint into DIR when the input is exhausted
 * or on Ctrl-C; older savepoints in DIR are then removed. Day 2's run over DIR emits only what day
 * 1's did not.
 *
 * <p>The source's own state is not carried over: each run gets a fresh source uid and the restore
 * ignores the old one ({@code execution.state-recovery.ignore-unclaimed-state}), so every run reads
 * its input from the start. Only the dedup operator's state (checked to be present) is restored.
 */
final class EmbeddedState implements AutoCloseable {

  /** How long Ctrl-C waits for the savepoint before the process exits without it. */
  private static final long SHUTDOWN_SAVEPOINT_SECONDS = 120;

  /** How long a failed stop waits for the job's own result, which names why it failed. */
  private static final long JOB_END_SECONDS = 30;

  private final Path dir;
  private final Optional<Path> restoreFrom;
  private final StateDirLock lock;
  private final String token = UUID.randomUUID().toString();
  private final AtomicBoolean stopping = new AtomicBoolean();
  private volatile boolean saved;

  private EmbeddedState(Path dir, Optional<Path> restoreFrom, StateDirLock lock) {
    this.dir = dir;
    this.restoreFrom = restoreFrom;
    this.lock = lock;
  }

  /**
   * Checks DIR before anything starts: a directory that can be written, that no other command is
   * writing ({@link StateDirLock}, held until {@link #close}), holding dedup state if any.
   */
  static EmbeddedState open(String dirFlag) {
    Path dir = localDir(dirFlag);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new ConfigException(
          "--state: cannot create "
              + dirFlag
              + " ("
              + e.getClass().getSimpleName()
              + "); accepted: a writable directory");
    }
    if (!Files.isWritable(dir)) {
      throw new ConfigException(
          "--state: " + dirFlag + " is not writable; accepted: a writable directory");
    }
    StateDirLock lock = StateDirLock.acquire(dir, "run");
    try {
      return new EmbeddedState(dir, savepointIn(dir, dirFlag), lock);
    } catch (RuntimeException e) {
      try {
        lock.close();
      } catch (IOException ignored) {
        // released with the process
      }
      throw e;
    }
  }

  private static Optional<Path> savepointIn(Path dir, String dirFlag) {
    Optional<Path> found;
    try {
      found = StateLocation.find(dir).map(p -> Path.of(p.toUri()));
    } catch (IOException e) {
      throw new ConfigException(
          "--state: cannot list "
              + dirFlag
              + " ("
              + e.getMessage()
              + "); accepted: a"
              + " readable, writable directory");
    }
    if (found.isPresent()) {
      try {
        StateLocation.open(StateLocation.of(found.get()));
      } catch (IOException | RuntimeException e) {
        throw new ConfigException(
            "--state: " + found.get() + " is not a savepoint of this job: " + e.getMessage());
      }
    }
    return found;
  }

  /**
   * {@code run --state} keeps its savepoints on this machine (it lists and removes the older ones):
   * a directory path or a file:// URI; another scheme is refused, naming the flag.
   */
  static Path localDir(String dirFlag) {
    if (dirFlag.contains("://")) {
      java.net.URI uri;
      try {
        uri = java.net.URI.create(dirFlag);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "--state " + dirFlag + " is not a valid URI (" + e.getMessage() + ")");
      }
      if (!"file".equalsIgnoreCase(uri.getScheme())) {
        throw new ConfigException(
            "--state "
                + dirFlag
                + ": run --state keeps its savepoints on the local disk;"
                + " accepted: a local directory or a file:// URI (bootstrap, inspect and probe also read and write"
                + " other Flink file systems, e.g. s3:// where its plugin is installed)");
      }
      return Path.of(uri).toAbsolutePath().normalize();
    }
    return Path.of(dirFlag).toAbsolutePath().normalize();
  }

  Optional<Path> restoreFrom() {
    return restoreFrom;
  }

  /** Whether this run's savepoint is complete in DIR. */
  boolean saved() {
    return saved;
  }

  /**
   * What a run that ends without its savepoint leaves: the next run over DIR emits this run's URLs
   * again.
   */
  String notSaved() {
    return "urldedup: the state was not saved: "
        + dir
        + restoreFrom
            .map(p -> " still holds the state before this run (" + p.getFileName() + ")")
            .orElse(" holds no state");
  }

  void configure(Configuration conf) {
    restoreFrom.ifPresent(
        p -> {
          conf.set(StateRecoveryOptions.SAVEPOINT_PATH, p.toUri().toString());
          conf.set(StateRecoveryOptions.SAVEPOINT_IGNORE_UNCLAIMED_STATE, true);
        });
  }

  /** The uid of this run's file source: new per run, see the class comment. */
  String sourceUid() {
    return "file-source-" + token;
  }

  <T, S extends SourceSplit, E> Source<T, S, E> hold(Source<T, S, E> source) {
    return new HoldAtEndSource<>(source, token);
  }

  /**
   * Runs the job to the end of its input, then stops it with a savepoint into DIR. A JVM shutdown
   * meanwhile (SIGHUP) saves first, before {@code cluster} goes.
   */
  JobExecutionResult execute(
      StreamExecutionEnvironment env, String jobName, LocalCluster cluster, PrintStream err)
      throws Exception {
    JobClient client = env.executeAsync(jobName);
    AutoCloseable onShutdown =
        cluster.beforeShutdown(
            () -> {
              if (stopping.compareAndSet(false, true)) {
                err.println("urldedup: interrupted: saving the state into " + dir + " ...");
                try {
                  saved(
                      client
                          .stopWithSavepoint(
                              false, dir.toUri().toString(), SavepointFormatType.CANONICAL)
                          .get(SHUTDOWN_SAVEPOINT_SECONDS, TimeUnit.SECONDS),
                      err);
                } catch (Exception e) {
                  err.println("urldedup: error: " + UrlDedupJob.rootCause(e));
                  err.println(notSaved());
                }
              }
            });
    try {
      CompletableFuture<JobExecutionResult> result = client.getJobExecutionResult();
      CompletableFuture.anyOf(HoldAtEndSource.ended(token), result).get();
      if (!result.isDone() && stopping.compareAndSet(false, true)) {
        String savepoint;
        try {
          savepoint = stopWithSavepoint(client, result);
        } catch (Exception e) {
          if (!result.isCompletedExceptionally()) {
            err.println(notSaved());
          }
          throw e;
        }
        saved(savepoint, err);
      }
      return result.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      HoldAtEndSource.forget(token);
      onShutdown.close();
    }
  }

  /**
   * Stops the job with a savepoint into DIR. A short input can end before every task is running (a
   * RocksDB restore takes a while); the stop then fails with "not being executed at the moment":
   * try again. A job that fails meanwhile (a refused restore fails it in its first seconds, while a
   * short input is already read) takes its MiniCluster down under the stop, whose answer may then
   * never come (a MiniCluster's RPC has no timeout): the job's failure is thrown instead.
   */
  private String stopWithSavepoint(JobClient client, CompletableFuture<JobExecutionResult> result)
      throws Exception {
    long retryUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(SHUTDOWN_SAVEPOINT_SECONDS);
    while (true) {
      CompletableFuture<String> stop;
      try {
        stop =
            client.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL);
      } catch (RuntimeException clusterGone) {
        // "MiniCluster is not yet running or has already been shut down"
        stop = CompletableFuture.failedFuture(clusterGone);
      }
      try {
        CompletableFuture.anyOf(stop, result).get();
      } catch (ExecutionException oneFailed) {
        // which one: below
      }
      if (stop.isDone() && !stop.isCompletedExceptionally()
          || result.isDone() && !result.isCompletedExceptionally()) {
        return stop.get(); // saved; or the job finished by this stop, whose answer is on its way
      }
      if (!result.isDone() && tasksNotYetRunning(stop) && System.nanoTime() < retryUntil) {
        Thread.sleep(200);
        continue;
      }
      try {
        result.get(JOB_END_SECONDS, TimeUnit.SECONDS); // throws the job's failure, if it failed
      } catch (TimeoutException stillRunning) {
        // the stop failed on its own
      }
      return stop.get();
    }
  }

  private static boolean tasksNotYetRunning(CompletableFuture<String> stop) {
    try {
      stop.join();
      return false;
    } catch (CompletionException e) {
      return String.valueOf(e.getCause()).contains("not being executed at the moment");
    }
  }

  /**
   * Reports the new savepoint and removes the older ones (the new one is complete: it has its
   * metadata).
   */
  private void saved(String savepoint, PrintStream err) {
    saved = true;
    Path keep =
        Path.of(
            java.net.URI.create(savepoint.startsWith("file:") ? savepoint : "file:" + savepoint));
    try (Stream<Path> s = Files.list(dir)) {
      for (Path old :
          s.filter(p -> !p.equals(keep) && p.getFileName().toString().startsWith("savepoint-"))
              .toList()) {
        deleteTree(old);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    err.println("urldedup: state saved to " + keep);
  }

  /** Releases DIR for the next command. */
  @Override
  public void close() throws IOException {
    lock.close();
  }

  static void deleteTree(Path p) throws IOException {
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
