package io.urldedup.job;

import io.urldedup.operators.DeadLetter;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.UrlRecord;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.IncompatibleStateException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * {@code urldedup run | plan | bootstrap | inspect | probe | version | help}. The same class is
 * what {@code flink run} submits (the word {@code run} is then optional).
 */
public final class UrlDedupJob {

  private UrlDedupJob() {}

  /**
   * Exit codes: 0, 1 (the job failed), 2 (a usage error, {@link ConfigException}), 130/143 (a file
   * cut short by SIGINT/SIGTERM, {@link StopSignals}). An error is one line on stderr naming its
   * cause; its stack trace only with {@code --verbose} ({@link CliLogging}).
   */
  public static void main(String[] args) throws Exception {
    fromMain = true;
    int code;
    try {
      code = run(args, System.out, System.err);
    } catch (Exception e) {
      Throwable root = e;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      if (root instanceof IncompatibleStateException) {
        // restored state that does not fit the flags: a usage error, the message names the flag
        System.err.println(
            "urldedup: error: " + Flags.flagMessage((IncompatibleStateException) root));
        code = ConfigException.EXIT_CODE;
      } else {
        System.err.println(
            "urldedup: error: "
                + (e instanceof JobExecutionException ? "the job failed: " : "")
                + rootCause(e));
        code = 1;
      }
      if (CliLogging.verbose()) {
        e.printStackTrace();
      }
    }
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * The innermost cause, which says what went wrong ("No space left on device"); a sink's own
   * message (naming the flag) is shown without its exception class.
   */
  static String rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage();
      if (m != null
          && (m.startsWith("--output ") || m.startsWith("--dlq "))
          && m.contains(" failed: ")) {
        return m;
      }
    }
    return root.toString();
  }

  /** Set by {@link #main}: this JVM is the launcher's, so stop signals may be taken over. */
  private static boolean fromMain;

  /** Runs a command; returns the exit code (2 for usage errors, printed without a stack trace). */
  public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
    String command = args.length == 0 ? "help" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    if (command.startsWith("--") && !command.equals("--help") && !command.equals("--version")) {
      command = "run";
      rest = args;
    }
    try {
      switch (command) {
        case "help", "--help", "-h" -> {
          noArguments("help", rest);
          out.print(HelpText.render());
          return 0;
        }
        case "version", "--version" -> {
          noArguments("version", rest);
          out.println(version());
          return 0;
        }
        case "plan" -> {
          if (wantsHelp(rest, out)) {
            return 0;
          }
          JobConfig c = JobConfig.parseForPlan(rest, System.getenv());
          out.print(c.get(Flags.JSON) ? PlanCommand.json(c) : PlanCommand.text(c));
          out.flush();
          // what run would refuse in this JVM, refused after the plan with run's message
          Preflight.heap(c);
          return 0;
        }
        case "bootstrap" -> {
          if (wantsHelp(rest, out)) {
            return 0;
          }
          JobConfig c = logging(JobConfig.parse(Command.BOOTSTRAP, rest, System.getenv()));
          try (LocalCluster cluster = LocalCluster.open()) {
            return StateCommands.bootstrap(c, cluster, err);
          }
        }
        case "inspect" -> {
          if (wantsHelp(rest, out)) {
            return 0;
          }
          JobConfig c = logging(JobConfig.parse(Command.INSPECT, rest, System.getenv()));
          try (LocalCluster cluster = LocalCluster.open()) {
            return StateCommands.inspect(c, cluster, out);
          }
        }
        case "probe" -> {
          if (wantsHelp(rest, out)) {
            return 0;
          }
          List<List<String>> split = ArgsParser.splitPositionals(rest);
          JobConfig c =
              logging(
                  JobConfig.parse(
                      Command.PROBE, split.get(0).toArray(String[]::new), System.getenv()));
          try (LocalCluster cluster = LocalCluster.open()) {
            return ProbeCommand.probe(c, cluster, split.get(1), out);
          }
        }
        case "run" -> {
          if (wantsHelp(rest, out)) {
            return 0;
          }
          return execute(logging(JobConfig.parse(rest)), err);
        }
        default ->
            throw new ConfigException(
                "unknown command '"
                    + command
                    + "'; accepted: run, plan, bootstrap, inspect, probe, version, help");
      }
    } catch (ConfigException e) {
      err.println("urldedup: error: " + e.getMessage());
      return ConfigException.EXIT_CODE;
    }
  }

  /**
   * {@code version} and {@code help} take nothing; only a flag's name is repeated, never a value.
   */
  private static void noArguments(String command, String[] args) {
    if (args.length > 0) {
      String a = args[0];
      throw new ConfigException(
          (a.startsWith("--") ? a.split("=", 2)[0] + " is not a flag of " + command + ": " : "")
              + command
              + " takes no flags or arguments (flags go with run, plan, bootstrap, inspect, probe: see --help)");
    }
  }

  private static JobConfig logging(JobConfig c) {
    CliLogging.verbose(c.get(Flags.VERBOSE));
    return c;
  }

  private static boolean wantsHelp(String[] args, PrintStream out) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        out.print(HelpText.render());
        return true;
      }
    }
    return false;
  }

  static String version() {
    Properties p = new Properties();
    try (InputStream in = UrlDedupJob.class.getResourceAsStream("/urldedup-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException ignored) {
      // fall through to "unknown"
    }
    return "urldedup "
        + p.getProperty("version", "unknown")
        + " (Flink "
        + p.getProperty("flink", "?")
        + ", flink-connector-kafka "
        + p.getProperty("kafka-connector", "?")
        + ")";
  }

  static void warnIfDefaultSeed(JobConfig c, PrintStream err) {
    if (c.defaultSeed) {
      err.println(
          "urldedup: warning: no --hash-seed or "
              + Flags.SEED_ENV
              + " given: using the"
              + " public default seed, so crafted URLs can collide in the filter. Set a secret seed in"
              + " production and keep it (a restore with another seed is refused).");
    } else if (c.hashSeed >>> 32 == 0 || c.hashSeed >> 32 == -1) {
      // inspect and probe print the seed's SHA-256 fingerprint: one-way only for a seed nobody
      // can enumerate; 2^32 candidates are minutes of hashing
      err.println(
          "urldedup: warning: the hash seed is a small number (under 2^32 in magnitude): it"
              + " can be recovered from its fingerprint by trying them all. Use a random 64-bit value,"
              + " e.g. 0x$(od -An -tx8 -N8 /dev/urandom | tr -d ' ').");
    }
  }

  private static int execute(JobConfig c, PrintStream err) throws Exception {
    if (c.mode == JobConfig.Mode.EMBEDDED) {
      Preflight.files(c);
    }
    // closed in reverse: the cluster and its files go before the state directory's lock
    try (EmbeddedState state =
            c.mode == JobConfig.Mode.EMBEDDED && c.isSet(Flags.STATE)
                ? EmbeddedState.open(c.get(Flags.STATE))
                : null;
        LocalCluster cluster = LocalCluster.open()) {
      return execute(c, state, cluster, err);
    }
  }

  private static int execute(
      JobConfig c, EmbeddedState state, LocalCluster cluster, PrintStream err) throws Exception {
    Configuration conf = JobEnvironment.configuration(c);
    if (state != null) {
      state.configure(conf);
    }
    StreamExecutionEnvironment env = cluster.environment(c, conf);
    Preflight.heap(c, env);
    warnIfDefaultSeed(c, err);
    if (c.mode == JobConfig.Mode.KAFKA) {
      if (LocalCluster.runsHere(env)) {
        BrokerCheck.require(c, BrokerCheck.TIMEOUT);
      }
      if (c.parallelism > 0) {
        env.setParallelism(c.parallelism);
      }
      KafkaSink<DeadLetter> dlq = KafkaIO.dlqSink(c);
      if (dlq == null) {
        err.println(
            "urldedup: warning: --dlq-topic none: rejected records are counted"
                + " (metric urldedup.invalid) but not kept");
      }
      DataStream<RawRecord> source =
          env.fromSource(KafkaIO.source(c), c.pipeline().watermarks(), "kafka source")
              .uid(DedupPipeline.UID_SOURCE);
      DedupPipeline.build(source, KafkaIO.outputSink(c), dlq, c.pipeline());
      env.execute(c.jobName);
      return 0;
    }
    return embedded(c, env, state, cluster, err);
  }

  /**
   * @param state null unless {@code --state} was given
   */
  private static int embedded(
      JobConfig c,
      StreamExecutionEnvironment env,
      EmbeddedState state,
      LocalCluster cluster,
      PrintStream err)
      throws Exception {
    env.setParallelism(
        c.parallelism > 0
            ? c.parallelism
            : Math.min(Flags.EMBEDDED_MAX_PARALLELISM, Runtime.getRuntime().availableProcessors()));
    boolean stdin = LineSplit.STDIN.equals(c.input);
    // stdin, a named pipe, <(cmd): read as a stream (no spool, no seek), each line as it arrives
    boolean stream = LineFileSource.isStream(c.input);
    if (fromMain) {
      StopSignals.onAbort(
          () -> {
            if (state != null && !state.saved()) {
              err.println(state.notSaved());
            }
            cluster.removeDirectory();
          });
      StopSignals.install();
    }
    LineFileSource file = new LineFileSource(c.input, stdin ? "stdin" : c.input);
    String sourceName = stdin ? "stdin" : "file source";
    // aged, --time event: the JSON field ts is the event time (bad or missing: dead letter
    // bad_timestamp)
    DedupPipeline.Settings settings = c.pipeline();
    WatermarkStrategy<RawRecord> watermarks = settings.watermarks();
    DataStream<RawRecord> source =
        (state == null
                ? env.fromSource(file, watermarks, sourceName)
                : env.fromSource(state.hold(file), watermarks, sourceName, file.getProducedType()))
            // a file is read as byte ranges, one reader each (LineFileSource); a stream has one
            // reader, and
            // so has a run that ends in a savepoint (--state): its source holds at the end of one
            // input;
            // and so have the filters that need the input in its order (inOrder)
            .setParallelism(stream || state != null || inOrder(c) ? 1 : env.getParallelism())
            .uid(state == null ? "file-source" : state.sourceUid());
    LineSink<UrlRecord> out = new LineSink<>("--output", c.output, r -> r.value);
    LineSink<DeadLetter> dlq =
        Flags.NONE.equalsIgnoreCase(c.dlq)
            ? null
            : new LineSink<>("--dlq", c.dlq, DeadLetterLine::format);
    DedupPipeline.Sinks sinks = DedupPipeline.build(source, out, dlq, settings);
    sinks.out().setParallelism(1);
    if (sinks.dlq() != null) {
      sinks.dlq().setParallelism(1);
    }
    JobExecutionResult result =
        state == null ? env.execute(c.jobName) : state.execute(env, c.jobName, cluster, err);
    RunSummary summary = RunSummary.of(result.getAllAccumulatorResults());
    err.print(summary.render(dlq == null));
    List<long[]> linesRead = file.linesRead();
    String signal = StopSignals.received();
    if (signal != null) {
      err.println(
          "urldedup: the input was ended by "
              + signal
              + " "
              + LinesRead.describe(linesRead, summary.in())
              + (stream ? "" : " (not the whole file)"));
      // a stream: the normal way to end an unbounded one; a file cut short is not a success
      return stream ? 0 : StopSignals.exitCode();
    }
    return 0;
  }

  /**
   * The filter's decisions depend on the order of the URLs, so a file must reach it in file order
   * (one reader), whatever the parallelism: stable (which cells an insert decrements, and so what
   * is forgotten when) and aged (which generation a URL falls into: a count window counts URLs in
   * order; event time reads timestamps in file order). Per shard that order survives the keyed
   * exchange, so any parallelism decides as parallelism 1 does. The scalable filter's decisions do
   * not: each distinct URL is emitted once whichever occurrence comes first, its slices grow at
   * counts of distinct URLs, and its false-positive bound holds for any order; only which
   * occurrence is emitted and which URLs are the (rare) false positives vary, so it keeps parallel
   * byte ranges.
   */
  static boolean inOrder(JobConfig c) {
    return c.filter != FilterSpec.Kind.SCALABLE;
  }
}
