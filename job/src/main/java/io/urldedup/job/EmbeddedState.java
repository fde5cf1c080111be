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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
 * or on Ctrl-C; older savepoints in DIR are then removed. Day 2's run over DIR emits only what
 * day 1's did not.
 *
 * <p>The source's own state is not carried over: each run gets a fresh source uid and the restore
 * ignores the old one ({@code execution.state-recovery.ignore-unclaimed-state}), so every run
 * reads its input from the start. Only the dedup operator's state (checked to be present) is
 * restored.
 */
final class EmbeddedState {

  /** How long Ctrl-C waits for the savepoint before the process exits without it. */
  private static final long SHUTDOWN_SAVEPOINT_SECONDS = 120;

  private final Path dir;
  private final Optional<Path> restoreFrom;
  private final String token = UUID.randomUUID().toString();
  private final AtomicBoolean stopping = new AtomicBoolean();

  private EmbeddedState(Path dir, Optional<Path> restoreFrom) {
    this.dir = dir;
    this.restoreFrom = restoreFrom;
  }

  /** Checks DIR before anything starts: a directory that can be written, holding dedup state if any. */
  static EmbeddedState open(String dirFlag) {
    Path dir = localDir(dirFlag);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new ConfigException("--state: cannot create " + dirFlag + " (" + e.getClass().getSimpleName()
          + "); accepted: a writable directory");
    }
    if (!Files.isWritable(dir)) {
      throw new ConfigException("--state: " + dirFlag + " is not writable; accepted: a writable directory");
    }
    Optional<Path> found;
    try {
      found = StateLocation.find(dir).map(p -> Path.of(p.toUri()));
    } catch (IOException e) {
      throw new ConfigException("--state: cannot list " + dirFlag + " (" + e.getMessage() + "); accepted: a"
          + " readable, writable directory");
    }
    if (found.isPresent()) {
      try {
        StateLocation.open(StateLocation.of(found.get()));
      } catch (IOException | RuntimeException e) {
        throw new ConfigException("--state: " + found.get() + " is not a savepoint of this job: " + e.getMessage());
      }
    }
    return new EmbeddedState(dir, found);
  }

  /**
   * {@code run --state} keeps its savepoints on this machine (it lists and removes the older
   * ones): a directory path or a file:// URI; another scheme is refused, naming the flag.
   */
  static Path localDir(String dirFlag) {
    if (dirFlag.contains("://")) {
      java.net.URI uri;
      try {
        uri = java.net.URI.create(dirFlag);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("--state " + dirFlag + " is not a valid URI (" + e.getMessage() + ")");
      }
      if (!"file".equalsIgnoreCase(uri.getScheme())) {
        throw new ConfigException("--state " + dirFlag + ": run --state keeps its savepoints on the local disk;"
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

  void configure(Configuration conf) {
    restoreFrom.ifPresent(p -> {
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

  /** Runs the job to the end of its input, then stops it with a savepoint into DIR. */
  JobExecutionResult execute(StreamExecutionEnvironment env, String jobName, PrintStream err) throws Exception {
    JobClient client = env.executeAsync(jobName);
    Thread hook = new Thread(() -> {
      if (stopping.compareAndSet(false, true)) {
        err.println("urldedup: interrupted: saving the state into " + dir + " ...");
        try {
          saved(client.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL)
              .get(SHUTDOWN_SAVEPOINT_SECONDS, TimeUnit.SECONDS), err);
        } catch (Exception e) {
          err.println("urldedup: error: no savepoint taken: " + e);
        }
      }
    }, "urldedup-state-on-exit");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      CompletableFuture<JobExecutionResult> result = client.getJobExecutionResult();
      CompletableFuture.anyOf(HoldAtEndSource.ended(token), result).get();
      if (!result.isDone() && stopping.compareAndSet(false, true)) {
        saved(stopWithSavepoint(client, result), err);
      }
      return result.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      HoldAtEndSource.forget(token);
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: it saves the state
      }
    }
  }

  /**
   * A short input can end before every task is running (a RocksDB restore takes a while); a
   * savepoint then fails with "not all required tasks are currently running": try again.
   */
  private String stopWithSavepoint(JobClient client, CompletableFuture<JobExecutionResult> result) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SHUTDOWN_SAVEPOINT_SECONDS);
    while (true) {
      try {
        return client.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL).get();
      } catch (ExecutionException e) {
        if (result.isDone() || System.nanoTime() > deadline
            || !String.valueOf(e.getCause()).contains("not being executed at the moment")) {
          throw e;
        }
        Thread.sleep(200);
      }
    }
  }

  /** Reports the new savepoint and removes the older ones (the new one is complete: it has its metadata). */
  private void saved(String savepoint, PrintStream err) {
    Path keep = Path.of(java.net.URI.create(savepoint.startsWith("file:") ? savepoint : "file:" + savepoint));
    try (Stream<Path> s = Files.list(dir)) {
      for (Path old : s.filter(p -> !p.equals(keep) && p.getFileName().toString().startsWith("savepoint-")).toList()) {
        deleteTree(old);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    err.println("urldedup: state saved to " + keep);
  }

  static void deleteTree(Path p) throws IOException {
    try (Stream<Path> s = Files.walk(p)) {
      for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(q);
      }
    }
  }
}
