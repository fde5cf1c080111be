package io.urldedup.job;

import io.urldedup.operators.DecodeConfig;
import io.urldedup.state.FilterSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;

/**
 * The job's settings from flags, an optional {@code --config FILE} (same keys, {@code key=value},
 * flags win) and {@code URLDEDUP_HASH_SEED}. Every error names the flag and the accepted values.
 *
 * <p>Filter sizes are given for the whole job (all shards) and divided here, so that changing
 * {@code --shards} does not silently multiply memory.
 */
public final class JobConfig {

  public enum Mode { EMBEDDED, KAFKA }

  public enum StartingOffsets { EARLIEST, LATEST, COMMITTED }

  public enum StateBackend { HASHMAP, ROCKSDB }

  public enum Format { TEXT, JSON }

  public enum KeyMode { HOST, DOMAIN, NONE }

  /** The seed used when none is given; public, so a warning says to set one. */
  static final long DEFAULT_SEED = 0x75726c6465647570L;

  static final String SEED_ENV = "URLDEDUP_HASH_SEED";

  /** The value of {@code --dlq-topic} / {@code --dlq} that only counts dead letters. */
  public static final String NONE = "none";

  private static final String IO = "Embedded mode (no Kafka flags): local files or stdin/stdout";
  private static final String KAFKA = "Kafka mode (any Kafka flag selects it)";
  private static final String FILTER = "Filter (sizes are totals over all shards)";
  private static final String DECODE = "Decoding and canonicalization";
  private static final String RUNTIME = "Runtime";

  static final List<Flag> FLAGS = List.of(
      new Flag(IO, "input", "PATH|-", null,
          "Input file, one record per line ('-' = stdin). Required in embedded mode."),
      new Flag(IO, "output", "PATH|-", "-", "Where unseen URLs are written ('-' = stdout)."),
      new Flag(IO, "dlq", "PATH|-|none", NONE,
          "Dead letters, one a line: reason<TAB>detail<TAB>origin<TAB>escaped original value."
              + " 'none' only counts them (see the summary)."),
      new Flag(KAFKA, "bootstrap-servers", "HOST:PORT[,...]", null, "Kafka bootstrap servers."),
      new Flag(KAFKA, "input-topic", "TOPIC[,...]", null, "Topic(s) of discovered URLs."),
      new Flag(KAFKA, "output-topic", "TOPIC", null, "Topic the unseen URLs go to (exactly once)."),
      new Flag(KAFKA, "dlq-topic", "TOPIC|none", null,
          "Dead-letter topic (exactly once). Required: 'none' must be explicit and only counts"
              + " dead letters."),
      new Flag(KAFKA, "group-id", "ID", "urldedup", "Consumer group (offsets are committed at checkpoints)."),
      new Flag(KAFKA, "kafka-properties", "FILE", null,
          "Java properties applied to source, sink and DLQ clients (security.protocol, sasl.*, ssl.*)."
              + " Values are never logged."),
      new Flag(KAFKA, "starting-offsets", "earliest|latest|committed", "committed",
          "Where a fresh job starts; 'committed' falls back to earliest. A restore from a"
              + " checkpoint or savepoint always resumes at its offsets."),
      new Flag(KAFKA, "transactional-id-prefix", "PREFIX", "urldedup",
          "Prefix of the sinks' Kafka transactional ids (-out, -dlq appended); unique per job."),
      new Flag(KAFKA, "transaction-timeout", "DURATION", "10min",
          "transaction.timeout.ms of the sinks; must exceed the checkpoint interval and be at most"
              + " the broker's transaction.max.timeout.ms (default 15min)."),
      new Flag(FILTER, "filter", "stable|scalable", "scalable",
          "stable: fixed memory, forgets old URLs (they come back for recrawl);"
              + " scalable: never re-emits a URL, memory grows with distinct URLs."),
      new Flag(FILTER, "fpr", "RATE", "0.01",
          "Target false-positive rate, 1e-9 <= RATE < 0.5 (a false positive is a page never"
              + " crawled)."),
      new Flag(FILTER, "memory", "SIZE", "128m", "stable: total filter memory, e.g. 64m, 1g."),
      new Flag(FILTER, "cell-bits", "1..4", "2", "stable: bits per cell d (Max = 2^d - 1)."),
      new Flag(FILTER, "capacity", "N", "1000000",
          "scalable: total URLs the first slices hold at their error."),
      new Flag(FILTER, "growth", "2..16", "2", "scalable: each new slice is this many times larger."),
      new Flag(FILTER, "tightening", "RATIO", "0.5",
          "scalable: each new slice's error is this times the previous, 0 < RATIO < 1."),
      new Flag(FILTER, "max-memory", "SIZE", "1g", "scalable: hard cap on total filter memory."),
      new Flag(FILTER, "shards", "N", "128",
          "Filter shards (keys); fixed for the life of the state, independent of parallelism."),
      new Flag(FILTER, "hash-seed", "INT64", null,
          "Secret hash seed (decimal or 0x hex); or env " + SEED_ENV + ". Without it a public"
              + " default is used, with a warning. Never logged."),
      new Flag(DECODE, "format", "text|json", "text",
          "text: the record value is the URL; json: an object with a \"url\" string"
              + " (and optional \"force\": true to re-emit)."),
      new Flag(DECODE, "key", "host|domain|none", "host",
          "Output record key: the host, the registrable domain, or none."),
      new Flag(DECODE, "strip-params", "[LIST]", "none",
          "Remove these query and path parameters (comma-separated names, case-insensitive)."
              + " Without a list, or 'default': " + String.join(", ", DecodeConfig.DEFAULT_STRIP_PARAMS)
              + ". 'none': keep all."),
      new Flag(DECODE, "strip-www", null, "off", "Drop a leading 'www.' from hosts."),
      new Flag(DECODE, "max-url-bytes", "N", "8192", "Longer canonical URLs are dead letters (too_long)."),
      new Flag(DECODE, "allow-canonicalization-change", null, "off",
          "Restore state written with other canonicalization settings (logged as a warning; URLs seen"
              + " before may be emitted once more) instead of refusing it."),
      new Flag(RUNTIME, "parallelism", "N", "cluster default (embedded: CPU cores, at most 4)",
          "Operator parallelism."),
      new Flag(RUNTIME, "state-backend", "hashmap|rocksdb", "hashmap",
          "hashmap: state on the heap; rocksdb: on local disk, incremental checkpoints."),
      new Flag(RUNTIME, "checkpoint-dir", "URI", null,
          "Checkpoint storage, e.g. file:///var/urldedup/ckpt or s3://...; without it the"
              + " JobManager's memory (not durable)."),
      new Flag(RUNTIME, "checkpoint-interval", "DURATION", "10s (embedded: off unless this or --checkpoint-dir is given)",
          "Exactly-once output becomes visible at checkpoints, so this is the output latency."),
      new Flag(RUNTIME, "cache-memory", "SIZE", "8m",
          "Write-back cache of filter pages per subtask (4 KiB pages), flushed at checkpoints."),
      new Flag(RUNTIME, "job-name", "NAME", "urldedup", "Flink job name."),
      new Flag(RUNTIME, "config", "FILE", null,
          "key=value lines with the same keys as the flags (no --); flags override the file."));

  private static final Map<String, Flag> BY_NAME = new LinkedHashMap<>();

  static {
    for (Flag f : FLAGS) {
      BY_NAME.put(f.name(), f);
    }
  }

  private static final Set<String> KAFKA_FLAGS = Set.of(
      "bootstrap-servers", "input-topic", "output-topic", "dlq-topic", "group-id",
      "kafka-properties", "starting-offsets", "transactional-id-prefix");

  // ---- the parsed settings ----
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
  public final int shards;
  /** Secret: never log it, never put it into Flink's configuration or global job parameters. */
  final long hashSeed;
  public final boolean defaultSeed;
  public final Format format;
  public final KeyMode key;
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
  public final String jobName;

  /** Session-id parameters stripped by a bare {@code --strip-params} (as crawlers commonly do). */
  public static final List<String> DEFAULT_STRIP_PARAMS = DecodeConfig.DEFAULT_STRIP_PARAMS;

  /** The names of all flags (without {@code --}), for the deployment manifest test. */
  public static Set<String> flagNames() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(BY_NAME.keySet()));
  }

  /** Parses flags (after the command word) with the process environment. */
  public static JobConfig parse(String[] args) {
    return parse(args, System.getenv());
  }

  public static JobConfig parse(String[] args, Map<String, String> env) {
    return parse(args, env, true);
  }

  /** For {@code plan}: the sizing flags matter, the input and output flags are not required. */
  public static JobConfig parseForPlan(String[] args, Map<String, String> env) {
    return parse(args, env, false);
  }

  private static JobConfig parse(String[] args, Map<String, String> env, boolean requireIo) {
    Map<String, String> cli = parseArgs(args);
    Map<String, String> values = new LinkedHashMap<>();
    String configFile = cli.get("config");
    if (configFile != null) {
      values.putAll(readConfigFile(configFile));
    }
    values.putAll(cli);
    values.remove("config");
    return new JobConfig(values, env, requireIo);
  }

  private JobConfig(Map<String, String> v, Map<String, String> env, boolean requireIo) {
    boolean kafka = false;
    for (String k : KAFKA_FLAGS) {
      kafka |= v.containsKey(k);
    }
    mode = kafka ? Mode.KAFKA : Mode.EMBEDDED;

    input = v.get("input");
    output = v.getOrDefault("output", "-");
    dlq = v.getOrDefault("dlq", NONE);
    bootstrapServers = v.get("bootstrap-servers");
    String topics = v.get("input-topic");
    inputTopics = topics == null ? List.of() : splitList("input-topic", topics);
    outputTopic = v.get("output-topic");
    dlqTopic = v.get("dlq-topic");
    groupId = nonEmpty("group-id", v.getOrDefault("group-id", "urldedup"));
    String props = v.get("kafka-properties");
    kafkaPropertiesFile = props == null ? null : Path.of(props);
    startingOffsets = choice("starting-offsets", v.getOrDefault("starting-offsets", "committed"),
        StartingOffsets.class);
    transactionalIdPrefix =
        nonEmpty("transactional-id-prefix", v.getOrDefault("transactional-id-prefix", "urldedup"));
    transactionTimeout = duration("transaction-timeout", v.getOrDefault("transaction-timeout", "10min"));

    filter = choice("filter", v.getOrDefault("filter", "scalable"), FilterSpec.Kind.class);
    fpr = fpr(v.getOrDefault("fpr", "0.01"));
    memoryBytes = size("memory", v.getOrDefault("memory", "128m"));
    cellBits = intRange("cell-bits", v.getOrDefault("cell-bits", "2"), 1, 4);
    capacity = longMin("capacity", v.getOrDefault("capacity", "1000000"), 1);
    growth = intRange("growth", v.getOrDefault("growth", "2"), 2, 16);
    tightening = openUnit("tightening", v.getOrDefault("tightening", "0.5"));
    maxMemoryBytes = size("max-memory", v.getOrDefault("max-memory", "1g"));
    shards = intRange("shards", v.getOrDefault("shards", "128"), 1, DecodeConfig.MAX_SHARDS);

    String seed = v.containsKey("hash-seed") ? v.get("hash-seed") : env.get(SEED_ENV);
    defaultSeed = seed == null || seed.isEmpty();
    hashSeed = defaultSeed ? DEFAULT_SEED : seed(seed, v.containsKey("hash-seed"));

    format = choice("format", v.getOrDefault("format", "text"), Format.class);
    key = choice("key", v.getOrDefault("key", "host"), KeyMode.class);
    if (!v.containsKey("strip-params")) {
      stripParams = List.of();
    } else {
      String list = v.get("strip-params");
      if (list.isEmpty() || list.equalsIgnoreCase("default")) {
        stripParams = DEFAULT_STRIP_PARAMS;
      } else if (list.equalsIgnoreCase(NONE)) {
        stripParams = List.of();
      } else {
        stripParams = splitList("strip-params", list);
      }
    }
    stripWww = bool("strip-www", v.getOrDefault("strip-www", "false"));
    maxUrlBytes = intRange("max-url-bytes", v.getOrDefault("max-url-bytes", "8192"),
        DecodeConfig.MIN_MAX_URL_BYTES, DecodeConfig.MAX_MAX_URL_BYTES);
    allowCanonicalizationChange =
        bool("allow-canonicalization-change", v.getOrDefault("allow-canonicalization-change", "false"));

    parallelism = v.containsKey("parallelism") ? intRange("parallelism", v.get("parallelism"), 1, 1 << 15) : 0;
    stateBackend = choice("state-backend", v.getOrDefault("state-backend", "hashmap"), StateBackend.class);
    checkpointDir = v.containsKey("checkpoint-dir") ? nonEmpty("checkpoint-dir", v.get("checkpoint-dir")) : null;
    if (v.containsKey("checkpoint-interval")) {
      checkpointInterval = duration("checkpoint-interval", v.get("checkpoint-interval"));
    } else {
      checkpointInterval = mode == Mode.KAFKA || checkpointDir != null ? Duration.ofSeconds(10) : null;
    }
    cacheMemoryBytes = size("cache-memory", v.getOrDefault("cache-memory", "8m"));
    jobName = nonEmpty("job-name", v.getOrDefault("job-name", "urldedup"));

    validate(v, requireIo);
    perShardSpec();
    decodeConfig();
  }

  private void validate(Map<String, String> v, boolean requireIo) {
    if (mode == Mode.KAFKA && requireIo) {
      for (String required : List.of("bootstrap-servers", "input-topic", "output-topic")) {
        if (v.get(required) == null || v.get(required).isEmpty()) {
          throw new ConfigException("--" + required + " is required in Kafka mode");
        }
      }
      if (dlqTopic == null || dlqTopic.isEmpty()) {
        throw new ConfigException("--dlq-topic is required in Kafka mode: a topic for rejected"
            + " records, or 'none' to only count them (they are then lost)");
      }
      for (String embeddedOnly : List.of("input", "output", "dlq")) {
        if (v.containsKey(embeddedOnly)) {
          throw new ConfigException("--" + embeddedOnly + " is for the embedded mode; in Kafka mode use --"
              + embeddedOnly + "-topic");
        }
      }
      if (transactionTimeout.compareTo(checkpointInterval) <= 0) {
        throw new ConfigException("--transaction-timeout (" + TimeUtils.formatWithHighestUnit(transactionTimeout)
            + ") must exceed --checkpoint-interval (" + TimeUtils.formatWithHighestUnit(checkpointInterval)
            + "): a transaction stays open for one checkpoint interval");
      }
    } else if (requireIo && (input == null || input.isEmpty())) {
      throw new ConfigException("--input PATH|- is required in embedded mode (or give the Kafka flags"
          + " --bootstrap-servers, --input-topic, --output-topic, --dlq-topic)");
    }
    if (checkpointInterval != null && checkpointInterval.toMillis() < 10) {
      throw new ConfigException("--checkpoint-interval: at least 10ms, e.g. 500ms, 10s, 1min");
    }
    if (transactionTimeout.toMillis() < 1000 || transactionTimeout.toMillis() > Integer.MAX_VALUE) {
      throw new ConfigException("--transaction-timeout: between 1s and 24d, e.g. 10min");
    }
    if (filter == FilterSpec.Kind.STABLE && memoryBytes / shards < 4096) {
      throw new ConfigException("--memory " + v.getOrDefault("memory", "128m") + " over --shards "
          + shards + " leaves " + memoryBytes / shards + " bytes per shard; accepted: at least 4 KiB"
          + " per shard (--memory >= " + (4096L * shards) + " bytes)");
    }
    if (filter == FilterSpec.Kind.SCALABLE && maxMemoryBytes / shards < 4096) {
      throw new ConfigException("--max-memory " + v.getOrDefault("max-memory", "1g") + " over --shards "
          + shards + " leaves " + maxMemoryBytes / shards + " bytes per shard; accepted: at least 4 KiB"
          + " per shard (--max-memory >= " + (4096L * shards) + " bytes)");
    }
    if (filter == FilterSpec.Kind.SCALABLE && capacity < shards) {
      throw new ConfigException("--capacity " + capacity + " is below --shards " + shards
          + "; accepted: at least one URL per shard");
    }
    if (cacheMemoryBytes < 4096) {
      throw new ConfigException("--cache-memory: at least 4k (one page), e.g. 8m");
    }
  }

  // ---- derived settings ----

  /** The filter each shard gets: the totals divided by the shard count. */
  public FilterSpec perShardSpec() {
    try {
      if (filter == FilterSpec.Kind.STABLE) {
        return FilterSpec.stable(fpr, memoryBytes / shards, cellBits);
      }
      return FilterSpec.scalable(fpr, Math.max(1, capacity / shards), growth, tightening,
          maxMemoryBytes / shards);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** The decoder's settings; carries the secret seed inside the operator, not in the job config. */
  public DecodeConfig decodeConfig() {
    try {
      return DecodeConfig.builder()
          .format(format == Format.JSON ? DecodeConfig.Format.JSON : DecodeConfig.Format.TEXT)
          .keyMode(DecodeConfig.KeyMode.valueOf(key.name()))
          .stripParams(stripParams)
          .stripWww(stripWww)
          .maxUrlBytes(maxUrlBytes)
          .shards(shards)
          .hashSeed(hashSeed)
          .build();
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** Pages in each subtask's write-back cache. */
  public int cachePages() {
    return (int) Math.min(Integer.MAX_VALUE, cacheMemoryBytes / 4096);
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
      Flag f = flag(name, "--" + name);
      if (value == null) {
        if (f.isSwitch()) {
          value = "true";
        } else if (f.valueOptional()) {
          value = i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : "";
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

  static Map<String, String> readConfigFile(String file) {
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
      String where = file + ":" + (n + 1);
      int eq = line.indexOf('=');
      String name = (eq < 0 ? line : line.substring(0, eq)).strip();
      Flag f = flag(name, where + ": key '" + name + "'");
      if (name.equals("config")) {
        throw new ConfigException(where + ": 'config' cannot be nested");
      }
      String value = eq < 0 ? null : line.substring(eq + 1).strip();
      if (value == null) {
        if (f.isSwitch()) {
          value = "true";
        } else if (f.valueOptional()) {
          value = "";
        } else {
          throw new ConfigException(where + ": " + name + " needs a value: " + name + "=" + f.arg());
        }
      }
      out.put(name, value);
    }
    return out;
  }

  private static Flag flag(String name, String where) {
    Flag f = BY_NAME.get(name);
    if (f == null) {
      throw new ConfigException(where + " is not a flag; accepted: " + String.join(", ", BY_NAME.keySet())
          + " (see --help)");
    }
    return f;
  }

  private static <E extends Enum<E>> E choice(String flag, String value, Class<E> type) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(value.strip())) {
        return e;
      }
    }
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      names.add(e.name().toLowerCase(Locale.ROOT));
    }
    throw new ConfigException("--" + flag + ": '" + value + "' is not accepted; accepted: "
        + String.join(", ", names));
  }

  private static double openUnit(String flag, String value) {
    double d;
    try {
      d = Double.parseDouble(value.strip());
    } catch (NumberFormatException e) {
      d = Double.NaN;
    }
    if (!(d > 0 && d < 1)) {
      throw new ConfigException("--" + flag + ": '" + value + "' is not accepted; accepted: a number"
          + " strictly between 0 and 1, e.g. 0.01");
    }
    return d;
  }

  private static double fpr(String value) {
    double d;
    try {
      d = Double.parseDouble(value.strip());
    } catch (NumberFormatException e) {
      d = Double.NaN;
    }
    if (!(d >= FilterSpec.MIN_FPR && d < FilterSpec.MAX_FPR)) {
      throw new ConfigException("--fpr: '" + value + "' is not accepted; accepted: a rate from "
          + FilterSpec.MIN_FPR + " up to (not including) " + FilterSpec.MAX_FPR + ", e.g. 0.01 or 1e-6");
    }
    return d;
  }

  private static int intRange(String flag, String value, int min, int max) {
    long n = parseLong(flag, value, "an integer from " + min + " to " + max);
    if (n < min || n > max) {
      throw new ConfigException("--" + flag + ": " + value + " is out of range; accepted: an integer from "
          + min + " to " + max);
    }
    return (int) n;
  }

  private static long longMin(String flag, String value, long min) {
    long n = parseLong(flag, value, "an integer >= " + min);
    if (n < min) {
      throw new ConfigException("--" + flag + ": " + value + " is out of range; accepted: an integer >= " + min);
    }
    return n;
  }

  private static long parseLong(String flag, String value, String accepted) {
    try {
      return Long.parseLong(value.strip().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new ConfigException("--" + flag + ": '" + value + "' is not accepted; accepted: " + accepted);
    }
  }

  private static long size(String flag, String value) {
    long bytes;
    try {
      bytes = MemorySize.parseBytes(value.strip());
    } catch (IllegalArgumentException e) {
      bytes = -1;
    }
    if (bytes <= 0) {
      throw new ConfigException("--" + flag + ": '" + value + "' is not accepted; accepted: a positive"
          + " size with an optional unit b, k, m, g, t (e.g. 64m, 1g)");
    }
    return bytes;
  }

  private static Duration duration(String flag, String value) {
    Duration d;
    try {
      d = TimeUtils.parseDuration(value.strip());
    } catch (IllegalArgumentException | NullPointerException e) {
      d = null;
    }
    if (d == null || d.isNegative() || d.isZero()) {
      throw new ConfigException("--" + flag + ": '" + value + "' is not accepted; accepted: a positive"
          + " duration with a unit ms, s, min, h (e.g. 500ms, 10s, 10min)");
    }
    return d;
  }

  private static boolean bool(String flag, String value) {
    switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "true": case "yes": case "on": case "1":
        return true;
      case "false": case "no": case "off": case "0":
        return false;
      default:
        throw new ConfigException("--" + flag + ": '" + value + "' is not accepted; accepted: true, false");
    }
  }

  private static String nonEmpty(String flag, String value) {
    if (value == null || value.strip().isEmpty()) {
      throw new ConfigException("--" + flag + " needs a non-empty value");
    }
    return value.strip();
  }

  private static List<String> splitList(String flag, String value) {
    List<String> out = new ArrayList<>();
    for (String s : value.split(",")) {
      if (!s.strip().isEmpty()) {
        out.add(s.strip());
      }
    }
    if (out.isEmpty()) {
      throw new ConfigException("--" + flag + ": '" + value + "' is not accepted; accepted: a comma-separated list");
    }
    return List.copyOf(out);
  }

  /** The seed's value is secret: the message never repeats it. */
  private static long seed(String value, boolean fromFlag) {
    String s = value.strip().replace("_", "");
    try {
      if (s.startsWith("0x") || s.startsWith("0X")) {
        return Long.parseUnsignedLong(s.substring(2), 16);
      }
      return Long.parseLong(s);
    } catch (NumberFormatException e) {
      throw new ConfigException((fromFlag ? "--hash-seed" : SEED_ENV) + ": the value is not accepted;"
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
        .append("  plan     print the filter sizing for the given flags and exit\n")
        .append("  version  print the version\n")
        .append("  help     print this text\n");
    String section = null;
    for (Flag f : FLAGS) {
      if (!f.section().equals(section)) {
        section = f.section();
        b.append('\n').append(section).append(":\n");
      }
      String head = "  --" + f.name() + (f.arg() == null ? "" : " " + f.arg());
      b.append(head).append('\n');
      for (String line : wrap(f.help(), 70)) {
        b.append("      ").append(line).append('\n');
      }
      if (f.defaultText() != null) {
        b.append("      default: ").append(f.defaultText()).append('\n');
      }
    }
    b.append("\nSIZE: 64m, 1g (b, k, m, g, t); DURATION: 500ms, 10s, 10min, 1h.\n")
        .append("Invalid values exit with code 2 and a message naming the flag.\n");
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
