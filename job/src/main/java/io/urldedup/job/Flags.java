package io.urldedup.job;

import static io.urldedup.job.Command.BOOTSTRAP;
import static io.urldedup.job.Command.INSPECT;
import static io.urldedup.job.Command.PLAN;
import static io.urldedup.job.Command.PROBE;
import static io.urldedup.job.Command.RUN;

import io.urldedup.job.JobConfig.StateBackend;
import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.DedupSettings;
import io.urldedup.operators.PageCacheSizing;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.NamesParameters;
import io.urldedup.state.Parameter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every flag of the command line (and key of a {@code --config} file), each one {@link Option}
 * constant declared once with its type, default, parser (which checks the accepted range), help and
 * where it applies; {@link #OPTIONS} lists them in {@code --help} order. {@link ArgsParser}, {@link
 * CrossFlagChecks}, {@link HelpText} (hence the README flag list, pinned by ReadmeTest) and {@link
 * #names()} (the deployment manifest check) all read these declarations. Ranges owned by the filter
 * or the decoder are their constants ({@link FilterSpec#MAX_GROWTH}, {@link
 * DecodeConfig#MAX_SHARDS}), enums are theirs ({@link FilterSpec.Kind}, {@link
 * DecodeConfig.Format}).
 *
 * <h2>Adding a flag</h2>
 *
 * <ol>
 *   <li>Declare it: {@code static final Option<Duration> WINDOW = Option.duration("window", ...)
 *       .in(FILTER).defaultValue("7d").help("...");} next to its section's flags, and add it to
 *       {@link #OPTIONS} where it should appear in {@code --help}. Pick the factory for its type
 *       ({@link Option#integer}, {@link Option#size}, {@link Option#choice}, {@link Option#toggle},
 *       ...) or {@link Option#of} with your own parser; give a default as the user would type it,
 *       or {@link Option#describedDefault} if it depends on other flags. Say where it applies:
 *       {@link Option#forCommands} if a command other than run (and plan) takes it, {@link
 *       Option#forFilters} if it belongs to some filter kinds only; it is refused elsewhere.
 *   <li>Read it where it is used: {@code config.get(Flags.WINDOW)} (the parsed default if not
 *       given). A setting of the filter or the decoder goes into {@link JobConfig#perShardSpec} /
 *       {@link JobConfig#decodeConfig}, built in JobConfig's constructor, which then validates it;
 *       a canonicalization setting also goes into {@link DecodeConfig#canonicalizationSettings()}.
 *       A rule that spans flags goes into {@link CrossFlagChecks}.
 *   <li>Regenerate the README flag block ({@code ./urldedup help}); add the flag to
 *       JobConfigTest#everyFlagIsParsed. Kafka-mode flags also go into {@link #KAFKA_OPTIONS}.
 * </ol>
 *
 * Nothing else: no second default, no second range check, no hand-written help line.
 */
public final class Flags {

  /** The environment variable of the hash seed; {@link #HASH_SEED} wins over it. */
  static final String SEED_ENV = "URLDEDUP_HASH_SEED";

  /** The value of {@code --dlq-topic} / {@code --dlq} that only counts dead letters. */
  public static final String NONE = "none";

  /**
   * Checkpoint interval when checkpointing is on and {@code --checkpoint-interval} is not given.
   */
  static final String DEFAULT_CHECKPOINT_INTERVAL = "10s";

  /** {@link #DEFAULT_CHECKPOINT_INTERVAL} as the flag parses it: the one source of the fallback. */
  static Duration defaultCheckpointInterval() {
    return CHECKPOINT_INTERVAL.parse(DEFAULT_CHECKPOINT_INTERVAL);
  }

  /** Embedded mode without {@code --parallelism}: the CPU cores, at most this many. */
  static final int EMBEDDED_MAX_PARALLELISM = 4;

  /** Flink's largest max parallelism (KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM). */
  static final int FLINK_MAX_PARALLELISM = 1 << 15;

  private static final String IO = "Embedded mode (no Kafka flags): local files or stdin/stdout";
  static final String KAFKA = "Kafka mode (any Kafka flag selects it)";
  static final String FILTER = "Filter (sizes are totals over all shards)";
  private static final String DECODE = "Decoding and canonicalization";
  private static final String RUNTIME = "Runtime";
  private static final String STATE_OPS = "State (run --state, bootstrap, inspect, probe)";

  // ---- the flags ----

  public static final Option<String> INPUT =
      Option.string("input", "PATH|-")
          .in(IO)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .help("Input file, one record per line ('-' = stdin). Required in embedded mode.");
  public static final Option<String> OUTPUT =
      Option.string("output", "PATH|-")
          .in(IO)
          .defaultValue("-")
          .help("Where unseen URLs are written ('-' = stdout).");
  public static final Option<String> DLQ =
      Option.string("dlq", "PATH|-|none")
          .in(IO)
          .forCommands(RUN, BOOTSTRAP)
          .defaultValue(NONE)
          .help(
              "Dead letters, one a line: reason<TAB>detail<TAB>origin<TAB>escaped original value."
                  + " 'none' only counts them (see the summary).");

  public static final Option<Integer> SHARDS =
      Option.integer("shards", "N", 1, DecodeConfig.MAX_SHARDS)
          .sets(Parameter.SHARDS)
          .in(FILTER)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .defaultValue(Integer.toString(DecodeConfig.DEFAULT_SHARDS))
          .help(
              "Filter shards (keys); fixed for the life of the state, independent of parallelism.");
  public static final Option<Long> HASH_SEED =
      Option.of("hash-seed", "INT64", Flags::seed)
          .sets(Parameter.HASH_SEED)
          .in(FILTER)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .help(
              "Secret hash seed (decimal or 0x hex), a random 64-bit value; better env "
                  + SEED_ENV
                  + " (flink run logs program arguments). Without it a public default is used, with a"
                  + " warning. urldedup never logs it.");

  public static final Option<DecodeConfig.Format> FORMAT =
      Option.choice("format", DecodeConfig.Format.class)
          .sets(Parameter.FORMAT)
          .in(DECODE)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .defaultValue("text")
          .help(
              "text: the record value is the URL; json: an object with a \"url\" string"
                  + " (and optional \"force\": true to re-emit).");
  public static final Option<DecodeConfig.KeyMode> KEY =
      Option.choice("key", DecodeConfig.KeyMode.class)
          .sets(Parameter.KEY)
          .in(DECODE)
          .defaultValue("host")
          .help("Output record key: the host, the registrable domain, or none.");

  /**
   * Given alone, the session-id list: a bare flag means "the usual ones". An empty value is
   * refused: it is what an unset shell variable gives ({@code --strip-params "$P"}), and reading it
   * as the default list would turn a rule on that nobody asked for.
   */
  public static final Option<String> STRIP_PARAMS =
      Option.of("strip-params", "[LIST]", Flags::stripParamsValue)
          .sets(Parameter.STRIP_PARAMS)
          .in(DECODE)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .whenAlone("default")
          .defaultValue(NONE)
          .help(
              "Opt-in rule: remove these query and path parameters (comma-separated names,"
                  + " case-insensitive, '*' a wildcard: utm_*). Without a list, or 'default': "
                  + String.join(", ", DecodeConfig.DEFAULT_STRIP_PARAMS)
                  + ". 'none': keep all. An empty value is"
                  + " refused."
                  + " See docs/canonicalization.md for every rule.");

  public static final Option<Boolean> STRIP_WWW =
      Option.toggle("strip-www")
          .in(DECODE)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .help(
              "Opt-in rule: drop a leading 'www.' from hosts (while a registrable domain remains).");
  public static final Option<Boolean> SORT_PARAMS =
      Option.toggle("sort-params")
          .in(DECODE)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .help(
              "Opt-in rule: sort query parameters by name (stable). Merges ?b=2&a=1 with ?a=1&b=2.");
  public static final Option<Boolean> DROP_EMPTY_PARAMS =
      Option.toggle("drop-empty-params")
          .in(DECODE)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .help(
              "Opt-in rule: remove empty query pairs (&&) and parameters with an empty value (a=).");
  public static final Option<Boolean> COLLAPSE_SLASHES =
      Option.toggle("collapse-slashes")
          .in(DECODE)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .help("Opt-in rule: collapse runs of '/' in paths (merges bucket//key with bucket/key).");
  public static final Option<Integer> MAX_URL_BYTES =
      Option.integer(
              "max-url-bytes", "N", DecodeConfig.MIN_MAX_URL_BYTES, DecodeConfig.MAX_MAX_URL_BYTES)
          .sets(Parameter.MAX_URL_BYTES)
          .in(DECODE)
          .forCommands(RUN, BOOTSTRAP, PROBE)
          .defaultValue(Integer.toString(DecodeConfig.DEFAULT_MAX_URL_BYTES))
          .help("Longer canonical URLs are dead letters (too_long).");
  public static final Option<Boolean> ALLOW_CANONICALIZATION_CHANGE =
      Option.toggle("allow-canonicalization-change")
          .sets(Parameter.ALLOW_CANONICALIZATION_CHANGE)
          .in(DECODE)
          .forCommands(RUN, PROBE)
          .help(
              "Restore state written with other canonicalization settings (logged as a warning; URLs seen"
                  + " before may be emitted once more) instead of refusing it.");

  public static final Option<Integer> PARALLELISM =
      Option.integer("parallelism", "N", 1, FLINK_MAX_PARALLELISM)
          .in(RUNTIME)
          .forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
          .describedDefault(
              "cluster default (embedded: CPU cores, at most " + EMBEDDED_MAX_PARALLELISM + ")")
          .help("Operator parallelism.");
  public static final Option<StateBackend> STATE_BACKEND =
      Option.choice("state-backend", StateBackend.class)
          .in(RUNTIME)
          .forCommands(RUN, BOOTSTRAP)
          .defaultValue("hashmap")
          .help("hashmap: state on the heap; rocksdb: on local disk, incremental checkpoints.");
  public static final Option<String> CHECKPOINT_DIR =
      Option.nonEmpty("checkpoint-dir", "URI")
          .in(RUNTIME)
          .help(
              "Checkpoint storage, e.g. file:///var/urldedup/ckpt or s3://...; without it the"
                  + " cluster's setting (./urldedup: a private directory in $TMPDIR, removed at exit).");
  public static final Option<Duration> CHECKPOINT_INTERVAL =
      Option.duration(
              "checkpoint-interval",
              Duration.ofMillis(10),
              Duration.ofDays(365),
              "at least 10ms, e.g. 500ms, 10s, 1min")
          .in(RUNTIME)
          .describedDefault(
              DEFAULT_CHECKPOINT_INTERVAL
                  + " (embedded: off unless this or --checkpoint-dir is given)")
          .help(
              "Exactly-once output becomes visible at checkpoints, so this is the output latency.");

  /** {@code --cache-memory auto}: sized when each dedup subtask opens ({@link PageCacheSizing}). */
  static final long AUTO_CACHE_MEMORY = 0;

  public static final Option<Long> CACHE_MEMORY =
      Option.sizeOr(
              "auto", AUTO_CACHE_MEMORY, "cache-memory", 4096, "at least 4k (one page), e.g. 8m")
          .in(RUNTIME)
          .defaultValue("auto")
          .help(
              "Write-back cache of filter pages per subtask (4 KiB pages), flushed at checkpoints. auto:"
                  + " the whole filter of the subtask's shards (stable --memory, scalable --max-memory), at most "
                  + Math.round(PageCacheSizing.HEAP_SHARE * 100)
                  + "% of the TaskManager heap over its slots"
                  + " (at least "
                  + (PageCacheSizing.MIN_BUDGET_BYTES >> 20)
                  + "m).");

  /**
   * {@code --materialize-every}'s default on RocksDB. A checkpoint then uploads on average F / N +
   * 16 B x the interval's new URLs (F: the compacted filter) against about 1.4 F with N = 1.
   * Measured at 10^8 URLs and 10^5 new URLs/s (docs/scale/README.md): N = 1 433 MB, N = 10 46.5 MB
   * (9.3x), N = 16 34.1 MB over a cycle (12.7x); 10x there needs N >= 12, and 16 keeps a restore's
   * replay at 16 intervals of inserts (plan prints both for a given --rate). On the heap backend
   * every checkpoint is a full snapshot of the state, which a log cannot make smaller, and logging
   * cost 0.34 us per record at 10^7 (docs/scale/README.md): there the default is 1.
   */
  static final int DEFAULT_MATERIALIZE_EVERY = 16;

  public static final Option<Integer> MATERIALIZE_EVERY =
      Option.integer("materialize-every", "N", 1, DedupSettings.MAX_MATERIALIZE_EVERY)
          .sets(Parameter.MATERIALIZE_EVERY)
          .in(RUNTIME)
          .describedDefault(
              DEFAULT_MATERIALIZE_EVERY + " with --state-backend rocksdb, 1 with hashmap")
          .help(
              "Every N-th checkpoint writes the filter pages each shard changed; the others write only"
                  + " the inserts since (16 B per new URL), replayed on restore (at most N intervals of them)."
                  + " 1: pages at every checkpoint, the state layout of earlier builds (which refuse state"
                  + " written with N > 1). Only RocksDB's incremental checkpoints get smaller; the heap"
                  + " backend's are full snapshots.");
  public static final Option<String> JOB_NAME =
      Option.nonEmpty("job-name", "NAME")
          .in(RUNTIME)
          .forCommands(RUN, BOOTSTRAP)
          .defaultValue("urldedup")
          .help("Flink job name.");
  public static final Option<String> CONFIG =
      Option.string("config", "FILE")
          .in(RUNTIME)
          .forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
          .help(
              "key=value lines with the same keys as the flags (no --); flags override the file. One file"
                  + " can serve several commands: each reads the keys it takes and ignores the others.");
  public static final Option<Boolean> VERBOSE =
      Option.toggle("verbose")
          .in(RUNTIME)
          .forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
          .help(
              "Show Flink's and Kafka's warnings on stderr too, and an error's stack trace (by default:"
                  + " urldedup's own warnings, and an error as one line).");

  public static final Option<String> STATE =
      Option.nonEmpty("state", "DIR")
          .in(STATE_OPS)
          .forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
          .help(
              "run (embedded): restore from the savepoint in DIR if there is one, and save one there at the"
                  + " end of input and on Ctrl-C. bootstrap: write the savepoint there. inspect, probe: read the"
                  + " newest savepoint or retained checkpoint in DIR (or DIR itself).");
  public static final Option<Boolean> JSON =
      Option.toggle("json")
          .in(STATE_OPS)
          .forCommands(INSPECT, PLAN)
          .help("inspect, plan: print one JSON document instead of the text report.");

  /** Every flag, in {@code --help} order. */
  static final List<Option<?>> OPTIONS =
      List.of(
          INPUT,
          OUTPUT,
          DLQ,
          KafkaFlags.BOOTSTRAP_SERVERS,
          KafkaFlags.INPUT_TOPIC,
          KafkaFlags.OUTPUT_TOPIC,
          KafkaFlags.DLQ_TOPIC,
          KafkaFlags.GROUP_ID,
          KafkaFlags.KAFKA_PROPERTIES,
          KafkaFlags.STARTING_OFFSETS,
          KafkaFlags.TRANSACTIONAL_ID_PREFIX,
          KafkaFlags.TRANSACTION_TIMEOUT,
          FilterFlags.FILTER_KIND,
          FilterFlags.FPR,
          FilterFlags.MEMORY,
          FilterFlags.CELL_BITS,
          FilterFlags.CAPACITY,
          FilterFlags.GROWTH,
          FilterFlags.TIGHTENING,
          FilterFlags.MAX_MEMORY,
          FilterFlags.WINDOW,
          FilterFlags.WINDOW_URLS,
          FilterFlags.GENERATIONS,
          FilterFlags.RATE,
          FilterFlags.TIME,
          FilterFlags.MAX_OUT_OF_ORDERNESS,
          SHARDS,
          HASH_SEED,
          FORMAT,
          KEY,
          STRIP_PARAMS,
          STRIP_WWW,
          SORT_PARAMS,
          DROP_EMPTY_PARAMS,
          COLLAPSE_SLASHES,
          MAX_URL_BYTES,
          ALLOW_CANONICALIZATION_CHANGE,
          PARALLELISM,
          STATE_BACKEND,
          CHECKPOINT_DIR,
          CHECKPOINT_INTERVAL,
          CACHE_MEMORY,
          MATERIALIZE_EVERY,
          JOB_NAME,
          CONFIG,
          VERBOSE,
          STATE,
          JSON);

  /** Giving any of these selects Kafka mode. */
  static final List<Option<?>> KAFKA_OPTIONS =
      List.of(
          KafkaFlags.BOOTSTRAP_SERVERS,
          KafkaFlags.INPUT_TOPIC,
          KafkaFlags.OUTPUT_TOPIC,
          KafkaFlags.DLQ_TOPIC,
          KafkaFlags.GROUP_ID,
          KafkaFlags.KAFKA_PROPERTIES,
          KafkaFlags.STARTING_OFFSETS,
          KafkaFlags.TRANSACTIONAL_ID_PREFIX);

  private static final Map<String, Option<?>> BY_NAME = new LinkedHashMap<>();

  private static final Map<Parameter, String> PARAMETER_FLAGS = new EnumMap<>(Parameter.class);

  static {
    for (Option<?> o : OPTIONS) {
      BY_NAME.put(o.name(), o);
      if (o.parameter() != null) {
        PARAMETER_FLAGS.put(o.parameter(), o.flag());
      }
    }
  }

  private Flags() {}

  /** The flag named {@code name} (without {@code --}); null if there is none. */
  static Option<?> named(String name) {
    return BY_NAME.get(name);
  }

  /** The names of all flags (without {@code --}), in {@code --help} order. */
  /**
   * The flag of each library {@link Parameter}, as the flags declare them ({@link Option#sets}):
   * the library's messages name parameters, and the job says them as flags.
   */
  static Map<Parameter, String> parameterFlags() {
    return PARAMETER_FLAGS;
  }

  /** {@code e}'s message with its parameters said as flags. */
  static String flagMessage(RuntimeException e) {
    return e instanceof NamesParameters n ? n.message(PARAMETER_FLAGS) : e.getMessage();
  }

  static Set<String> names() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(BY_NAME.keySet()));
  }

  /** The flags {@code command} takes, for messages. */
  static String listFor(Command command) {
    List<String> flags = new ArrayList<>();
    for (Option<?> o : OPTIONS) {
      if (o.takenBy(command)) {
        flags.add(o.flag());
      }
    }
    return String.join(", ", flags);
  }

  /**
   * {@code --strip-params}: empty is refused (see {@link #STRIP_PARAMS}); {@link DecodeConfig}
   * checks the list.
   */
  private static String stripParamsValue(String flag, String value) {
    if (value.strip().isEmpty()) {
      throw new ConfigException(
          flag
              + ": an empty value is not accepted (an unset shell variable?); accepted: a"
              + " comma-separated list of parameter names ('*' a wildcard), 'default' ("
              + String.join(", ", DecodeConfig.DEFAULT_STRIP_PARAMS)
              + "), 'none', or the flag alone (= default)");
    }
    return value.strip();
  }

  /** The seed's value is secret: the message never repeats it. */
  static long seed(String flag, String value) {
    String s = value.strip().replace("_", "");
    try {
      if (s.startsWith("0x") || s.startsWith("0X")) {
        return Long.parseUnsignedLong(s.substring(2), 16);
      }
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new ConfigException(
          flag
              + ": the value is not accepted;"
              + " accepted: a 64-bit integer, decimal or 0x hex (the value is not shown: it is secret)");
    }
  }
}
