package io.urldedup.job;

import static io.urldedup.job.Command.PLAN;
import static io.urldedup.job.Command.RUN;

import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.DedupSettings;
import io.urldedup.operators.GenerationTime;
import io.urldedup.state.FilterSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.VisibleForTesting;

/**
 * A command's settings, resolved once from its flags ({@link ArgsParser}: the command line and an
 * optional {@code --config FILE}) and {@code URLDEDUP_HASH_SEED}: each {@link Flags} option parsed
 * (or its default), the defaults that depend on other flags computed, the rules that span flags
 * checked ({@link CrossFlagChecks}), and the objects the job is built from ({@link FilterSpec},
 * {@link DecodeConfig}) built once, here, which validate themselves. Every error names the flag and
 * the accepted values.
 *
 * <p>Filter sizes are given for the whole job (all shards) and divided here, so that changing
 * {@code --shards} does not silently multiply memory.
 */
public final class JobConfig {

  public enum Mode {
    EMBEDDED,
    KAFKA
  }

  public enum StartingOffsets {
    EARLIEST,
    LATEST,
    COMMITTED
  }

  public enum StateBackend {
    HASHMAP,
    ROCKSDB
  }

  /** The seed used when none is given; public, so a warning says to set one. */
  static final long DEFAULT_SEED = 0x75726c6465647570L;

  // ---- the parsed settings ----
  private final Map<Option<?>, Object> values = new HashMap<>();
  private final Set<Option<?>> given = new HashSet<>();

  /**
   * The config file line ({@code FILE:LINE}) of each flag given there and not on the command line.
   */
  private final Map<Option<?>, String> origin = new HashMap<>();

  /** The command these flags are for. */
  final Command command;

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
  final double fpr;
  public final long memoryBytes;
  @VisibleForTesting final int cellBits;
  final long capacity;
  @VisibleForTesting final int growth;
  final double tightening;
  final long maxMemoryBytes;

  /** Aged: null / 0 when not given. */
  final Duration window;

  final long windowUrls;
  @VisibleForTesting final int generations;
  public final double rate;
  final GenerationTime.Clock time;
  public final Duration maxOutOfOrderness;
  public final int shards;

  /** Secret: never log it, never put it into Flink's configuration or global job parameters. */
  final long hashSeed;

  public final boolean defaultSeed;
  final DecodeConfig.Format format;
  @VisibleForTesting final DecodeConfig.KeyMode key;

  /** Parameters to strip; empty = none; null never. */
  @VisibleForTesting final List<String> stripParams;

  @VisibleForTesting final boolean stripWww;
  @VisibleForTesting final int maxUrlBytes;
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

  /** The flags of {@code command} ({@link ArgsParser#parse}: which it takes, and from where). */
  public static JobConfig parse(Command command, String[] args, Map<String, String> env) {
    ArgsParser.Given given = ArgsParser.parse(command, args);
    return new JobConfig(command, given.values(), given.origins(), env);
  }

  private JobConfig(
      Command command, Map<String, String> v, Map<String, String> where, Map<String, String> env) {
    this.command = command;
    for (Option<?> o : Flags.OPTIONS) {
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
    for (Option<?> o : Flags.KAFKA_OPTIONS) {
      kafka |= given.contains(o);
    }
    mode = kafka ? Mode.KAFKA : Mode.EMBEDDED;

    input = get(Flags.INPUT);
    output = get(Flags.OUTPUT);
    dlq = get(Flags.DLQ);
    bootstrapServers = get(KafkaFlags.BOOTSTRAP_SERVERS);
    inputTopics = isSet(KafkaFlags.INPUT_TOPIC) ? get(KafkaFlags.INPUT_TOPIC) : List.of();
    outputTopic = get(KafkaFlags.OUTPUT_TOPIC);
    dlqTopic = get(KafkaFlags.DLQ_TOPIC);
    groupId = get(KafkaFlags.GROUP_ID);
    kafkaPropertiesFile =
        isSet(KafkaFlags.KAFKA_PROPERTIES) ? Path.of(get(KafkaFlags.KAFKA_PROPERTIES)) : null;
    startingOffsets = get(KafkaFlags.STARTING_OFFSETS);
    transactionalIdPrefix = get(KafkaFlags.TRANSACTIONAL_ID_PREFIX);
    transactionTimeout = get(KafkaFlags.TRANSACTION_TIMEOUT);

    filter = get(FilterFlags.FILTER_KIND);
    fpr = get(FilterFlags.FPR);
    memoryBytes = get(FilterFlags.MEMORY);
    cellBits = get(FilterFlags.CELL_BITS);
    capacity = get(FilterFlags.CAPACITY);
    growth = get(FilterFlags.GROWTH);
    tightening = get(FilterFlags.TIGHTENING);
    maxMemoryBytes = get(FilterFlags.MAX_MEMORY);
    shards = get(Flags.SHARDS);
    window = get(FilterFlags.WINDOW);
    windowUrls = isSet(FilterFlags.WINDOW_URLS) ? get(FilterFlags.WINDOW_URLS) : 0;
    generations = isSet(FilterFlags.GENERATIONS) ? get(FilterFlags.GENERATIONS) : 0;
    rate = isSet(FilterFlags.RATE) ? get(FilterFlags.RATE) : 0;
    time =
        isSet(FilterFlags.TIME)
            ? get(FilterFlags.TIME)
            : mode == Mode.KAFKA ? GenerationTime.Clock.EVENT : GenerationTime.Clock.PROCESSING;
    maxOutOfOrderness = get(FilterFlags.MAX_OUT_OF_ORDERNESS);

    if (isSet(Flags.HASH_SEED)) {
      defaultSeed = false;
      hashSeed = get(Flags.HASH_SEED);
    } else {
      String fromEnv = env.get(Flags.SEED_ENV);
      defaultSeed = fromEnv == null || fromEnv.isEmpty();
      hashSeed = defaultSeed ? DEFAULT_SEED : Flags.seed(Flags.SEED_ENV, fromEnv);
    }

    format = get(Flags.FORMAT);
    key = get(Flags.KEY);
    stripWww = get(Flags.STRIP_WWW);
    maxUrlBytes = get(Flags.MAX_URL_BYTES);
    allowCanonicalizationChange = get(Flags.ALLOW_CANONICALIZATION_CHANGE);

    parallelism = isSet(Flags.PARALLELISM) ? get(Flags.PARALLELISM) : 0;
    stateBackend = get(Flags.STATE_BACKEND);
    checkpointDir = get(Flags.CHECKPOINT_DIR);
    if (isSet(Flags.CHECKPOINT_INTERVAL)) {
      checkpointInterval = get(Flags.CHECKPOINT_INTERVAL);
    } else {
      checkpointInterval =
          mode == Mode.KAFKA || checkpointDir != null ? Flags.defaultCheckpointInterval() : null;
    }
    cacheMemoryBytes = get(Flags.CACHE_MEMORY);
    materializeEvery =
        isSet(Flags.MATERIALIZE_EVERY)
            ? get(Flags.MATERIALIZE_EVERY)
            : stateBackend == StateBackend.ROCKSDB ? Flags.DEFAULT_MATERIALIZE_EVERY : 1;
    jobName = get(Flags.JOB_NAME);

    // before FilterSpec and DecodeConfig check their own values, whose messages would give
    // per-shard numbers where the user typed totals
    CrossFlagChecks.check(this, v);
    filterSpec = buildFilterSpec();
    decodeConfig = buildDecodeConfig();
    stripParams = decodeConfig.stripParams();
  }

  /**
   * The parsed value of {@code option}: as given, else its parsed default (null if it has none).
   */
  @SuppressWarnings("unchecked")
  public <T> T get(Option<T> option) {
    return (T) values.get(option);
  }

  /** Whether the flag was given (on the command line or in the config file). */
  public boolean isSet(Option<?> option) {
    return given.contains(option);
  }

  /**
   * The config file line ({@code FILE:LINE}) {@code option} came from; null if not from the file.
   */
  String origin(Option<?> option) {
    return origin.get(option);
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
      return FilterSpec.scalable(
          fpr, Math.max(1, capacity / shards), growth, tightening, maxMemoryBytes / shards);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(Flags.flagMessage(e));
    }
  }

  private DecodeConfig buildDecodeConfig() {
    try {
      return DecodeConfig.builder()
          .format(format)
          .keyMode(key)
          .stripParams(get(Flags.STRIP_PARAMS))
          .stripWww(stripWww)
          .sortParams(get(Flags.SORT_PARAMS))
          .dropEmptyParams(get(Flags.DROP_EMPTY_PARAMS))
          .collapseSlashes(get(Flags.COLLAPSE_SLASHES))
          .maxUrlBytes(maxUrlBytes)
          .shards(shards)
          .hashSeed(hashSeed)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(Flags.flagMessage(e));
    }
  }

  // ---- derived settings ----

  /**
   * The filter each shard gets: the totals divided by the shard count; built and validated once.
   */
  public FilterSpec perShardSpec() {
    return filterSpec;
  }

  /** Aged time windows: how the operator reads time; null for the other kinds and count windows. */
  public GenerationTime generationTime() {
    if (filter != FilterSpec.Kind.AGED || window == null) {
      return null;
    }
    return new GenerationTime(
        time, time == GenerationTime.Clock.EVENT ? maxOutOfOrderness.toMillis() : 0);
  }

  /**
   * The decoder's settings (built once); carries the secret seed inside the operator, not in the
   * job config.
   */
  public DecodeConfig decodeConfig() {
    return decodeConfig;
  }

  /** Pages in each subtask's write-back cache, or {@link DedupOperator#AUTO_CACHE}. */
  public int cachePages() {
    if (cacheMemoryBytes == Flags.AUTO_CACHE_MEMORY) {
      return DedupOperator.AUTO_CACHE;
    }
    return (int) Math.min(Integer.MAX_VALUE, cacheMemoryBytes / 4096);
  }

  /** The dedup operator's settings: filter, cache, time, checkpoints, and flags for refusals. */
  public DedupSettings dedupSettings() {
    return new DedupSettings(
        filterSpec,
        decodeConfig.urlMapping(),
        cachePages(),
        allowCanonicalizationChange,
        generationTime(),
        materializeEvery,
        Flags.parameterFlags());
  }

  /**
   * The graph's settings ({@link DedupPipeline#build}). Embedded mode with event time reads the
   * time from each record's JSON field {@code ts}; Kafka mode from the Kafka record timestamp.
   */
  public DedupPipeline.Settings pipeline() {
    GenerationTime t = generationTime();
    return new DedupPipeline.Settings(
        decodeConfig, mode == Mode.EMBEDDED && t != null && t.event(), dedupSettings());
  }

  /** So that savepoints can be rescaled up to the shard count (and at least Flink's usual 128). */
  public int maxParallelism() {
    return Math.max(shards, 128);
  }

  /** Secret; only for building the operators. */
  long hashSeed() {
    return hashSeed;
  }

  @Override
  public String toString() {
    // No seed, no Kafka property values.
    return "JobConfig{mode="
        + mode
        + ", filter="
        + filter
        + ", shards="
        + shards
        + ", inputTopics="
        + inputTopics
        + ", outputTopic="
        + outputTopic
        + ", dlqTopic="
        + dlqTopic
        + ", input="
        + input
        + ", output="
        + output
        + ", stateBackend="
        + stateBackend
        + ", checkpointInterval="
        + checkpointInterval
        + ", defaultSeed="
        + defaultSeed
        + "}";
  }
}
