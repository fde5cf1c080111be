package io.urldedup.job;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.DecodeFunction;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordDecoder;
import io.urldedup.operators.RecordHeaders;
import io.urldedup.operators.UrlRecord;
import io.urldedup.operators.UrlRejectedException;
import io.urldedup.state.FilterPlan;
import io.urldedup.state.UrlMapping;
import io.urldedup.stateops.FilterStateReader;
import io.urldedup.stateops.FilterStateWriter;
import io.urldedup.stateops.ProbeAnswer;
import io.urldedup.stateops.StateLocation;
import io.urldedup.stateops.StateReport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code bootstrap}, {@code inspect} and {@code probe}: the State Processor API jobs over the
 * dedup operator's savepoints ({@link io.urldedup.stateops}). They run where they are started: a
 * local MiniCluster from {@code ./urldedup}, the cluster under {@code flink run}.
 */
final class StateCommands {

  /** Where a bootstrap writes inside {@code --state DIR}; {@link StateLocation#find} picks it up. */
  static final String BOOTSTRAP_PREFIX = "savepoint-bootstrap-";

  private StateCommands() {}

  // ---------------------------------------------------------------- bootstrap

  /**
   * A batch job: the file through the job's decoder into the job's dedup operator (wrapped by the
   * State Processor API), written as a savepoint of the operator's uid into {@code --state DIR}.
   * Invalid lines are counted by reason as in {@code run}.
   */
  static int bootstrap(JobConfig c, PrintStream err) throws Exception {
    UrlDedupJob.warnIfDefaultSeed(c, err);
    Path dir = stateDir(c);
    if (StateLocation.find(dir).isPresent()) {
      throw new ConfigException("--state: " + dir + " already holds a savepoint; bootstrap into a new directory"
          + " (or remove it)");
    }
    Files.createDirectories(dir);
    String[] input = readableInput(c);
    StreamExecutionEnvironment env = batchEnv(c);
    SingleOutputStreamOperator<UrlRecord> decoded = env
        .fromSource(new LineFileSource(input[0], input[1]), WatermarkStrategy.noWatermarks(), "file source")
        .setParallelism(1)
        .process(new DecodeFunction(c.decodeConfig()), TypeInformation.of(UrlRecord.class))
        .setParallelism(1)
        .name("decode");
    Path out = dir.resolve(BOOTSTRAP_PREFIX + System.currentTimeMillis());
    FilterStateWriter.bootstrap(decoded, operator(c), backend(c), c.maxParallelism(), out.toUri().toString());
    long started = System.nanoTime();
    JobExecutionResult result = env.execute(c.jobName + " bootstrap");
    double seconds = (System.nanoTime() - started) / 1e9;
    RunSummary s = RunSummary.of(result.getAllAccumulatorResults());
    long valid = s.in() - s.invalid();
    err.printf(Locale.ROOT, "urldedup: bootstrap: in=%d valid=%d invalid=%d (%.1f s, %.0f lines/s)%n", s.in(), valid,
        s.invalid(), seconds, s.in() / Math.max(seconds, 1e-9));
    if (!s.invalidByReason().isEmpty()) {
      StringBuilder b = new StringBuilder("urldedup: invalid by reason:");
      s.invalidByReason().forEach((r, n) -> b.append(' ').append(r).append('=').append(n));
      err.println(b);
    }
    err.println("urldedup: state written to " + out + " (" + FilterPlan.bytes(du(out)) + "); restore with"
        + " run --state " + dir + " or flink run -s " + out.toUri());
    return 0;
  }

  static DedupOperator operator(JobConfig c) {
    return new DedupOperator(c.perShardSpec(), c.decodeConfig().urlMapping(), c.cachePages(),
        c.allowCanonicalizationChange);
  }

  private static StateBackend backend(JobConfig c) {
    return c.stateBackend == JobConfig.StateBackend.ROCKSDB ? new EmbeddedRocksDBStateBackend()
        : new HashMapStateBackend();
  }

  // ---------------------------------------------------------------- inspect

  static int inspect(JobConfig c, PrintStream out) throws Exception {
    StateLocation at = location(c);
    StateReport report = new StateReport(at, du(at.path()), FilterStateReader.shards(readerEnv(c), at));
    if (report.shards().isEmpty()) {
      out.println("state: " + at.path() + ": no filter shard in it (no URL was ever processed)");
      return 0;
    }
    out.print(c.get(JobConfig.JSON) ? report.json() : report.text());
    return 0;
  }

  // ---------------------------------------------------------------- probe

  /**
   * One line per URL, tab-separated: the input, its canonical form, {@code seen}, {@code unseen}
   * or {@code invalid}, then the slice (scalable; {@code -} otherwise) or the reject reason.
   */
  static int probe(JobConfig c, List<String> urls, PrintStream out) throws Exception {
    StateLocation at = location(c);
    List<String> lines = new ArrayList<>(urls);
    if (c.input != null) {
      if (!urls.isEmpty()) {
        throw new ConfigException("probe takes URLs or --input FILE|-, not both");
      }
      lines.addAll(readLines(c.input));
    }
    if (lines.isEmpty()) {
      throw new ConfigException("probe needs URLs: probe --state DIR URL... or --input FILE|-");
    }
    RecordDecoder decoder = new RecordDecoder(c.decodeConfig());
    UrlRecord[] decoded = new UrlRecord[lines.size()];
    String[] rejected = new String[lines.size()];
    Map<Integer, List<Long>> byShard = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      byte[] value = lines.get(i).getBytes(StandardCharsets.UTF_8);
      try {
        UrlRecord r = decoder.decode(new RawRecord(null, value, RecordHeaders.EMPTY, "probe:" + (i + 1)));
        decoded[i] = r;
        List<Long> q = byShard.computeIfAbsent(r.shard, s -> new ArrayList<>());
        q.add((long) i);
        q.add(r.h1);
        q.add(r.h2);
      } catch (UrlRejectedException e) {
        rejected[i] = e.reason().toString().toLowerCase(Locale.ROOT);
      }
    }
    HashMap<Integer, long[]> queries = new HashMap<>();
    byShard.forEach((s, q) -> queries.put(s, q.stream().mapToLong(Long::longValue).toArray()));
    List<ProbeAnswer> answers = FilterStateReader.probe(readerEnv(c), at, queries);
    checkMapping(answers, c.decodeConfig().urlMapping(), c.allowCanonicalizationChange);
    ProbeAnswer[] byIndex = new ProbeAnswer[lines.size()];
    for (ProbeAnswer a : answers) {
      if (a.index >= 0) {
        byIndex[a.index] = a;
      }
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < lines.size(); i++) {
      b.append(lines.get(i)).append('\t');
      if (decoded[i] == null) {
        b.append('\t').append("invalid").append('\t').append(rejected[i]);
      } else {
        ProbeAnswer a = byIndex[i];
        boolean seen = a != null && a.seen;
        b.append(decoded[i].url).append('\t').append(seen ? "seen" : "unseen").append('\t')
            .append(a != null && a.slice >= 0 ? Integer.toString(a.slice) : "-");
      }
      b.append('\n');
    }
    out.print(b);
    return 0;
  }

  /**
   * A probe with another seed, shard count or canonicalization would answer for other bits:
   * refused as a restore is, by the headers' mapping.
   */
  private static void checkMapping(List<ProbeAnswer> answers, UrlMapping now, boolean allowCanonicalizationChange) {
    for (ProbeAnswer a : answers) {
      if (a.index >= 0) {
        continue;
      }
      UrlMapping was = a.storedMapping();
      if (was.seedFingerprint() != now.seedFingerprint()) {
        throw new ConfigException(String.format(Locale.ROOT, "the state was written with a different hash seed"
                + " (fingerprint %016x vs %016x): set " + JobConfig.SEED_ENV + " (or --hash-seed) to the job's seed",
            was.seedFingerprint(), now.seedFingerprint()));
      }
      if (was.shards() != UrlMapping.UNKNOWN && was.shards() != now.shards()) {
        throw new ConfigException("the state has --shards " + was.shards() + ", this probe " + now.shards()
            + ": probe with --shards " + was.shards());
      }
      if (!allowCanonicalizationChange && was.canonicalizationFingerprint() != UrlMapping.UNKNOWN
          && was.canonicalizationFingerprint() != now.canonicalizationFingerprint()) {
        throw new ConfigException("the state was written with other canonicalization settings ("
            + was.canonicalizationSettings().replace('\n', ' ').trim() + "); probe with the job's flags"
            + " or --allow-canonicalization-change");
      }
    }
  }

  // ---------------------------------------------------------------- shared

  private static Path stateDir(JobConfig c) {
    if (!c.isSet(JobConfig.STATE)) {
      throw new ConfigException("--state DIR is required: the savepoint directory");
    }
    return Path.of(c.get(JobConfig.STATE)).toAbsolutePath();
  }

  private static StateLocation location(JobConfig c) throws IOException {
    Path dir = stateDir(c);
    Path found = StateLocation.find(dir).orElseThrow(() -> new ConfigException("--state: no savepoint or"
        + " checkpoint (a directory with _metadata) in " + dir + "; accepted: a savepoint, a chk-N directory,"
        + " or a directory holding them"));
    try {
      return StateLocation.open(found);
    } catch (IOException e) {
      throw new ConfigException("--state: " + e.getMessage());
    }
  }

  private static StreamExecutionEnvironment readerEnv(JobConfig c) {
    return batchEnv(c);
  }

  /**
   * The State Processor API jobs: batch mode; generic types allowed, since the API's own records
   * (operator states, subtask snapshots, the savepoint metadata) travel as generic types.
   */
  private static StreamExecutionEnvironment batchEnv(JobConfig c) {
    Configuration conf = JobEnvironment.configuration(c);
    conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
    conf.set(PipelineOptions.GENERIC_TYPES, true);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism(c));
    return env;
  }

  private static int parallelism(JobConfig c) {
    return c.parallelism > 0 ? c.parallelism
        : Math.min(JobConfig.EMBEDDED_MAX_PARALLELISM, Runtime.getRuntime().availableProcessors());
  }

  /** {path, name}: stdin is spooled to a file (the source reads files). */
  private static String[] readableInput(JobConfig c) throws IOException {
    if (c.input == null) {
      throw new ConfigException("--input FILE|- is required: the URLs to record as seen");
    }
    if ("-".equals(c.input)) {
      Path spool = Files.createTempFile("urldedup-stdin", ".txt");
      spool.toFile().deleteOnExit();
      Files.copy(System.in, spool, StandardCopyOption.REPLACE_EXISTING);
      return new String[] {spool.toString(), "stdin"};
    }
    if (!Files.isReadable(Path.of(c.input))) {
      throw new ConfigException("--input: cannot read " + c.input + "; accepted: a readable file or -");
    }
    return new String[] {c.input, c.input};
  }

  private static List<String> readLines(String input) throws IOException {
    if ("-".equals(input)) {
      return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).lines().toList();
    }
    if (!Files.isReadable(Path.of(input))) {
      throw new ConfigException("--input: cannot read " + input + "; accepted: a readable file or -");
    }
    return Files.readAllLines(Path.of(input), StandardCharsets.UTF_8);
  }

  /** Bytes of the files under {@code p}. */
  static long du(Path p) throws IOException {
    try (Stream<Path> s = Files.walk(p)) {
      return s.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
    }
  }
}
