package io.urldedup.job;

import io.urldedup.operators.DeadLetter;
import io.urldedup.operators.DecodeFunction;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.UrlRecord;
import io.urldedup.state.ByteSize;
import io.urldedup.state.FilterSpec;
import io.urldedup.stateops.FilterStateReader;
import io.urldedup.stateops.FilterStateWriter;
import io.urldedup.stateops.StateLocation;
import io.urldedup.stateops.report.StateReport;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.JobManagerOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code bootstrap}, {@code inspect} and {@code probe}: the State Processor API jobs over the dedup
 * operator's savepoints ({@link io.urldedup.stateops}). They run where they are started: a local
 * MiniCluster from {@code ./urldedup}, the cluster under {@code flink run}.
 */
final class StateCommands {

  /**
   * Where a bootstrap writes inside {@code --state DIR}; {@link StateLocation#find} picks it up.
   */
  static final String BOOTSTRAP_PREFIX = "savepoint-bootstrap-";

  /**
   * inspect and probe read with one subtask per this much state (at least one, at most the cores):
   * below it a second subtask costs more (its start, a second restore of the metadata's handles)
   * than it saves.
   */
  static final long READ_BYTES_PER_SUBTASK = 256L << 20;

  private StateCommands() {}

  // ---------------------------------------------------------------- bootstrap

  /**
   * A batch job: the file through the job's decoder, then each shard's filter with the job's own
   * decisions, written as a savepoint of the operator's uid into {@code --state DIR}. Invalid lines
   * are counted by reason as in {@code run}, and written to {@code --dlq} if given.
   */
  static int bootstrap(JobConfig c, LocalCluster cluster, PrintStream err) throws Exception {
    if (c.filter == FilterSpec.Kind.AGED && c.isSet(FilterFlags.WINDOW)) {
      throw new ConfigException(
          "--window: bootstrap cannot build a time window: a file holds no time at which"
              + " each URL was seen, and replaying processing time would put them all into the generation of the"
              + " moment the bootstrap runs; accepted: --window-urls N (a count window), or feed the URLs through"
              + " the job itself (run --state DIR with --window)");
    }
    Preflight.files(c);
    UrlDedupJob.warnIfDefaultSeed(c, err);
    Path dir = stateDir(c);
    mkdirs(dir);
    try (StateDirLock lock = lock(dir)) {
      return bootstrap(c, dir, cluster, err);
    }
  }

  /** The bootstrap itself, holding the lock on a local DIR (see {@link StateDirLock}). */
  private static int bootstrap(JobConfig c, Path dir, LocalCluster cluster, PrintStream err)
      throws Exception {
    if (find(dir) != null) {
      throw new ConfigException(
          "--state: "
              + StateLocation.display(dir)
              + " already holds a savepoint; bootstrap"
              + " into a new directory (or remove it)");
    }
    String[] input = readableInput(c);
    StreamExecutionEnvironment env = batchEnv(c, cluster, c.parallelism > 0 ? c.parallelism : 1);
    Preflight.heap(c, env);
    SingleOutputStreamOperator<UrlRecord> decoded =
        env.fromSource(
                new LineFileSource(input[0], input[1]),
                WatermarkStrategy.noWatermarks(),
                "file source")
            .setParallelism(1)
            .process(new DecodeFunction(c.decodeConfig()), TypeInformation.of(UrlRecord.class))
            .setParallelism(1)
            .name("decode");
    boolean dlq = !Flags.NONE.equalsIgnoreCase(c.dlq);
    if (dlq) {
      decoded
          .getSideOutput(DecodeFunction.DEAD_LETTERS)
          .sinkTo(new LineSink<DeadLetter>("--dlq", c.dlq, DeadLetterLine::format))
          .setParallelism(1)
          .name("dead letters");
    }
    Path out = new Path(dir, BOOTSTRAP_PREFIX + System.currentTimeMillis());
    FilterStateWriter.bootstrap(
        decoded,
        c.perShardSpec(),
        c.decodeConfig().urlMapping(),
        backend(c),
        c.maxParallelism(),
        out.toString());
    long started = System.nanoTime();
    JobExecutionResult result = env.execute(c.jobName + " bootstrap");
    double seconds = (System.nanoTime() - started) / 1e9;
    RunSummary s = RunSummary.of(result.getAllAccumulatorResults());
    err.printf(
        Locale.ROOT,
        "urldedup: bootstrap: in=%d recorded=%d duplicates=%d invalid=%d forced=%d"
            + " (%.1f s, %.0f lines/s)%n",
        s.in(),
        s.emitted(),
        s.duplicates(),
        s.invalid(),
        s.forced(),
        seconds,
        s.in() / Math.max(seconds, 1e-9));
    if (!s.invalidByReason().isEmpty()) {
      StringBuilder b = new StringBuilder("urldedup: invalid by reason:");
      s.invalidByReason().forEach((r, n) -> b.append(' ').append(r).append('=').append(n));
      err.println(b);
      if (!dlq) {
        err.println(
            "urldedup: dead letters were counted, not written (use --dlq PATH|- to keep them)");
      }
    }
    err.println(
        "urldedup: state written to "
            + StateLocation.display(out)
            + " ("
            + ByteSize.format(StateLocation.bytes(out))
            + "); restore with run --state "
            + StateLocation.display(dir)
            + " or flink run -s "
            + out.toUri());
    return 0;
  }

  private static StateBackend backend(JobConfig c) {
    return c.stateBackend == JobConfig.StateBackend.ROCKSDB
        ? new EmbeddedRocksDBStateBackend()
        : new HashMapStateBackend();
  }

  // ---------------------------------------------------------------- inspect

  static int inspect(JobConfig c, LocalCluster cluster, PrintStream out) throws Exception {
    StateLocation at = location(c);
    StateReport report =
        new StateReport(
            at, at.bytesOnDisk(), FilterStateReader.shards(readerEnv(c, cluster, at), at));
    if (report.shards().isEmpty()) {
      out.println("state: " + at.display() + ": no filter shard in it (no URL was ever processed)");
      return 0;
    }
    out.print(c.get(Flags.JSON) ? report.json() : report.text());
    return 0;
  }

  // ---------------------------------------------------------------- shared

  /**
   * {@code --state}: a local directory, or a URI of a file system Flink has here (s3://, hdfs://).
   */
  private static Path stateDir(JobConfig c) {
    if (!c.isSet(Flags.STATE)) {
      throw new ConfigException("--state DIR is required: the savepoint directory");
    }
    String flag = c.get(Flags.STATE);
    Path dir;
    try {
      dir = StateLocation.of(flag);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "--state " + flag + " is not a path or URI (" + e.getMessage() + ")");
    }
    try {
      dir.getFileSystem();
    } catch (IOException e) {
      throw new ConfigException(
          "--state "
              + flag
              + ": no file system for '"
              + dir.toUri().getScheme()
              + "' here ("
              + e.getMessage()
              + "); accepted: a local directory, a file:// URI, or a URI whose Flink file system is"
              + " installed (on a cluster: its plugin, e.g. flink-s3-fs-hadoop for s3://)");
    }
    return dir;
  }

  /** The newest snapshot in {@code dir}, or null. */
  private static Path find(Path dir) {
    try {
      return StateLocation.find(dir).orElse(null);
    } catch (IOException e) {
      throw new ConfigException(
          "--state "
              + StateLocation.display(dir)
              + ": cannot list it ("
              + e.getMessage()
              + "); accepted: a readable directory");
    }
  }

  /**
   * The lock on a local directory; null on another file system (s3://), which has no file locks.
   */
  private static StateDirLock lock(Path dir) {
    return "file".equals(dir.toUri().getScheme())
        ? StateDirLock.acquire(java.nio.file.Path.of(dir.toUri()), "bootstrap")
        : null;
  }

  private static void mkdirs(Path dir) {
    try {
      FileSystem fs = dir.getFileSystem();
      if (!fs.mkdirs(dir)) {
        throw new IOException("mkdirs returned false");
      }
    } catch (IOException e) {
      throw new ConfigException(
          "--state: cannot create "
              + StateLocation.display(dir)
              + " ("
              + e.getMessage()
              + "); accepted: a writable directory");
    }
  }

  static StateLocation location(JobConfig c) {
    Path dir = stateDir(c);
    Path found = find(dir);
    if (found == null) {
      throw new ConfigException(
          "--state: no savepoint or checkpoint (a directory with _metadata) in "
              + StateLocation.display(dir)
              + "; accepted: a savepoint, a chk-N directory, or a directory holding them");
    }
    try {
      return StateLocation.open(found);
    } catch (IOException e) {
      throw new ConfigException("--state: " + e.getMessage());
    }
  }

  /**
   * One subtask per {@link #READ_BYTES_PER_SUBTASK} of state, unless {@code --parallelism} says
   * otherwise: the reader's fixed cost (a MiniCluster, a job) is the cost for small states, and a
   * subtask more only pays off where there is state to share out.
   */
  static StreamExecutionEnvironment readerEnv(JobConfig c, LocalCluster cluster, StateLocation at) {
    int p =
        c.parallelism > 0
            ? c.parallelism
            : (int)
                Math.max(
                    1,
                    Math.min(
                        Runtime.getRuntime().availableProcessors(),
                        at.stateBytes() / READ_BYTES_PER_SUBTASK));
    return batchEnv(c, cluster, p);
  }

  /**
   * The State Processor API jobs: batch mode; generic types allowed, since the API's own records
   * (operator states, subtask snapshots, the savepoint metadata) travel as generic types.
   *
   * <p>The default scheduler, not Flink 2's adaptive batch scheduler: that one may hand a keyed
   * consumer key-group ranges balanced by data volume, but the State Processor API's writer
   * (BootstrapStreamTaskRunner) computes its range the classic way, gets a key group outside it
   * ("Key group 67 is not in KeyGroupRange{0..63}"), its inner thread dies without a word and the
   * job hangs on the full handoff queue. Seen with bootstrap --parallelism 2 of 10^7 URLs; 10^6
   * happened to balance to the classic ranges.
   */
  private static StreamExecutionEnvironment batchEnv(
      JobConfig c, LocalCluster cluster, int parallelism) {
    Configuration conf = JobEnvironment.configuration(c);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    conf.set(JobManagerOptions.SCHEDULER, JobManagerOptions.SchedulerType.Default);
    conf.set(PipelineOptions.GENERIC_TYPES, true);
    StreamExecutionEnvironment env = cluster.environment(c, conf);
    env.setParallelism(parallelism);
    return env;
  }

  /**
   * {path, name}: a stream (stdin, a named pipe: {@link LineFileSource#isStream}) is spooled to a
   * file, since a batch job's source must be bounded and may be read again on a restart.
   */
  private static String[] readableInput(JobConfig c) throws IOException {
    if (c.input == null) {
      throw new ConfigException("--input FILE|- is required: the URLs to record as seen");
    }
    if (LineFileSource.isStream(c.input)) {
      boolean stdin = "-".equals(c.input);
      java.nio.file.Path spool = Files.createTempFile("urldedup-stdin", ".txt");
      spool.toFile().deleteOnExit();
      InputStream in = stdin ? System.in : Files.newInputStream(java.nio.file.Path.of(c.input));
      try {
        Files.copy(in, spool, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        if (!stdin) {
          in.close();
        }
      }
      return new String[] {spool.toString(), stdin ? "stdin" : c.input};
    }
    return new String[] {c.input, c.input};
  }

  /**
   * Lines of a file or stdin as raw bytes, split as {@code run} splits them ({@link LineReader}).
   */
  static void readLines(String input, List<byte[]> into) throws IOException {
    boolean stdin = "-".equals(input);
    if (!stdin) {
      java.nio.file.Path p = java.nio.file.Path.of(input);
      if (Files.isDirectory(p)) {
        throw new ConfigException(
            "--input " + input + " is a directory; accepted: a readable file or - (stdin)");
      }
      if (!Files.isReadable(p)) {
        throw new ConfigException(
            "--input: cannot read " + input + "; accepted: a readable file or - (stdin)");
      }
    }
    try (InputStream in = stdin ? System.in : Files.newInputStream(java.nio.file.Path.of(input))) {
      LineReader r =
          new LineReader(
              in,
              0,
              0,
              false,
              Long.MAX_VALUE,
              (buf, off, len, index) ->
                  new RawRecord(
                      null,
                      Arrays.copyOfRange(buf, off, off + len),
                      io.urldedup.operators.RecordHeaders.EMPTY,
                      "probe:" + (index + 1)));
      for (RawRecord rec = r.next(); rec != null; rec = r.next()) {
        into.add(rec.value);
      }
    }
  }
}
