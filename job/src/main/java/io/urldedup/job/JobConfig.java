package io.urldedup.job;

import static io.urldedup.job.Command.BOOTSTRAP;
import static io.urldedup.job.Command.INSPECT;
import static io.urldedup.job.Command.PLAN;
import static io.urldedup.job.Command.PROBE;
import static io.urldedup.job.Command.RUN;
import static io.urldedup.state.FilterSpec.Kind.AGED;
import static io.urldedup.state.FilterSpec.Kind.SCALABLE;
import static io.urldedup.state.FilterSpec.Kind.STABLE;

import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.DedupSettings;
import io.urldedup.operators.PageCacheSizing;
import io.urldedup.state.ByteSize;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.PageStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.util.TimeUtils;

/**
 * The job's settings from flags, an optional {@code --config FILE} (same keys, {@code key=value},
 * flags win) and {@code URLDEDUP_HASH_SEED}. Every error names the flag and the accepted values.
 *
 * <p>Each flag is one {@link Option} constant below, declared once with its type, default, parser
 * (which checks the accepted range) and help; {@link #OPTIONS} lists them in {@code --help} order.
 * Parsing, {@link #helpText()} (hence the README flag list, pinned by ReadmeTest) and {@link
 * #flagNames()} (the deployment manifest check) all read that list. Ranges owned by the filter or
 * the decoder are their constants ({@link FilterSpec#MAX_GROWTH}, {@link DecodeConfig#MAX_SHARDS}),
 * enums are theirs ({@link FilterSpec.Kind}, {@link DecodeConfig.Format}); {@link FilterSpec}
 * and {@link DecodeConfig} validate themselves and are built once, here.
 *
 * <p>Filter sizes are given for the whole job (all shards) and divided here, so that changing
 * {@code --shards} does not silently multiply memory.
 *
 * <h2>Adding a flag</h2>
 * <ol>
 *   <li>Declare it: {@code static final Option<Duration> WINDOW = Option.duration("window", ...)
 *       .in(FILTER).defaultValue("7d").help("...");} next to its section's flags, and add it to
 *       {@link #OPTIONS} where it should appear in {@code --help}. Pick the factory for its type
 *       ({@link Option#integer}, {@link Option#size}, {@link Option#choice}, {@link Option#toggle},
 *       ...) or {@link Option#of} with your own parser; give a default as the user would type it,
 *       or {@link Option#describedDefault} if it depends on other flags. Say where it applies:
 *       {@link Option#forCommands} if a command other than run (and plan) takes it, {@link
 *       Option#forFilters} if it belongs to some filter kinds only; it is refused elsewhere.</li>
 *   <li>Read it where it is used: {@code config.get(JobConfig.WINDOW)} (the parsed default if not
 *       given). A setting of the filter or the decoder goes into {@link #filterSpec} / {@link
 *       #decodeConfig} in the constructor, which then validates it; a canonicalization setting also
 *       goes into {@link DecodeConfig#canonicalizationSettings()}.</li>
 *   <li>Regenerate the README flag block ({@code ./urldedup help}); add the flag to
 *       JobConfigTest#everyFlagIsParsed. Kafka-mode flags also go into {@link #KAFKA_OPTIONS}.</li>
 * </ol>
 * Nothing else: no second default, no second range check, no hand-written help line.
 */
public final class JobConfig {

  public enum Mode { EMBEDDED, KAFKA }

  public enum StartingOffsets { EARLIEST, LATEST, COMMITTED }

  public enum StateBackend { HASHMAP, ROCKSDB }

  /** How an aged filter's time window reads time. */
  public enum TimeMode { EVENT, PROCESSING }

  /** The seed used when none is given; public, so a warning says to set one. */
  static final long DEFAULT_SEED = 0x75726c6465647570L;

  static final String SEED_ENV = "URLDEDUP_HASH_SEED";

  /** The value of {@code --dlq-topic} / {@code --dlq} that only counts dead letters. */
  public static final String NONE = "none";

  /** Checkpoint interval when checkpointing is on and {@code --checkpoint-interval} is not given. */
  static final String DEFAULT_CHECKPOINT_INTERVAL = "10s";

  /** Embedded mode without {@code --parallelism}: the CPU cores, at most this many. */
  static final int EMBEDDED_MAX_PARALLELISM = 4;

  /** Flink's largest max parallelism (KeyGroupRangeAssignment.UPPER_BOUND_MAX_PARALLELISM). */
  static final int FLINK_MAX_PARALLELISM = 1 << 15;

  private static final String IO = "Embedded mode (no Kafka flags): local files or stdin/stdout";
  private static final String KAFKA = "Kafka mode (any Kafka flag selects it)";
  private static final String FILTER = "Filter (sizes are totals over all shards)";
  private static final String DECODE = "Decoding and canonicalization";
  private static final String RUNTIME = "Runtime";
  private static final String STATE_OPS = "State (run --state, bootstrap, inspect, probe)";

  // ---- the flags ----

  public static final Option<String> INPUT = Option.string("input", "PATH|-").in(IO)
      .forCommands(RUN, BOOTSTRAP, PROBE)
      .help("Input file, one record per line ('-' = stdin). Required in embedded mode.");
  public static final Option<String> OUTPUT = Option.string("output", "PATH|-").in(IO).defaultValue("-")
      .help("Where unseen URLs are written ('-' = stdout).");
  public static final Option<String> DLQ = Option.string("dlq", "PATH|-|none").in(IO).forCommands(RUN, BOOTSTRAP)
      .defaultValue(NONE)
      .help("Dead letters, one a line: reason<TAB>detail<TAB>origin<TAB>escaped original value."
          + " 'none' only counts them (see the summary).");

  public static final Option<String> BOOTSTRAP_SERVERS = Option.string("bootstrap-servers", "HOST:PORT[,...]")
      .in(KAFKA).help("Kafka bootstrap servers.");
  public static final Option<List<String>> INPUT_TOPIC = Option.list("input-topic", "TOPIC[,...]").in(KAFKA)
      .help("Topic(s) of discovered URLs.");
  public static final Option<String> OUTPUT_TOPIC = Option.string("output-topic", "TOPIC").in(KAFKA)
      .help("Topic the unseen URLs go to (exactly once).");
  public static final Option<String> DLQ_TOPIC = Option.string("dlq-topic", "TOPIC|none").in(KAFKA)
      .help("Dead-letter topic (exactly once). Required: 'none' must be explicit and only counts"
          + " dead letters.");
  public static final Option<String> GROUP_ID = Option.nonEmpty("group-id", "ID").in(KAFKA).defaultValue("urldedup")
      .help("Consumer group (offsets are committed at checkpoints).");
  public static final Option<String> KAFKA_PROPERTIES = Option.string("kafka-properties", "FILE").in(KAFKA)
      .help("Java properties applied to source, sink and DLQ clients (security.protocol, sasl.*, ssl.*);"
          + " they override urldedup's throughput defaults (README, Kafka client defaults). Values are"
          + " never logged.");
  public static final Option<StartingOffsets> STARTING_OFFSETS =
      Option.choice("starting-offsets", StartingOffsets.class).in(KAFKA).defaultValue("committed")
          .help("Where a fresh job starts; 'committed' falls back to earliest. A restore from a"
              + " checkpoint or savepoint always resumes at its offsets.");
  public static final Option<String> TRANSACTIONAL_ID_PREFIX =
      Option.nonEmpty("transactional-id-prefix", "PREFIX").in(KAFKA).defaultValue("urldedup")
          .help("Prefix of the sinks' Kafka transactional ids (-out, -dlq appended); unique per job.");
  public static final Option<Duration> TRANSACTION_TIMEOUT = Option.duration("transaction-timeout",
          Duration.ofSeconds(1), Duration.ofMillis(Integer.MAX_VALUE), "between 1s and 24d, e.g. 10min")
      .in(KAFKA).defaultValue("10min")
      .help("transaction.timeout.ms of the sinks; must exceed the checkpoint interval and be at most"
          + " the broker's transaction.max.timeout.ms (default 15min).");

  public static final Option<FilterSpec.Kind> FILTER_KIND = Option.choice("filter", FilterSpec.Kind.class)
      .in(FILTER).forCommands(RUN, BOOTSTRAP).defaultValue("scalable")
      .help("stable: fixed memory, forgets old URLs (they come back for recrawl);"
          + " scalable: never re-emits a URL, memory grows with distinct URLs;"
          + " aged: suppresses a URL for a window (--window or --window-urls), then lets it come back.");
  public static final Option<Double> FPR = Option.decimal("fpr", "RATE",
          d -> d >= FilterSpec.MIN_FPR && d < FilterSpec.MAX_FPR,
          "a rate from " + FilterSpec.MIN_FPR + " up to (not including) " + FilterSpec.MAX_FPR + ", e.g. 0.01 or 1e-6")
      .in(FILTER).forCommands(RUN, BOOTSTRAP).defaultValue("0.01")
      .help("Target false-positive rate, 1e-9 <= RATE < 0.5 (a false positive is a page never"
          + " crawled).");
  public static final Option<Long> MEMORY = Option.size("memory", 1, "").in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(STABLE).defaultValue("128m")
      .help("stable: total filter memory, e.g. 64m, 1g.");
  public static final Option<Integer> CELL_BITS = Option.integer("cell-bits",
          FilterSpec.MIN_CELL_BITS + ".." + FilterSpec.MAX_CELL_BITS, FilterSpec.MIN_CELL_BITS, FilterSpec.MAX_CELL_BITS)
      .in(FILTER).forCommands(RUN, BOOTSTRAP).forFilters(STABLE).defaultValue("2")
      .help("stable: bits per cell d (Max = 2^d - 1).");
  public static final Option<Long> CAPACITY = Option.atLeast("capacity", "N", 1).in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(SCALABLE).defaultValue("1000000")
      .help("scalable: total URLs the first slices hold at their error.");
  public static final Option<Integer> GROWTH = Option.integer("growth",
          FilterSpec.MIN_GROWTH + ".." + FilterSpec.MAX_GROWTH, FilterSpec.MIN_GROWTH, FilterSpec.MAX_GROWTH)
      .in(FILTER).forCommands(RUN, BOOTSTRAP).forFilters(SCALABLE).defaultValue("2")
      .help("scalable: each new slice is this many times larger.");
  public static final Option<Double> TIGHTENING = Option.decimal("tightening", "RATIO", d -> d > 0 && d < 1,
          "a number strictly between 0 and 1, e.g. 0.01")
      .in(FILTER).forCommands(RUN, BOOTSTRAP).forFilters(SCALABLE).defaultValue("0.5")
      .help("scalable: each new slice's error is this times the previous, 0 < RATIO < 1.");
  public static final Option<Long> MAX_MEMORY = Option.size("max-memory", 1, "").in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(SCALABLE).defaultValue("1g")
      .help("scalable: hard cap on total filter memory.");
  public static final Option<Duration> WINDOW = Option.duration("window", Duration.ofSeconds(1),
          Duration.ofDays(3650), "between 1s and 3650d, e.g. 7d").in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(AGED)
      .help("aged: a URL is not emitted again for this long after it was emitted (time window, e.g."
          + " 7d); needs --rate.");
  public static final Option<Long> WINDOW_URLS = Option.atLeast("window-urls", "N", 1).in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(AGED)
      .help("aged: a URL is not emitted again until N new URLs have been emitted after it (count"
          + " window; per shard N / --shards of them).");
  public static final Option<Integer> GENERATIONS = Option.integer("generations", "1.." + FilterSpec.MAX_GENERATIONS,
          1, FilterSpec.MAX_GENERATIONS).in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(AGED)
      .describedDefault("chosen for a 10% slack (see plan)")
      .help("aged: l, the window's generations; more generations forget more sharply after the window.");
  public static final Option<Double> RATE = Option.decimal("rate", "URLS/s", d -> d > 0 && d < 1e12,
          "a positive number of new URLs per second, e.g. 500").in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(AGED)
      .help("aged, --window: expected new URLs per second in total; sizes the slices. A faster"
          + " crawl advances generations early (the FPR holds, the window shrinks). plan, any filter:"
          + " the records/s to size the cluster for (slots, checkpoint MB/s, restore time).");
  public static final Option<TimeMode> TIME = Option.choice("time", TimeMode.class).in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(AGED)
      .describedDefault("event in Kafka mode, processing in embedded mode")
      .help("aged, --window: event: the Kafka record timestamp (embedded mode: the JSON field ts, epoch"
          + " millis or ISO-8601; without one a record is a dead letter bad_timestamp), with a"
          + " bounded-out-of-orderness watermark; processing: the TaskManager clock.");
  public static final Option<Duration> MAX_OUT_OF_ORDERNESS = Option.duration("max-out-of-orderness",
          Duration.ofMillis(1), Duration.ofDays(1), "between 1ms and 1d, e.g. 1min").in(FILTER)
      .forCommands(RUN, BOOTSTRAP).forFilters(AGED).defaultValue("1min")
      .help("aged, event time: how late a record may arrive (the watermark's bound).");
  public static final Option<Integer> SHARDS = Option.integer("shards", "N", 1, DecodeConfig.MAX_SHARDS)
      .in(FILTER).forCommands(RUN, BOOTSTRAP, PROBE)
      .defaultValue(Integer.toString(DecodeConfig.DEFAULT_SHARDS))
      .help("Filter shards (keys); fixed for the life of the state, independent of parallelism.");
  public static final Option<Long> HASH_SEED = Option.of("hash-seed", "INT64", JobConfig::seed).in(FILTER)
      .forCommands(RUN, BOOTSTRAP, PROBE)
      .help("Secret hash seed (decimal or 0x hex), a random 64-bit value; better env " + SEED_ENV
          + " (flink run logs program arguments). Without it a public default is used, with a"
          + " warning. urldedup never logs it.");

  public static final Option<DecodeConfig.Format> FORMAT = Option.choice("format", DecodeConfig.Format.class)
      .in(DECODE).forCommands(RUN, BOOTSTRAP, PROBE).defaultValue("text")
      .help("text: the record value is the URL; json: an object with a \"url\" string"
          + " (and optional \"force\": true to re-emit).");
  public static final Option<DecodeConfig.KeyMode> KEY = Option.choice("key", DecodeConfig.KeyMode.class)
      .in(DECODE).defaultValue("host")
      .help("Output record key: the host, the registrable domain, or none.");
  /**
   * Given alone, the session-id list: a bare flag means "the usual ones". An empty value is
   * refused: it is what an unset shell variable gives ({@code --strip-params "$P"}), and reading it
   * as the default list would turn a rule on that nobody asked for.
   */
  public static final Option<String> STRIP_PARAMS = Option.of("strip-params", "[LIST]", JobConfig::stripParamsValue)
      .in(DECODE).forCommands(RUN, BOOTSTRAP, PROBE).whenAlone("default").defaultValue(NONE)
      .help("Opt-in rule: remove these query and path parameters (comma-separated names,"
          + " case-insensitive, '*' a wildcard: utm_*). Without a list, or 'default': "
          + String.join(", ", DecodeConfig.DEFAULT_STRIP_PARAMS) + ". 'none': keep all. An empty value is"
          + " refused."
          + " See docs/canonicalization.md for every rule.");
  public static final Option<Boolean> STRIP_WWW = Option.toggle("strip-www").in(DECODE)
      .forCommands(RUN, BOOTSTRAP, PROBE)
      .help("Opt-in rule: drop a leading 'www.' from hosts (while a registrable domain remains).");
  public static final Option<Boolean> SORT_PARAMS = Option.toggle("sort-params").in(DECODE)
      .forCommands(RUN, BOOTSTRAP, PROBE)
      .help("Opt-in rule: sort query parameters by name (stable). Merges ?b=2&a=1 with ?a=1&b=2.");
  public static final Option<Boolean> DROP_EMPTY_PARAMS = Option.toggle("drop-empty-params")
      .in(DECODE).forCommands(RUN, BOOTSTRAP, PROBE)
      .help("Opt-in rule: remove empty query pairs (&&) and parameters with an empty value (a=).");
  public static final Option<Boolean> COLLAPSE_SLASHES = Option.toggle("collapse-slashes")
      .in(DECODE).forCommands(RUN, BOOTSTRAP, PROBE)
      .help("Opt-in rule: collapse runs of '/' in paths (merges bucket//key with bucket/key).");
  public static final Option<Integer> MAX_URL_BYTES = Option.integer("max-url-bytes", "N",
          DecodeConfig.MIN_MAX_URL_BYTES, DecodeConfig.MAX_MAX_URL_BYTES)
      .in(DECODE).forCommands(RUN, BOOTSTRAP, PROBE)
      .defaultValue(Integer.toString(DecodeConfig.DEFAULT_MAX_URL_BYTES))
      .help("Longer canonical URLs are dead letters (too_long).");
  public static final Option<Boolean> ALLOW_CANONICALIZATION_CHANGE = Option.toggle("allow-canonicalization-change")
      .in(DECODE).forCommands(RUN, PROBE)
      .help("Restore state written with other canonicalization settings (logged as a warning; URLs seen"
          + " before may be emitted once more) instead of refusing it.");

  public static final Option<Integer> PARALLELISM = Option.integer("parallelism", "N", 1, FLINK_MAX_PARALLELISM)
      .in(RUNTIME).forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
      .describedDefault("cluster default (embedded: CPU cores, at most " + EMBEDDED_MAX_PARALLELISM + ")")
      .help("Operator parallelism.");
  public static final Option<StateBackend> STATE_BACKEND = Option.choice("state-backend", StateBackend.class)
      .in(RUNTIME).forCommands(RUN, BOOTSTRAP).defaultValue("hashmap")
      .help("hashmap: state on the heap; rocksdb: on local disk, incremental checkpoints.");
  public static final Option<String> CHECKPOINT_DIR = Option.nonEmpty("checkpoint-dir", "URI").in(RUNTIME)
      .help("Checkpoint storage, e.g. file:///var/urldedup/ckpt or s3://...; without it the"
          + " cluster's setting (./urldedup: a private directory in $TMPDIR, removed at exit).");
  public static final Option<Duration> CHECKPOINT_INTERVAL = Option.duration("checkpoint-interval",
          Duration.ofMillis(10), Duration.ofDays(365), "at least 10ms, e.g. 500ms, 10s, 1min")
      .in(RUNTIME)
      .describedDefault(DEFAULT_CHECKPOINT_INTERVAL + " (embedded: off unless this or --checkpoint-dir is given)")
      .help("Exactly-once output becomes visible at checkpoints, so this is the output latency.");
  /** {@code --cache-memory auto}: sized when each dedup subtask opens ({@link PageCacheSizing}). */
  public static final long AUTO_CACHE_MEMORY = 0;
  public static final Option<Long> CACHE_MEMORY = Option.sizeOr("auto", AUTO_CACHE_MEMORY, "cache-memory", 4096,
          "at least 4k (one page), e.g. 8m")
      .in(RUNTIME).defaultValue("auto")
      .help("Write-back cache of filter pages per subtask (4 KiB pages), flushed at checkpoints. auto:"
          + " the whole filter of the subtask's shards (stable --memory, scalable --max-memory), at most "
          + Math.round(PageCacheSizing.HEAP_SHARE * 100) + "% of the TaskManager heap over its slots"
          + " (at least " + (PageCacheSizing.MIN_BUDGET_BYTES >> 20) + "m).");
  /**
   * {@code --materialize-every}'s default on RocksDB: measured at 10^8 URLs (docs/scale/README.md),
   * 10 keeps a checkpoint between epochs at the insert log alone and a restore's replay at 10
   * intervals of inserts (plan prints both for a given --rate). On the heap backend every
   * checkpoint is a full snapshot of the state, which a log cannot make smaller, and logging cost
   * 0.34 us per record at 10^7 (docs/scale/README.md): there the default is 1.
   */
  static final int DEFAULT_MATERIALIZE_EVERY = 10;
  public static final Option<Integer> MATERIALIZE_EVERY = Option.integer("materialize-every", "N", 1,
          DedupSettings.MAX_MATERIALIZE_EVERY)
      .in(RUNTIME).describedDefault(DEFAULT_MATERIALIZE_EVERY + " with --state-backend rocksdb, 1 with hashmap")
      .help("Every N-th checkpoint writes the filter pages each shard changed; the others write only"
          + " the inserts since (16 B per new URL), replayed on restore (at most N intervals of them)."
          + " 1: pages at every checkpoint, the state layout of earlier builds (which refuse state"
          + " written with N > 1). Only RocksDB's incremental checkpoints get smaller; the heap"
          + " backend's are full snapshots.");
  public static final Option<String> JOB_NAME = Option.nonEmpty("job-name", "NAME").in(RUNTIME)
      .forCommands(RUN, BOOTSTRAP)
      .defaultValue("urldedup").help("Flink job name.");
  public static final Option<String> CONFIG = Option.string("config", "FILE").in(RUNTIME)
      .forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
      .help("key=value lines with the same keys as the flags (no --); flags override the file. One file"
          + " can serve several commands: each reads the keys it takes and ignores the others.");
  public static final Option<Boolean> VERBOSE = Option.toggle("verbose").in(RUNTIME)
      .forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
      .help("Show Flink's and Kafka's warnings on stderr too, and an error's stack trace (by default:"
          + " urldedup's own warnings, and an error as one line).");

  /** Every flag, in {@code --help} order. */
  public static final Option<String> STATE = Option.nonEmpty("state", "DIR").in(STATE_OPS)
      .forCommands(RUN, BOOTSTRAP, INSPECT, PROBE)
      .help("run (embedded): restore from the savepoint in DIR if there is one, and save one there at the"
          + " end of input and on Ctrl-C. bootstrap: write the savepoint there. inspect, probe: read the"
          + " newest savepoint or retained checkpoint in DIR (or DIR itself).");
  public static final Option<Boolean> JSON = Option.toggle("json").in(STATE_OPS).forCommands(INSPECT, PLAN)
      .help("inspect, plan: print one JSON document instead of the text report.");

  static final List<Option<?>> OPTIONS = List.of(
      INPUT, OUTPUT, DLQ,
      BOOTSTRAP_SERVERS, INPUT_TOPIC, OUTPUT_TOPIC, DLQ_TOPIC, GROUP_ID, KAFKA_PROPERTIES, STARTING_OFFSETS,
      TRANSACTIONAL_ID_PREFIX, TRANSACTION_TIMEOUT,
      FILTER_KIND, FPR, MEMORY, CELL_BITS, CAPACITY, GROWTH, TIGHTENING, MAX_MEMORY,
      WINDOW, WINDOW_URLS, GENERATIONS, RATE, TIME, MAX_OUT_OF_ORDERNESS, SHARDS, HASH_SEED,
      FORMAT, KEY, STRIP_PARAMS, STRIP_WWW, SORT_PARAMS, DROP_EMPTY_PARAMS, COLLAPSE_SLASHES,
      MAX_URL_BYTES, ALLOW_CANONICALIZATION_CHANGE,
      PARALLELISM, STATE_BACKEND, CHECKPOINT_DIR, CHECKPOINT_INTERVAL, CACHE_MEMORY, MATERIALIZE_EVERY, JOB_NAME,
      CONFIG, VERBOSE,
      STATE, JSON);

  /** Giving any of these selects Kafka mode. */
  private static final List<Option<?>> KAFKA_OPTIONS = List.of(
      BOOTSTRAP_SERVERS, INPUT_TOPIC, OUTPUT_TOPIC, DLQ_TOPIC, GROUP_ID, KAFKA_PROPERTIES, STARTING_OFFSETS,
      TRANSACTIONAL_ID_PREFIX);

  private static final Map<String, Option<?>> BY_NAME = new LinkedHashMap<>();

  static {
    for (Option<?> o : OPTIONS) {
      BY_NAME.put(o.name(), o);
    }
  }

  // ---- the parsed settings ----
  private final Map<Option<?>, Object> values = new HashMap<>();
  private final Set<Option<?>> given = new HashSet<>();
  /** The config file line ({@code FILE:LINE}) of each flag given there and not on the command line. */
  private final Map<Option<?>, String> origin = new HashMap<>();

  /** The command these flags are for. */
  public final Command command;

  public final Mode mode;
  public final String input;
  public final String output;
  public final String dlq;
  public final String bootstrapServers;
  public final List<String> inputTopics;
  public final String outputTopic;
  public final String dlqTopic;
  public final String groupId;
  public final Path kafkaPropertiesFile;
  public final StartingOffsets startingOffsets;
  public final String transactionalIdPrefix;
  public final Duration transactionTimeout;
  public final FilterSpec.Kind filter;
  public final double fpr;
  public final long memoryBytes;
  public final int cellBits;
  public final long capacity;
  public final int growth;
  public final double tightening;
  public final long maxMemoryBytes;
  /** Aged: null / 0 when not given. */
  public final Duration window;
  public final long windowUrls;
  public final int generations;
  public final double rate;
  public final TimeMode time;
  public final Duration maxOutOfOrderness;
  public final int shards;
  /** Secret: never log it, never put it into Flink's configuration or global job parameters. */
  final long hashSeed;
  public final boolean defaultSeed;
  public final DecodeConfig.Format format;
  public final DecodeConfig.KeyMode key;
  /** Parameters to strip; empty = none; null never. */
  public final List<String> stripParams;
  public final boolean stripWww;
  public final int maxUrlBytes;
  public final boolean allowCanonicalizationChange;
  /** 0 = not set. */
  public final int parallelism;
  public final StateBackend stateBackend;
  public final String checkpointDir;
  /** null = checkpointing off (embedded mode without the flag). */
  public final Duration checkpointInterval;
  public final long cacheMemoryBytes;
  public final int materializeEvery;
  public final String jobName;

  /** Built once from the flags, validated by their own constructors. */
  private final FilterSpec filterSpec;
  private final DecodeConfig decodeConfig;

  /** Session-id parameters stripped by a bare {@code --strip-params} (as crawlers commonly do). */
  public static final List<String> DEFAULT_STRIP_PARAMS = DecodeConfig.DEFAULT_STRIP_PARAMS;

  /** The names of all flags (without {@code --}), for the deployment manifest test. */
  public static Set<String> flagNames() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(BY_NAME.keySet()));
  }

  /** {@code run}'s flags (after the command word) with the process environment. */
  public static JobConfig parse(String[] args) {
    return parse(RUN, args, System.getenv());
  }

  /** {@code run}'s flags. */
  public static JobConfig parse(String[] args, Map<String, String> env) {
    return parse(RUN, args, env);
  }

  /** For {@code plan}: the sizing flags matter, the input and output flags are not required. */
  public static JobConfig parseForPlan(String[] args, Map<String, String> env) {
    return parse(PLAN, args, env);
  }

  /**
   * The flags of {@code command}. A flag on the command line that the command does not take is
   * refused; a {@code --config} file's keys that it does not take are skipped (one file serves
   * every command of a job, as {@code --help} says).
   */
  public static JobConfig parse(Command command, String[] args, Map<String, String> env) {
    Map<String, String> cli = parseArgs(args);
    for (String name : cli.keySet()) {
      Option<?> o = BY_NAME.get(name);
      if (!o.takenBy(command)) {
        throw new ConfigException(o.flag() + " is not a flag of " + command.word() + " (it is for "
            + String.join(", ", o.commandWords()) + "); " + command.word() + " takes " + flagsOf(command));
      }
    }
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> where = new HashMap<>();
    String configFile = cli.get(CONFIG.name());
    if (configFile != null) {
      readConfigFile(configFile, where).forEach((name, value) -> {
        if (BY_NAME.get(name).takenBy(command)) {
          values.put(name, value);
        }
      });
    }
    values.putAll(cli);
    where.keySet().removeAll(cli.keySet());
    values.remove(CONFIG.name());
    return new JobConfig(command, values, where, env);
  }

  /** The flags {@code command} takes, for messages. */
  static String flagsOf(Command command) {
    List<String> flags = new ArrayList<>();
    for (Option<?> o : OPTIONS) {
      if (o.takenBy(command)) {
        flags.add(o.flag());
      }
    }
    return String.join(", ", flags);
  }

  private JobConfig(Command command, Map<String, String> v, Map<String, String> where, Map<String, String> env) {
    this.command = command;
    for (Option<?> o : OPTIONS) {
      String raw = v.get(o.name());
      if (raw != null) {
        given.add(o);
        if (where.containsKey(o.name())) {
          origin.put(o, where.get(o.name()));
        }
        values.put(o, o.parse(raw));
      } else {
        values.put(o, o.defaultParsed());
      }
    }
    boolean kafka = false;
    for (Option<?> o : KAFKA_OPTIONS) {
      kafka |= given.contains(o);
    }
    mode = kafka ? Mode.KAFKA : Mode.EMBEDDED;

    input = get(INPUT);
    output = get(OUTPUT);
    dlq = get(DLQ);
    bootstrapServers = get(BOOTSTRAP_SERVERS);
    inputTopics = isSet(INPUT_TOPIC) ? get(INPUT_TOPIC) : List.of();
    outputTopic = get(OUTPUT_TOPIC);
    dlqTopic = get(DLQ_TOPIC);
    groupId = get(GROUP_ID);
    kafkaPropertiesFile = isSet(KAFKA_PROPERTIES) ? Path.of(get(KAFKA_PROPERTIES)) : null;
    startingOffsets = get(STARTING_OFFSETS);
    transactionalIdPrefix = get(TRANSACTIONAL_ID_PREFIX);
    transactionTimeout = get(TRANSACTION_TIMEOUT);

    filter = get(FILTER_KIND);
    fpr = get(FPR);
    memoryBytes = get(MEMORY);
    cellBits = get(CELL_BITS);
    capacity = get(CAPACITY);
    growth = get(GROWTH);
    tightening = get(TIGHTENING);
    maxMemoryBytes = get(MAX_MEMORY);
    shards = get(SHARDS);
    window = get(WINDOW);
    windowUrls = isSet(WINDOW_URLS) ? get(WINDOW_URLS) : 0;
    generations = isSet(GENERATIONS) ? get(GENERATIONS) : 0;
    rate = isSet(RATE) ? get(RATE) : 0;
    time = isSet(TIME) ? get(TIME) : mode == Mode.KAFKA ? TimeMode.EVENT : TimeMode.PROCESSING;
    maxOutOfOrderness = get(MAX_OUT_OF_ORDERNESS);

    if (isSet(HASH_SEED)) {
      defaultSeed = false;
      hashSeed = get(HASH_SEED);
    } else {
      String fromEnv = env.get(SEED_ENV);
      defaultSeed = fromEnv == null || fromEnv.isEmpty();
      hashSeed = defaultSeed ? DEFAULT_SEED : seed(SEED_ENV, fromEnv);
    }

    format = get(FORMAT);
    key = get(KEY);
    stripWww = get(STRIP_WWW);
    maxUrlBytes = get(MAX_URL_BYTES);
    allowCanonicalizationChange = get(ALLOW_CANONICALIZATION_CHANGE);

    parallelism = isSet(PARALLELISM) ? get(PARALLELISM) : 0;
    stateBackend = get(STATE_BACKEND);
    checkpointDir = get(CHECKPOINT_DIR);
    if (isSet(CHECKPOINT_INTERVAL)) {
      checkpointInterval = get(CHECKPOINT_INTERVAL);
    } else {
      checkpointInterval = mode == Mode.KAFKA || checkpointDir != null
          ? CHECKPOINT_INTERVAL.parse(DEFAULT_CHECKPOINT_INTERVAL) : null;
    }
    cacheMemoryBytes = get(CACHE_MEMORY);
    materializeEvery = isSet(MATERIALIZE_EVERY) ? get(MATERIALIZE_EVERY)
        : stateBackend == StateBackend.ROCKSDB ? DEFAULT_MATERIALIZE_EVERY : 1;
    jobName = get(JOB_NAME);

    validate(v, command.requiresIo);
    filterSpec = buildFilterSpec();
    decodeConfig = buildDecodeConfig();
    stripParams = decodeConfig.stripParams();
  }

  /** The parsed value of {@code option}: as given, else its parsed default (null if it has none). */
  @SuppressWarnings("unchecked")
  public <T> T get(Option<T> option) {
    return (T) values.get(option);
  }

  /** Whether the flag was given (on the command line or in the config file). */
  public boolean isSet(Option<?> option) {
    return given.contains(option);
  }

  private void validate(Map<String, String> v, boolean requireIo) {
    if (mode == Mode.KAFKA && isSet(STATE)) {
      throw new ConfigException("--state is for the embedded mode; in Kafka mode keep state with --checkpoint-dir"
          + " and restore with flink run -s (bootstrap, inspect and probe read such savepoints)");
    }
    if (mode == Mode.KAFKA && requireIo) {
      for (Option<String> required : List.of(BOOTSTRAP_SERVERS, OUTPUT_TOPIC)) {
        if (get(required) == null || get(required).isEmpty()) {
          throw new ConfigException(required.flag() + " is required in Kafka mode");
        }
      }
      if (inputTopics.isEmpty()) {
        throw new ConfigException(INPUT_TOPIC.flag() + " is required in Kafka mode");
      }
      if (dlqTopic == null || dlqTopic.isEmpty()) {
        throw new ConfigException("--dlq-topic is required in Kafka mode: a topic for rejected"
            + " records, or 'none' to only count them (they are then lost)");
      }
      for (Option<?> embeddedOnly : List.of(INPUT, OUTPUT, DLQ)) {
        if (isSet(embeddedOnly)) {
          throw new ConfigException(embeddedOnly.flag() + " is for the embedded mode; in Kafka mode use "
              + embeddedOnly.flag() + "-topic");
        }
      }
      if (transactionTimeout.compareTo(checkpointInterval) <= 0) {
        throw new ConfigException("--transaction-timeout (" + TimeUtils.formatWithHighestUnit(transactionTimeout)
            + ") must exceed --checkpoint-interval (" + TimeUtils.formatWithHighestUnit(checkpointInterval)
            + "): a transaction stays open for one checkpoint interval");
      }
    } else if (requireIo && (input == null || input.isEmpty())) {
      throw new ConfigException(command == RUN
          ? "--input PATH|- is required in embedded mode (or give the Kafka flags --bootstrap-servers,"
              + " --input-topic, --output-topic, --dlq-topic)"
          : "--input FILE|- is required by " + command.word());
    }
    checkFilterFlags();
    if (filter == FilterSpec.Kind.STABLE) {
      checkPerShard(MEMORY, memoryBytes, v);
    }
    if (filter == FilterSpec.Kind.SCALABLE) {
      checkPerShard(MAX_MEMORY, maxMemoryBytes, v);
      checkFirstSlice(v);
    }
    if (parallelism > maxParallelism()) {
      throw new ConfigException("--parallelism " + parallelism + " is above the max parallelism " + maxParallelism()
          + " (max(--shards, 128)): accepted: --parallelism 1 to " + maxParallelism() + ", or more --shards (a new"
          + " state only: --shards is fixed for the life of the state)");
    }
    if (filter == FilterSpec.Kind.AGED) {
      if ((window == null) == (windowUrls == 0)) {
        throw new ConfigException("--filter aged needs exactly one of --window DURATION (e.g. 7d) or --window-urls N");
      }
      if (window != null && rate == 0) {
        throw new ConfigException("--window needs --rate URLS/s, the expected new URLs per second in total"
            + " (it sizes the filter; ./urldedup plan shows the result)");
      }
      if (window == null && (isSet(RATE) && command != Command.PLAN || isSet(TIME) || isSet(MAX_OUT_OF_ORDERNESS))) {
        throw new ConfigException("--rate, --time and --max-out-of-orderness apply to time windows (--window);"
            + " --window-urls counts new URLs");
      }
      if (window != null && time == TimeMode.EVENT && mode == Mode.EMBEDDED && format != DecodeConfig.Format.JSON) {
        throw new ConfigException("--time event in embedded mode reads the event time from the JSON field ts"
            + " (epoch milliseconds or ISO-8601): give --format json, or --time processing (the default in"
            + " embedded mode)");
      }
      if (windowUrls > 0 && windowUrls < shards) {
        throw new ConfigException("--window-urls " + windowUrls + " is below --shards " + shards
            + "; accepted: at least one new URL per shard");
      }
    }
  }

  /**
   * A flag of another filter kind would change nothing: refused, naming the kinds it is for and
   * the flags of this one (a --config file's keys count as given).
   */
  private void checkFilterFlags() {
    for (Option<?> o : OPTIONS) {
      // plan sizes a cluster for --rate records/s with any filter (ClusterShape)
      if (isSet(o) && !o.appliesTo(filter) && !(o == RATE && command == Command.PLAN)) {
        String kind = filter.name().toLowerCase(Locale.ROOT);
        List<String> own = new ArrayList<>();
        for (Option<?> k : OPTIONS) {
          if (k.filterSpecific() && k.appliesTo(filter) && k.takenBy(command)) {
            own.add(k.flag());
          }
        }
        throw new ConfigException(flagAt(o) + " applies to --filter " + String.join(", ", o.filterWords())
            + " only, not to --filter " + kind + (isSet(FILTER_KIND) ? "" : " (the default)") + "; --filter " + kind
            + " takes " + String.join(", ", own));
      }
    }
  }

  /** The flag, and the config file line it came from if it did. */
  private String flagAt(Option<?> o) {
    String at = origin.get(o);
    return at == null ? o.flag() : o.flag() + " (" + at + ")";
  }

  /**
   * Sizes are totals; each shard gets {@code total / shards}, which must be at least one page and
   * at most {@link FilterSpec#MAX_MEMORY_BYTES}. The message gives the flag's total and says which
   * number is per shard.
   */
  private void checkPerShard(Option<Long> flag, long total, Map<String, String> v) {
    String given = flag.flag() + " " + v.getOrDefault(flag.name(), flag.defaultText());
    long perShard = total / shards;
    if (perShard < FilterSpec.MIN_MEMORY_BYTES) {
      throw new ConfigException(given + " over --shards " + shards + " leaves " + perShard + " bytes per shard;"
          + " accepted: at least 4 KiB per shard (" + flag.flag() + " >= " + (FilterSpec.MIN_MEMORY_BYTES * shards)
          + " bytes in total, or fewer --shards)");
    }
    if (perShard > FilterSpec.MAX_MEMORY_BYTES) {
      throw new ConfigException(given + " over --shards " + shards + " is " + ByteSize.format(perShard)
          + " per shard; accepted: at most 1 TiB per shard (" + flag.flag() + " <= "
          + ByteSize.format(FilterSpec.MAX_MEMORY_BYTES * shards) + " in total, or more --shards)");
    }
  }

  /**
   * The scalable filter's first slice of each shard must fit in the shard's share of
   * --max-memory. Checked here, in the flags' totals, before {@link FilterSpec} checks it per shard.
   */
  private void checkFirstSlice(Map<String, String> v) {
    if (capacity < shards) {
      throw new ConfigException("--capacity " + capacity + " is below --shards " + shards
          + "; accepted: at least one URL per shard");
    }
    long perShard = capacity / shards;
    if (perShard > FilterSpec.MAX_CAPACITY) {
      throw new ConfigException("--capacity " + capacity + " over --shards " + shards + " is " + perShard
          + " URLs per shard; accepted: at most " + FilterSpec.MAX_CAPACITY + " per shard (or more --shards)");
    }
    long first = FilterMath.blockedPages(perShard, fpr * (1 - tightening)) * (long) PageStore.PAGE_BYTES;
    long maxPerShard = maxMemoryBytes / shards;
    if (first > maxPerShard) {
      throw new ConfigException("--max-memory " + v.getOrDefault(MAX_MEMORY.name(), MAX_MEMORY.defaultText())
          + " over --shards " + shards + " is " + ByteSize.format(maxPerShard) + " per shard, less than the"
          + " first slice of a shard needs: " + ByteSize.format(first) + " per shard for --capacity " + capacity
          + " (" + perShard + " URLs per shard) at --fpr " + fpr + " x (1 - --tightening " + tightening + ");"
          + " accepted: --max-memory at least " + ByteSize.format(first * shards) + " in total (" + first * shards
          + " bytes), or a lower --capacity");
    }
  }

  /** The filter each shard gets: the totals divided by the shard count. */
  private FilterSpec buildFilterSpec() {
    try {
      if (filter == FilterSpec.Kind.STABLE) {
        return FilterSpec.stable(fpr, memoryBytes / shards, cellBits);
      }
      if (filter == FilterSpec.Kind.AGED) {
        return window != null
            ? FilterSpec.agedTime(fpr, window.toMillis(), generations, rate / shards)
            : FilterSpec.agedCount(fpr, (windowUrls + shards - 1) / shards, generations);
      }
      return FilterSpec.scalable(fpr, Math.max(1, capacity / shards), growth, tightening, maxMemoryBytes / shards);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  private DecodeConfig buildDecodeConfig() {
    try {
      return DecodeConfig.builder()
          .format(format)
          .keyMode(key)
          .stripParams(get(STRIP_PARAMS))
          .stripWww(stripWww)
          .sortParams(get(SORT_PARAMS))
          .dropEmptyParams(get(DROP_EMPTY_PARAMS))
          .collapseSlashes(get(COLLAPSE_SLASHES))
          .maxUrlBytes(maxUrlBytes)
          .shards(shards)
          .hashSeed(hashSeed)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  // ---- derived settings ----

  /** The filter each shard gets: the totals divided by the shard count; built and validated once. */
  public FilterSpec perShardSpec() {
    return filterSpec;
  }

  /** Aged time windows: how the operator reads time; null for the other kinds and count windows. */
  public io.urldedup.operators.GenerationTime generationTime() {
    if (filter != FilterSpec.Kind.AGED || window == null) {
      return null;
    }
    return time == TimeMode.EVENT ? io.urldedup.operators.GenerationTime.eventTime(maxOutOfOrderness.toMillis())
        : io.urldedup.operators.GenerationTime.processingTime();
  }

  /** The decoder's settings (built once); carries the secret seed inside the operator, not in the job config. */
  public DecodeConfig decodeConfig() {
    return decodeConfig;
  }

  /** Pages in each subtask's write-back cache, or {@link DedupOperator#AUTO_CACHE}. */
  public int cachePages() {
    if (cacheMemoryBytes == AUTO_CACHE_MEMORY) {
      return DedupOperator.AUTO_CACHE;
    }
    return (int) Math.min(Integer.MAX_VALUE, cacheMemoryBytes / 4096);
  }

  /** How the dedup operator writes its shards at checkpoints ({@code --materialize-every}). */
  public DedupSettings dedupSettings() {
    return new DedupSettings(materializeEvery);
  }

  /** So that savepoints can be rescaled up to the shard count (and at least Flink's usual 128). */
  public int maxParallelism() {
    return Math.max(shards, 128);
  }

  /** Secret; only for building the operators. */
  long hashSeed() {
    return hashSeed;
  }

  // ---- parsing ----

  /**
   * Splits {@code args} into flags (with their values) and the words that are not flags (probe's
   * URLs), using the options' arity.
   */
  static List<List<String>> splitPositionals(String[] args) {
    List<String> flags = new ArrayList<>();
    List<String> words = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        words.add(a);
        continue;
      }
      flags.add(a);
      String name = a.substring(2);
      Option<?> f = name.contains("=") ? null : BY_NAME.get(name);
      if (f != null && !f.isSwitch() && i + 1 < args.length
          && !(f.valueOptional() && args[i + 1].startsWith("--"))) {
        flags.add(args[++i]);
      }
    }
    return List.of(flags, words);
  }

  static Map<String, String> parseArgs(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        throw new ConfigException("unexpected argument '" + a + "'; flags start with -- (see --help)");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      Option<?> f = BY_NAME.get(name);
      if (f == null) {
        throw new ConfigException("--" + name + " is not a flag" + didYouMean(name, false) + "; accepted: "
            + String.join(", ", BY_NAME.keySet()) + " (see --help)");
      }
      if (value == null) {
        if (f.isSwitch()) {
          value = f.valueWhenAlone();
        } else if (f.valueOptional()) {
          value = i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : f.valueWhenAlone();
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new ConfigException("--" + name + " needs a value: " + f.arg());
        }
      }
      out.put(name, value);
    }
    return out;
  }

  /**
   * The file's {@code key=value} lines; {@code where} gets each key's {@code FILE:LINE}. A line whose
   * key is no flag is never repeated in the message: it may be a secret on a line of its own or
   * after a mistyped key ({@code hash-seed 0x...} without '='); only flag names are.
   */
  static Map<String, String> readConfigFile(String file, Map<String, String> where) {
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("--config: cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String at = file + ":" + (n + 1);
      int eq = line.indexOf('=');
      String name = (eq < 0 ? line : line.substring(0, eq)).strip();
      Option<?> f = BY_NAME.get(name);
      if (f == null) {
        throw new ConfigException(at + ": the key is not a flag (the line is not shown: it may hold a secret)"
            + didYouMean(name, true) + "; accepted: key=value lines with the flags' names (see --help)");
      }
      if (f == CONFIG) {
        throw new ConfigException(at + ": 'config' cannot be nested");
      }
      String value = eq < 0 ? null : line.substring(eq + 1).strip();
      if (value == null) {
        value = f.valueWhenAlone();
        if (value == null) {
          throw new ConfigException(at + ": " + name + " needs a value: " + name + "=" + f.arg());
        }
      }
      out.put(name, value);
      where.put(name, at);
    }
    return out;
  }

  /**
   * ", did you mean --x?" (in a file: "x=VALUE") for the flag whose name starts {@code text} (a
   * key followed by a space and a value) or is within a few edits of it; "" if none is. Only a
   * flag name is ever shown, never the text.
   */
  static String didYouMean(String text, boolean file) {
    String t = text.toLowerCase(Locale.ROOT).replace('_', '-');
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String name : BY_NAME.keySet()) {
      if (t.startsWith(name) && t.length() > name.length() && !Character.isLetterOrDigit(t.charAt(name.length()))
          && t.charAt(name.length()) != '-') {
        best = name;
        bestDistance = 0;
        break;
      }
      int d = editDistance(t, name);
      if (d < bestDistance) {
        bestDistance = d;
        best = name;
      }
    }
    if (bestDistance > Math.max(1, best.length() / 4)) {
      return "";
    }
    return ", did you mean " + (file ? best + "=VALUE" : "--" + best) + "?";
  }

  private static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(Math.min(cur[j - 1], prev[j]) + 1, substitute);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /** {@code --strip-params}: empty is refused (see {@link #STRIP_PARAMS}); {@link DecodeConfig} checks the list. */
  private static String stripParamsValue(String flag, String value) {
    if (value.strip().isEmpty()) {
      throw new ConfigException(flag + ": an empty value is not accepted (an unset shell variable?); accepted: a"
          + " comma-separated list of parameter names ('*' a wildcard), 'default' ("
          + String.join(", ", DecodeConfig.DEFAULT_STRIP_PARAMS) + "), 'none', or the flag alone (= default)");
    }
    return value.strip();
  }

  /** The seed's value is secret: the message never repeats it. */
  private static long seed(String flag, String value) {
    String s = value.strip().replace("_", "");
    try {
      if (s.startsWith("0x") || s.startsWith("0X")) {
        return Long.parseUnsignedLong(s.substring(2), 16);
      }
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new ConfigException(flag + ": the value is not accepted;"
          + " accepted: a 64-bit integer, decimal or 0x hex (the value is not shown: it is secret)");
    }
  }

  // ---- help ----

  /** The {@code --help} text: every flag with its values and default. */
  public static String helpText() {
    StringBuilder b = new StringBuilder();
    b.append("Usage: urldedup <command> [flags]\n\n")
        .append("Commands:\n")
        .append("  run      deduplicate: Kafka mode if Kafka flags are given, else embedded (local files)\n")
        .append("  plan     print the filter sizing for the given flags (it takes run's flags) and exit;\n")
        .append("           exit 2 after the plan if run here would refuse them (the filter does not fit\n")
        .append("           this JVM's heap, with run's message)\n")
        .append("           (plan --json: the same numbers as one JSON document, docs/plan-json.md)\n")
        .append("  bootstrap  --input FILE|- --state DIR: a savepoint holding FILE's URLs as seen\n")
        .append("  inspect  --state DIR [--json]: what the filter state holds, per shard and in total\n")
        .append("  probe    --state DIR URL... | --input FILE: canonical form and seen/unseen per URL\n")
        .append("  version  print the version\n")
        .append("  help     print this text\n\n")
        .append("A flag is for run and plan unless its 'commands:' line says otherwise, and for every\n")
        .append("--filter kind unless its text starts with one (stable:, scalable:, aged:). A flag given\n")
        .append("where it does not apply is refused (exit 2); a --config file's keys that a command\n")
        .append("does not take are skipped.\n");
    List<String> runAndPlan = List.of(RUN.word(), PLAN.word());
    String section = null;
    for (Option<?> f : OPTIONS) {
      if (!f.section().equals(section)) {
        section = f.section();
        b.append('\n').append(section).append(":\n");
      }
      String head = "  " + f.flag() + (f.arg() == null ? "" : " " + f.arg());
      b.append(head).append('\n');
      for (String line : wrap(f.help(), 70)) {
        b.append("      ").append(line).append('\n');
      }
      if (f.defaultText() != null) {
        b.append("      default: ").append(f.defaultText()).append('\n');
      }
      if (!f.commandWords().equals(runAndPlan)) {
        b.append("      commands: ").append(String.join(", ", f.commandWords())).append('\n');
      }
    }
    b.append('\n');
    for (String line : wrap("SIZE: " + Option.SIZE_SYNTAX + " (e.g. 64m, 1g). DURATION: a "
        + Option.DURATION_SYNTAX + " (e.g. 500ms, 10s, 10min, 7d).", 78)) {
      b.append(line).append('\n');
    }
    b.append("Invalid values exit with code 2 and a message naming the flag.\n");
    return b.toString();
  }

  private static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }

  @Override
  public String toString() {
    // No seed, no Kafka property values.
    return "JobConfig{mode=" + mode + ", filter=" + filter + ", shards=" + shards
        + ", inputTopics=" + inputTopics + ", outputTopic=" + outputTopic + ", dlqTopic=" + dlqTopic
        + ", input=" + input + ", output=" + output + ", stateBackend=" + stateBackend
        + ", checkpointInterval=" + checkpointInterval + ", defaultSeed=" + defaultSeed
        + "}";
  }
}
