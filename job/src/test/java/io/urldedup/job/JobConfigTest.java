package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DecodeConfig;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Parameter;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;
import io.urldedup.state.plan.StablePlan;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobConfigTest {

  private static final Map<String, String> NO_ENV = Map.of();

  private static JobConfig parse(String... args) {
    return JobConfig.parse(args, NO_ENV);
  }

  private static String error(String... args) {
    return assertThrows(ConfigException.class, () -> parse(args)).getMessage();
  }

  private static final String[] KAFKA = {
    "--bootstrap-servers",
    "localhost:9092",
    "--input-topic",
    "in",
    "--output-topic",
    "out",
    "--dlq-topic",
    "dlq"
  };

  private static String[] kafka(String... more) {
    List<String> a = new ArrayList<>(List.of(KAFKA));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  @Test
  void defaultsInEmbeddedMode() {
    JobConfig c = parse("--input", "urls.txt");
    assertEquals(JobConfig.Mode.EMBEDDED, c.mode);
    assertEquals("urls.txt", c.input);
    assertEquals("-", c.output);
    assertEquals(Flags.NONE, c.dlq);
    assertEquals(FilterSpec.Kind.SCALABLE, c.filter);
    assertEquals(0.01, c.fpr);
    assertEquals(128, c.shards);
    assertEquals(128, c.maxParallelism());
    assertNull(c.checkpointInterval);
    assertTrue(c.defaultSeed);
    assertEquals(JobConfig.DEFAULT_SEED, c.hashSeed());
    assertEquals(List.of(), c.stripParams);
    assertFalse(c.allowCanonicalizationChange);
    assertEquals(Flags.AUTO_CACHE_MEMORY, c.cacheMemoryBytes);
    assertEquals(io.urldedup.operators.DedupOperator.AUTO_CACHE, c.cachePages());
    ScalableSpec s = (ScalableSpec) c.perShardSpec();
    assertEquals(1_000_000 / 128, s.capacity());
    assertEquals((1L << 30) / 128, s.maxMemoryBytes());
  }

  /** Every parameter the library's messages can name is said as a flag, never as a Java name. */
  @Test
  void everyLibraryParameterHasAFlag() {
    assertEquals(EnumSet.allOf(Parameter.class), Flags.parameterFlags().keySet());
    // a limit only the spec knows: the aged filter's size for its window, rate and false-positive
    // rate
    String m =
        assertThrows(
                ConfigException.class,
                () ->
                    JobConfig.parseForPlan(
                        new String[] {
                          "--filter",
                          "aged",
                          "--window",
                          "3650d",
                          "--rate",
                          "1e10",
                          "--fpr",
                          "1e-9",
                          "--shards",
                          "1"
                        },
                        NO_ENV))
            .getMessage();
    assertTrue(m.contains("lower --rate, raise --fpr or add --shards") && !m.contains("{"), m);
  }

  @Test
  void everyFlagIsParsed() {
    JobConfig c =
        parse(
            kafka(
                "--group-id",
                "g1",
                "--kafka-properties",
                "/etc/kafka.properties",
                "--starting-offsets",
                "earliest",
                "--transactional-id-prefix",
                "tx",
                "--transaction-timeout",
                "5min",
                "--filter",
                "stable",
                "--fpr",
                "0.001",
                "--memory",
                "256m",
                "--cell-bits",
                "3",
                "--shards",
                "64",
                "--hash-seed",
                "0xff",
                "--format",
                "json",
                "--key",
                "domain",
                "--strip-params",
                "sid,utm_*",
                "--strip-www",
                "--sort-params",
                "--drop-empty-params",
                "--collapse-slashes",
                "--max-url-bytes",
                "4096",
                "--parallelism",
                "3",
                "--state-backend",
                "rocksdb",
                "--checkpoint-dir",
                "/tmp/ckpt",
                "--checkpoint-interval",
                "30s",
                "--cache-memory",
                "16m",
                "--materialize-every",
                "8",
                "--job-name",
                "crawl-dedup",
                "--allow-canonicalization-change",
                "--verbose"));
    assertEquals(JobConfig.Mode.KAFKA, c.mode);
    assertEquals("localhost:9092", c.bootstrapServers);
    assertEquals(List.of("in"), c.inputTopics);
    assertEquals("out", c.outputTopic);
    assertEquals("dlq", c.dlqTopic);
    assertEquals("g1", c.groupId);
    assertEquals(Path.of("/etc/kafka.properties"), c.kafkaPropertiesFile);
    assertEquals(JobConfig.StartingOffsets.EARLIEST, c.startingOffsets);
    assertEquals("tx", c.transactionalIdPrefix);
    assertEquals(Duration.ofMinutes(5), c.transactionTimeout);
    assertEquals(FilterSpec.Kind.STABLE, c.filter);
    assertEquals(0.001, c.fpr);
    assertEquals(256L << 20, c.memoryBytes);
    assertEquals(3, c.cellBits);
    assertEquals(64, c.shards);
    assertEquals(128, c.maxParallelism());
    assertEquals(255, c.hashSeed());
    assertFalse(c.defaultSeed);
    assertEquals(DecodeConfig.Format.JSON, c.format);
    assertEquals(DecodeConfig.KeyMode.DOMAIN, c.key);
    assertEquals(List.of("sid", "utm_*"), c.stripParams);
    assertTrue(c.stripWww);
    assertEquals(
        "sort-params,drop-empty-params,strip-params=sid|utm_*,strip-www,collapse-slashes",
        c.decodeConfig().rules().describe());
    assertTrue(c.allowCanonicalizationChange);
    assertEquals(4096, c.maxUrlBytes);
    assertEquals(3, c.parallelism);
    assertEquals(JobConfig.StateBackend.ROCKSDB, c.stateBackend);
    assertEquals("/tmp/ckpt", c.checkpointDir);
    assertEquals(Duration.ofSeconds(30), c.checkpointInterval);
    assertEquals(16L << 20, c.cacheMemoryBytes);
    assertEquals(8, c.materializeEvery);
    assertEquals(8, c.dedupSettings().materializeEvery());
    // a restore refusal in the cluster names the flags, as the job's own errors do
    assertEquals("--fpr", c.dedupSettings().parameterNames().get(Parameter.FPR));
    assertEquals("--filter", c.dedupSettings().parameterNames().get(Parameter.KIND));
    assertEquals("crawl-dedup", c.jobName);
    assertTrue(c.get(Flags.VERBOSE));
    StableSpec s = (StableSpec) c.perShardSpec();
    assertEquals((256L << 20) / 64, s.memoryBytes());
    assertEquals(3, s.cellBits());
    // the scalable filter's own flags (another kind's flags are refused:
    // otherFiltersFlagsAreRefused)
    JobConfig sc =
        parse(
            "--input",
            "x",
            "--filter",
            "scalable",
            "--capacity",
            "5000",
            "--growth",
            "4",
            "--tightening",
            "0.8",
            "--max-memory",
            "2g",
            "--shards",
            "64");
    assertEquals(5000, sc.capacity);
    assertEquals(4, sc.growth);
    assertEquals(0.8, sc.tightening);
    assertEquals(2L << 30, sc.maxMemoryBytes);

    // every flag of the table was exercised above or in embedded mode
    Set<String> covered =
        new HashSet<>(
            List.of(
                "bootstrap-servers",
                "input-topic",
                "output-topic",
                "dlq-topic",
                "group-id",
                "kafka-properties",
                "starting-offsets",
                "transactional-id-prefix",
                "transaction-timeout",
                "filter",
                "fpr",
                "memory",
                "cell-bits",
                "capacity",
                "growth",
                "tightening",
                "max-memory",
                "shards",
                "hash-seed",
                "format",
                "key",
                "strip-params",
                "strip-www",
                "sort-params",
                "drop-empty-params",
                "collapse-slashes",
                "max-url-bytes",
                "allow-canonicalization-change",
                "parallelism",
                "state-backend",
                "checkpoint-dir",
                "checkpoint-interval",
                "cache-memory",
                "materialize-every",
                "job-name",
                "verbose",
                "input",
                "output",
                "dlq",
                "config",
                "state",
                "json",
                "window",
                "window-urls",
                "generations",
                "rate",
                "time",
                "max-out-of-orderness")); // agedFlags
    assertEquals(covered, Flags.names());
  }

  /** The aged kind's flags: totals become per-shard values; misuse exits naming the flag. */
  @Test
  void agedFlags() {
    JobConfig t =
        parse(
            "--input",
            "x",
            "--filter",
            "aged",
            "--window",
            "7d",
            "--rate",
            "1280",
            "--generations",
            "20",
            "--time",
            "processing",
            "--shards",
            "128");
    AgedSpec s = (AgedSpec) t.perShardSpec();
    assertEquals(FilterSpec.Kind.AGED, s.kind());
    assertEquals(7L * 86_400_000, s.windowMillis());
    assertEquals(10.0, s.rate());
    assertEquals(20, s.generations());
    assertFalse(t.generationTime().event());
    JobConfig e =
        JobConfig.parse(
            new String[] {
              "--bootstrap-servers",
              "b:9092",
              "--input-topic",
              "i",
              "--output-topic",
              "o",
              "--dlq-topic",
              "none",
              "--filter",
              "aged",
              "--window",
              "1h",
              "--rate",
              "10",
              "--max-out-of-orderness",
              "30s"
            },
            NO_ENV);
    assertTrue(e.generationTime().event(), "Kafka mode defaults to event time");
    assertEquals(30_000, e.generationTime().maxOutOfOrdernessMillis());
    JobConfig c =
        parse("--input", "x", "--filter", "aged", "--window-urls", "1000000", "--shards", "16");
    assertEquals(62_500, ((AgedSpec) c.perShardSpec()).windowUrls());
    assertNull(c.generationTime());

    assertTrue(error("--input", "x", "--filter", "aged", "--window", "7d").contains("--rate"));
    assertTrue(error("--input", "x", "--filter", "aged").contains("--window"));
    assertTrue(
        error(
                "--input",
                "x",
                "--filter",
                "aged",
                "--window",
                "7d",
                "--window-urls",
                "5",
                "--rate",
                "1")
            .contains("exactly one"));
    assertTrue(
        error("--input", "x", "--filter", "stable", "--window", "7d")
            .contains("--window applies to --filter aged"));
    // embedded event time is the JSON field ts: JSON input only
    String eventText =
        error(
            "--input", "x", "--filter", "aged", "--window", "7d", "--rate", "1", "--time", "event");
    assertTrue(
        eventText.contains("--format json") && eventText.contains("--time processing"), eventText);
    assertTrue(
        parse(
                "--input",
                "x",
                "--format",
                "json",
                "--filter",
                "aged",
                "--window",
                "7d",
                "--rate",
                "1",
                "--time",
                "event")
            .generationTime()
            .event());
    assertTrue(
        error("--input", "x", "--filter", "aged", "--window-urls", "100", "--rate", "1")
            .contains("--rate"));
    assertTrue(
        error("--input", "x", "--filter", "aged", "--window-urls", "100", "--generations", "64")
            .contains("--generations"));
  }

  /**
   * Issue 21 item 7: a flag of another filter kind is refused as --window is with stable: exit 2
   * naming the flag, the filter and the kinds the flag is for, also from a --config file (its line
   * named); the other kinds' defaults are not "given".
   */
  @Test
  void otherFiltersFlagsAreRefused(@TempDir Path dir) throws Exception {
    Object[][] cases = {
      {List.of("--filter", "scalable", "--memory", "1g"), "--memory", "stable", "scalable"},
      {List.of("--memory", "1g"), "--memory", "stable", "scalable (the default)"},
      {List.of("--filter", "stable", "--max-memory", "2g"), "--max-memory", "scalable", "stable"},
      {List.of("--filter", "stable", "--capacity", "5"), "--capacity", "scalable", "stable"},
      {
        List.of("--filter", "aged", "--window-urls", "1000", "--memory", "1g"),
        "--memory",
        "stable",
        "aged"
      },
      {List.of("--filter", "scalable", "--cell-bits", "3"), "--cell-bits", "stable", "scalable"},
      {List.of("--filter", "stable", "--growth", "4"), "--growth", "scalable", "stable"},
      {
        List.of("--filter", "aged", "--window-urls", "1000", "--tightening", "0.9"),
        "--tightening",
        "scalable",
        "aged"
      },
      {List.of("--filter", "scalable", "--generations", "5"), "--generations", "aged", "scalable"},
      {List.of("--filter", "stable", "--window", "7d"), "--window", "aged", "stable"},
      {List.of("--filter", "stable", "--time", "event"), "--time", "aged", "stable"},
    };
    for (Object[] c : cases) {
      List<String> args = new ArrayList<>(List.of("--input", "x"));
      @SuppressWarnings("unchecked")
      List<String> more = (List<String>) c[0];
      args.addAll(more);
      String m = error(args.toArray(String[]::new));
      assertTrue(
          m.startsWith(
              c[1] + " applies to --filter " + c[2] + " only, not to --filter " + c[3] + ";"),
          m);
    }
    assertTrue(
        error("--input", "x", "--filter", "scalable", "--memory", "1g")
            .endsWith(
                "; --filter scalable takes --capacity, --growth, --tightening, --max-memory"));
    assertTrue(
        error("--input", "x", "--filter", "stable", "--capacity", "5")
            .endsWith("; --filter stable takes --memory, --cell-bits"));

    Path f = dir.resolve("job.conf");
    Files.writeString(f, "input=x\nfilter=scalable\nmemory=1g\n");
    String m = error("--config", f.toString());
    assertTrue(
        m.startsWith(
            "--memory (" + f + ":3) applies to --filter stable only, not to --filter scalable;"),
        m);
    Files.writeString(f, "input=x\ncapacity=5000000\n");
    m = error("--config", f.toString(), "--filter", "stable");
    assertTrue(m.startsWith("--capacity (" + f + ":2) applies to --filter scalable only"), m);

    // each kind with only its own flags (and the shared ones) parses: defaults are never "given"
    assertEquals(
        FilterSpec.Kind.STABLE,
        parse("--input", "x", "--filter", "stable", "--memory", "64m").filter);
    assertEquals(
        FilterSpec.Kind.AGED,
        parse("--input", "x", "--filter", "aged", "--window-urls", "1000").filter);
    assertEquals(
        FilterSpec.Kind.SCALABLE,
        parse(
                "--input",
                "x",
                "--fpr",
                "0.001",
                "--shards",
                "8",
                "--cache-memory",
                "8m",
                "--capacity",
                "100")
            .filter);
  }

  /**
   * Issue 21 item 7: a command refuses the flags it does not take (exit 2, naming the flag, the
   * command, the commands the flag is for and what the command takes); version and help take none.
   * A --config file's keys that a command does not take are skipped, so one file serves all.
   */
  @Test
  void commandsRefuseTheFlagsTheyDoNotTake(@TempDir Path dir) throws Exception {
    String[] r = launch("version", "--fpr", "2");
    assertEquals("2", r[0], r[1]);
    assertTrue(
        r[1].startsWith("urldedup: error: --fpr is not a flag of version: version takes no flags"),
        r[1]);
    assertEquals("2", launch("help", "--json")[0]);
    r = launch("version", "stray");
    assertEquals("2", r[0], r[1]);
    assertFalse(r[1].contains("stray"), r[1]);

    String s = dir.toString();
    String[][] cases = {
      {"--output", "inspect", "run, plan"},
      {"--hash-seed", "inspect", "run, plan, bootstrap, probe"},
      {"--capacity", "probe", "run, plan, bootstrap"},
      {"--filter", "probe", "run, plan, bootstrap"},
      {"--output", "bootstrap", "run, plan"},
      {"--checkpoint-interval", "bootstrap", "run, plan"},
      {"--bootstrap-servers", "bootstrap", "run, plan"},
      {"--allow-canonicalization-change", "bootstrap", "run, plan, probe"},
      {"--cache-memory", "bootstrap", "run, plan"},
    };
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of(c[1], "--state", s, "--input", "in.txt"));
      if (c[1].equals("inspect")) {
        args.remove("--input");
        args.remove("in.txt");
      }
      Option<?> o =
          Flags.OPTIONS.stream().filter(x -> x.flag().equals(c[0])).findFirst().orElseThrow();
      args.add(c[0]);
      if (!o.isSwitch()) {
        args.add(
            o == Flags.HASH_SEED
                ? "0x1234abcd5678"
                : o == FilterFlags.FILTER_KIND ? "stable" : "5");
      }
      String m = refused(args.toArray(String[]::new));
      assertTrue(
          m.startsWith(
              "urldedup: error: "
                  + c[0]
                  + " is not a flag of "
                  + c[1]
                  + " (it is for "
                  + c[2]
                  + "); "
                  + c[1]
                  + " takes "),
          m);
      assertFalse(m.contains("1234abcd"), m);
    }
    assertTrue(
        refused("inspect", "--state", s, "--output", "x")
            .contains("inspect takes --parallelism, --config," + " --verbose, --state, --json"));

    // one config file for every command: each takes its keys, skips the others
    Path f = dir.resolve("job.conf");
    Files.writeString(
        f,
        "input=in.txt\noutput=out.txt\nfilter=stable\nmemory=64m\nshards=16\nstrip-www\n"
            + "checkpoint-interval=1s\n");
    JobConfig inspect =
        JobConfig.parse(
            Command.INSPECT, new String[] {"--config", f.toString(), "--state", s}, NO_ENV);
    assertFalse(
        inspect.isSet(Flags.OUTPUT)
            || inspect.isSet(Flags.SHARDS)
            || inspect.isSet(FilterFlags.MEMORY));
    JobConfig probe =
        JobConfig.parse(
            Command.PROBE, new String[] {"--config", f.toString(), "--state", s}, NO_ENV);
    assertEquals(16, probe.shards);
    assertTrue(probe.stripWww);
    assertFalse(probe.isSet(FilterFlags.FILTER_KIND) || probe.isSet(Flags.OUTPUT));
    JobConfig bootstrap =
        JobConfig.parse(
            Command.BOOTSTRAP, new String[] {"--config", f.toString(), "--state", s}, NO_ENV);
    assertEquals(64L << 20, bootstrap.memoryBytes);
    assertFalse(bootstrap.isSet(Flags.OUTPUT) || bootstrap.isSet(Flags.CHECKPOINT_INTERVAL));
    JobConfig run = JobConfig.parse(Command.RUN, new String[] {"--config", f.toString()}, NO_ENV);
    assertEquals("out.txt", run.output);

    String help = HelpText.render();
    assertTrue(
        help.contains("  --input PATH|-\n")
            && help.contains("      commands: run, plan, bootstrap, probe\n"),
        help);
    assertTrue(help.contains("      commands: plan, inspect\n"), "--json");
  }

  /**
   * Issue 21 (also): one rule for sizes, binary units with an optional i/iB/B in any case (1GB, 1Gb
   * and 1GiB alike, as -Xmx1g and Flink read 1gb); durations need a unit, d included.
   */
  @Test
  void sizesHaveOneBinaryRuleAndDurationsTakeDays() {
    for (String v :
        List.of(
            "1g",
            "1G",
            "1gb",
            "1GB",
            "1Gb",
            "1GiB",
            "1gib",
            "1Gi",
            "1 GiB",
            "1073741824",
            "1073741824b",
            "1048576k",
            "1_048_576K")) {
      assertEquals(
          1L << 30, parse("--input", "x", "--filter", "stable", "--memory", v).memoryBytes, v);
    }
    assertEquals(1L << 40, parse("--input", "x", "--max-memory", "1TiB").maxMemoryBytes);
    for (String v :
        List.of(
            "1.5g", "1gg", "1e9", "g", "1gbit", "-1g", "0", "0g", "99999999999t", "1 g b", "1ib")) {
      assertMessage(
          error("--input", "x", "--filter", "stable", "--memory", v),
          "--memory",
          "units are binary (1k = 1024) and case-insensitive, and B or iB may follow (1g = 1GB = 1GiB)");
    }
    JobConfig aged = parse("--input", "x", "--filter", "aged", "--window", "7d", "--rate", "1");
    assertEquals(Duration.ofDays(7), aged.window);
    assertEquals(
        Duration.ofMinutes(2),
        parse("--input", "x", "--checkpoint-interval", "2m").checkpointInterval);
    assertEquals(
        Duration.ofMinutes(2),
        parse("--input", "x", "--checkpoint-interval", "2min").checkpointInterval);
    for (String v : List.of("10", "10x", "soon", "-1s")) {
      assertMessage(
          error("--input", "x", "--checkpoint-interval", v),
          "--checkpoint-interval",
          "a unit ms, s, min (or m), h, d");
    }
    String help = HelpText.render().replace('\n', ' ');
    assertTrue(
        help.contains("1g = 1GB = 1GiB")
            && help.contains("min (or m), h, d")
            && help.contains("7d"),
        help);
  }

  /**
   * Issue 21 (also): --max-memory too small for the scalable filter's first slices is reported in
   * the flag's own total, with the per-shard numbers labelled as such; so is a size over 1 TiB a
   * shard.
   */
  @Test
  void filterSizesAreReportedAsTotalsWithTheirPerShardShare() {
    String m = error("--input", "x", "--max-memory", "1m");
    assertTrue(
        m.startsWith(
            "--max-memory 1m over --shards 128 is 8.0 KiB per shard, less than the first slice of a"
                + " shard needs: 12.0 KiB per shard for --capacity 1000000 (7812 URLs per shard)"),
        m);
    assertTrue(
        m.endsWith(
            "accepted: --max-memory at least 1.5 MiB in total (1572864 bytes), or a lower --capacity"),
        m);
    assertFalse(m.contains("--max-memory 8192") || m.contains("--capacity 7812"), m);
    assertEquals(1572864, parse("--input", "x", "--max-memory", "1572864").maxMemoryBytes);
    m = error("--input", "x", "--filter", "stable", "--memory", "200t");
    assertTrue(
        m.startsWith(
            "--memory 200t over --shards 128 is 1.6 TiB per shard; accepted: at most 1 TiB per"
                + " shard (--memory <= 128.0 TiB in total, or more --shards)"),
        m);
  }

  @Test
  void stateFlagsParseInEmbeddedModeAndStateIsRefusedInKafkaMode() {
    JobConfig c = JobConfig.parse(new String[] {"--input", "in.txt", "--state", "s/"}, Map.of());
    assertEquals("s/", c.get(Flags.STATE));
    assertTrue(
        JobConfig.parse(Command.INSPECT, new String[] {"--state", "s/", "--json"}, Map.of())
            .get(Flags.JSON));
    ConfigException e = assertThrows(ConfigException.class, () -> parse(kafka("--state", "s/")));
    assertTrue(e.getMessage().startsWith("--state is for the embedded mode"), e.getMessage());
  }

  @Test
  void embeddedFlags() {
    JobConfig c =
        parse(
            "--input",
            "-",
            "--output",
            "out.txt",
            "--dlq",
            "dead.tsv",
            "--checkpoint-interval",
            "1s");
    assertEquals("-", c.input);
    assertEquals("out.txt", c.output);
    assertEquals("dead.tsv", c.dlq);
    assertEquals(Duration.ofSeconds(1), c.checkpointInterval);
  }

  @Test
  void kafkaModeCheckpointsByDefault() {
    JobConfig c = parse(kafka());
    assertEquals(Duration.ofSeconds(10), c.checkpointInterval);
    assertEquals(Duration.ofMinutes(10), c.transactionTimeout);
    assertEquals(JobConfig.StartingOffsets.COMMITTED, c.startingOffsets);
    assertEquals(List.of("a", "b"), parse(kafka("--input-topic", "a,b")).inputTopics);
  }

  @Test
  void stripParamsWithoutListMeansSessionIds() {
    assertEquals(
        DecodeConfig.DEFAULT_STRIP_PARAMS, parse("--strip-params", "--input", "x").stripParams);
    assertEquals(
        DecodeConfig.DEFAULT_STRIP_PARAMS, parse("--input", "x", "--strip-params").stripParams);
    assertEquals(List.of("a"), parse("--input", "x", "--strip-params=a").stripParams);
    assertEquals(List.of(), parse("--input", "x", "--strip-params", "none").stripParams);
    assertEquals(
        DecodeConfig.DEFAULT_STRIP_PARAMS,
        parse("--input", "x", "--strip-params", "default").stripParams);
  }

  /**
   * Issue 21 item 9: an empty value (an unset shell variable: --strip-params "$P") is refused, not
   * read as the default list; the flag alone and 'default' still mean the default list.
   */
  @Test
  void emptyStripParamsIsRefused() {
    for (String[] args :
        List.of(
            new String[] {"--input", "x", "--strip-params", ""},
            new String[] {"--input", "x", "--strip-params="},
            new String[] {"--input", "x", "--strip-params", "  "})) {
      String m = error(args);
      assertMessage(m, "--strip-params", "an empty value is not accepted");
      assertTrue(
          m.contains("'default'") && m.contains("'none'") && m.contains("the flag alone"), m);
    }
  }

  @Test
  void seedFromEnvironmentAndFlagWins() {
    JobConfig env = JobConfig.parse(new String[] {"--input", "x"}, Map.of(Flags.SEED_ENV, "42"));
    assertEquals(42, env.hashSeed());
    assertFalse(env.defaultSeed);
    JobConfig flag =
        JobConfig.parse(
            new String[] {"--input", "x", "--hash-seed", "7"}, Map.of(Flags.SEED_ENV, "42"));
    assertEquals(7, flag.hashSeed());
    assertEquals(-1L, parse("--input", "x", "--hash-seed", "0xffffffffffffffff").hashSeed());
  }

  @Test
  void seedErrorNeverShowsTheSeed() {
    String m = error("--input", "x", "--hash-seed", "s3cr3t-passphrase");
    assertTrue(m.startsWith("--hash-seed"), m);
    assertFalse(m.contains("s3cr3t"), m);
    String e =
        assertThrows(
                ConfigException.class,
                () ->
                    JobConfig.parse(
                        new String[] {"--input", "x"}, Map.of(Flags.SEED_ENV, "topsecret")))
            .getMessage();
    assertTrue(e.contains(Flags.SEED_ENV), e);
    assertFalse(e.contains("topsecret"), e);
    assertFalse(parse("--input", "x", "--hash-seed", "12345").toString().contains("12345"));
  }

  @Test
  void configFileWithFlagOverride(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("job.conf");
    Files.writeString(
        f,
        String.join(
            "\n",
            "# a comment",
            "input = samples/urls.txt",
            "filter=stable",
            "memory=64m",
            "shards=32",
            "strip-www",
            "strip-params",
            "checkpoint-interval=2s",
            ""),
        StandardCharsets.UTF_8);
    JobConfig c = parse("--config", f.toString(), "--shards", "16", "--filter=stable");
    assertEquals("samples/urls.txt", c.input);
    assertEquals(FilterSpec.Kind.STABLE, c.filter);
    assertEquals(64L << 20, c.memoryBytes);
    assertEquals(16, c.shards);
    assertTrue(c.stripWww);
    assertEquals(DecodeConfig.DEFAULT_STRIP_PARAMS, c.stripParams);
    assertEquals(Duration.ofSeconds(2), c.checkpointInterval);

    Files.writeString(f, "input=x\nno-such-key=1\n");
    String m = error("--config", f.toString());
    assertTrue(m.contains(f + ":2") && m.contains("is not a flag") && m.contains("accepted:"), m);
    assertFalse(
        m.contains("no-such-key"), "a config line is never repeated (it may hold a secret): " + m);

    Files.writeString(f, "input=x\nstrip-params=\n");
    assertMessage(
        error("--config", f.toString()), "--strip-params", "an empty value is not accepted");

    Files.writeString(f, "input=x\nfpr=lots\n");
    m = error("--config", f.toString());
    assertTrue(m.startsWith("--fpr") && m.contains("accepted: a rate"), m);

    m = error("--config", dir.resolve("missing.conf").toString());
    assertTrue(m.startsWith("--config: cannot read"), m);
  }

  @Test
  void invalidValuesNameTheFlagAndTheAcceptedValues() {
    assertMessage(error("--input", "x", "--filter", "cuckoo"), "--filter", "stable, scalable");
    assertMessage(
        error("--input", "x", "--fpr", "0"), "--fpr", "from 1.0E-9 up to (not including) 0.5");
    assertMessage(error("--input", "x", "--fpr", "1.5"), "--fpr", "e.g. 0.01");
    assertMessage(error("--input", "x", "--fpr", "0.7"), "--fpr", "0.5");
    assertMessage(error("--input", "x", "--fpr", "often"), "--fpr", "0.5");
    assertMessage(error("--input", "x", "--memory", "lots"), "--memory", "64m, 1g");
    assertMessage(error("--input", "x", "--memory", "-5m"), "--memory", "64m, 1g");
    assertMessage(
        error("--input", "x", "--filter", "stable", "--memory", "100k"),
        "--memory",
        "4 KiB per shard");
    assertMessage(error("--input", "x", "--cell-bits", "5"), "--cell-bits", "from 1 to 4");
    assertMessage(error("--input", "x", "--capacity", "ten"), "--capacity", "integer");
    assertMessage(error("--input", "x", "--capacity", "0"), "--capacity", ">= 1");
    assertMessage(error("--input", "x", "--capacity", "10"), "--capacity", "one URL per shard");
    assertMessage(error("--input", "x", "--growth", "1"), "--growth", "from 2 to 16");
    assertMessage(error("--input", "x", "--tightening", "1"), "--tightening", "between 0 and 1");
    assertMessage(error("--input", "x", "--max-memory", "1x"), "--max-memory", "64m, 1g");
    assertMessage(error("--input", "x", "--max-memory", "256k"), "--max-memory", "4 KiB per shard");
    assertMessage(error("--input", "x", "--shards", "0"), "--shards", "from 1 to 32768");
    assertMessage(error("--input", "x", "--format", "xml"), "--format", "text, json");
    assertMessage(error("--input", "x", "--key", "path"), "--key", "host, domain, none");
    assertMessage(error("--input", "x", "--strip-www=maybe"), "--strip-www", "true, false");
    assertMessage(error("--input", "x", "--strip-params", "a/b"), "--strip-params", "accepted:");
    assertMessage(error("--input", "x", "--max-url-bytes", "8"), "--max-url-bytes", "from 16");
    assertMessage(error("--input", "x", "--parallelism", "-1"), "--parallelism", "from 1");
    assertMessage(
        error("--input", "x", "--state-backend", "memory"), "--state-backend", "hashmap, rocksdb");
    assertMessage(
        error("--input", "x", "--checkpoint-interval", "soon"), "--checkpoint-interval", "10s");
    assertMessage(
        error("--input", "x", "--checkpoint-interval", "0s"), "--checkpoint-interval", "10s");
    assertMessage(error("--input", "x", "--cache-memory", "1k"), "--cache-memory", "at least 4k");
    assertMessage(
        error("--input", "x", "--cache-memory", "lots"),
        "--cache-memory",
        "auto, or a positive size");
    assertMessage(error("--input", "x", "--job-name", " "), "--job-name", "non-empty");
    assertMessage(
        error("--input", "x", "--materialize-every", "0"), "--materialize-every", "from 1");
    assertMessage(
        error("--input", "x", "--materialize-every", "1001"), "--materialize-every", "to 1000");
    // insert logs by default where they make checkpoints smaller (RocksDB's incremental ones)
    assertEquals(16, parse("--input", "x", "--state-backend", "rocksdb").materializeEvery);
    assertEquals(1, parse("--input", "x", "--state-backend", "hashmap").materializeEvery);
    assertEquals(
        3,
        parse("--input", "x", "--state-backend", "hashmap", "--materialize-every", "3")
            .materializeEvery);
    assertMessage(
        error(kafka("--starting-offsets", "now")),
        "--starting-offsets",
        "earliest, latest, committed");
    assertMessage(
        error(kafka("--transaction-timeout", "forever")), "--transaction-timeout", "10min");
    assertMessage(
        error(kafka("--transaction-timeout", "5s", "--checkpoint-interval", "10s")),
        "--transaction-timeout",
        "must exceed --checkpoint-interval");
    assertMessage(error(kafka("--group-id", "")), "--group-id", "non-empty");
    assertMessage(error(kafka("--input-topic", ",")), "--input-topic", "comma-separated");
    assertMessage(error("--input", "x", "--bogus", "1"), "--bogus", "accepted:");
    assertMessage(error("--input", "x", "--fpr"), "--fpr", "RATE");
    assertMessage(error("--input", "x", "stray"), "unexpected argument 'stray'", "--");
  }

  @Test
  void modeRequirements() {
    assertMessage(error(), "--input", "embedded mode");
    assertMessage(
        error("--bootstrap-servers", "k:9092", "--input-topic", "in", "--output-topic", "out"),
        "--dlq-topic",
        "'none'");
    assertMessage(
        error("--bootstrap-servers", "k:9092", "--output-topic", "out", "--dlq-topic", "d"),
        "--input-topic",
        "required");
    assertMessage(error(kafka("--input", "x")), "--input", "embedded");
    assertEquals(Flags.NONE, parse(kafka("--dlq-topic", "none")).dlqTopic);
  }

  @Test
  void helpDocumentsEveryFlagWithItsDefault() {
    String help = HelpText.render();
    for (Option<?> f : Flags.OPTIONS) {
      assertTrue(help.contains("--" + f.name()), f.name());
      if (f.defaultText() != null) {
        assertTrue(help.contains("default: " + f.defaultText()), f.name());
      }
    }
  }

  @Test
  void launcherExitCodesAndMessages() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            new String[] {"run", "--input", "x", "--shards", "many"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, code);
    String e = err.toString(StandardCharsets.UTF_8);
    assertTrue(e.startsWith("urldedup: error: --shards"), e);
    assertFalse(e.contains("Exception") || e.contains("\tat "), e);

    assertEquals(
        2,
        UrlDedupJob.run(new String[] {"frobnicate"}, new PrintStream(out), new PrintStream(err)));
    assertEquals(
        0, UrlDedupJob.run(new String[] {"help"}, new PrintStream(out), new PrintStream(err)));
    out.reset();
    assertEquals(
        0, UrlDedupJob.run(new String[] {"version"}, new PrintStream(out), new PrintStream(err)));
    assertTrue(out.toString().startsWith("urldedup "), out.toString());
    out.reset();
    assertEquals(
        0,
        UrlDedupJob.run(
            new String[] {
              "plan", "--filter", "stable", "--memory", "64m", "--parallelism", "4", "--input", "x"
            },
            new PrintStream(out),
            new PrintStream(err)));
    String plan = out.toString();
    assertTrue(plan.contains("shards:           128") && plan.contains("64.0 MiB"), plan);
  }

  /** plan --json: one document, the documented keys, the same numbers as the text plan. */
  @Test
  void planJsonHasTheDocumentedKeysAndTheTextPlansNumbers() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(
        0,
        UrlDedupJob.run(
            new String[] {
              "plan", "--filter", "stable", "--memory", "64m", "--json", "--parallelism", "4"
            },
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err)));
    var mapper = new org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper();
    var doc = mapper.readTree(out.toString(StandardCharsets.UTF_8));
    for (String key :
        List.of(
            "planVersion",
            "filter",
            "fpr",
            "shards",
            "maxParallelism",
            "parallelism",
            "shardsPerSubtask",
            "cachePagesPerSubtask",
            "cacheBytesPerSubtask",
            "stable")) {
      assertTrue(doc.has(key), key + " in " + doc);
    }
    assertEquals("stable", doc.get("filter").asText());
    assertEquals(128, doc.get("shards").asInt());
    assertEquals(32, doc.get("shardsPerSubtask").asInt());
    assertEquals(64L << 20, doc.get("stable").get("totalBytes").asLong());
    JobConfig c =
        JobConfig.parseForPlan(new String[] {"--filter", "stable", "--memory", "64m"}, NO_ENV);
    var rows = StablePlan.of((StableSpec) c.perShardSpec(), c.shards).forgetting();
    var first = doc.get("stable").get("forgetting").get(0);
    assertEquals(100_000, first.get("newUrls").asLong());
    assertEquals(rows.get(0).reemittedIfSeenAgain(), first.get("reemittedIfSeenAgain").asDouble());

    out.reset();
    assertEquals(
        0,
        UrlDedupJob.run(
            new String[] {"plan", "--json"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err)));
    doc = mapper.readTree(out.toString(StandardCharsets.UTF_8));
    assertTrue(doc.get("parallelism").isNull());
    for (String key :
        List.of("capacityPerShard", "growthTable", "capReachedAfterUrls", "totalMaxMemory")) {
      assertTrue(doc.get("scalable").has(key), key);
    }
    assertEquals(
        2,
        UrlDedupJob.run(
            new String[] {"plan", "--json", "--fpr", "2"},
            new PrintStream(out),
            new PrintStream(err)));

    // aged: the plan's numbers, computed from the same geometry as the text plan
    for (String[] window :
        List.of(
            new String[] {"--window", "7d", "--rate", "1280"},
            new String[] {"--window-urls", "12800000"})) {
      out.reset();
      List<String> args = new ArrayList<>(List.of("plan", "--filter", "aged", "--json"));
      args.addAll(List.of(window));
      assertEquals(
          0,
          UrlDedupJob.run(
              args.toArray(String[]::new),
              new PrintStream(out, true, StandardCharsets.UTF_8),
              new PrintStream(err)));
      doc = mapper.readTree(out.toString(StandardCharsets.UTF_8));
      assertEquals("aged", doc.get("filter").asText());
      var aged = doc.get("aged");
      for (String key :
          List.of(
              "window",
              "windowMillis",
              "windowUrlsPerShard",
              "windowUrls",
              "ratePerShard",
              "rate",
              "k",
              "l",
              "slices",
              "layout",
              "rowLines",
              "segmentBits",
              "bitsPerWindowUrl",
              "generationMillis",
              "generationUrlsPerShard",
              "urlsPerRowPerGeneration",
              "rowsPerShard",
              "pagesPerShard",
              "bytesPerShard",
              "totalBytes",
              "modelFpr",
              "guaranteedWindowMillis",
              "guaranteedWindowUrlsPerShard",
              "slack",
              "forgottenShare",
              "forgottenByGenerations",
              "forgottenByMillis",
              "forgottenByUrlsPerShard",
              "forgetting")) {
        assertTrue(aged.has(key), key + " in " + aged);
      }
      List<String> flags = new ArrayList<>(List.of("--filter", "aged"));
      flags.addAll(List.of(window));
      JobConfig ac = JobConfig.parseForPlan(flags.toArray(String[]::new), NO_ENV);
      AgedSpec spec = (AgedSpec) ac.perShardSpec();
      var g = spec.geometry();
      assertEquals(g.bytes(), aged.get("bytesPerShard").asLong());
      assertEquals(g.bytes() * 128, aged.get("totalBytes").asLong());
      assertEquals(g.k(), aged.get("k").asInt());
      assertEquals(g.l(), aged.get("l").asInt());
      assertEquals(g.fpr(), aged.get("modelFpr").asDouble());
      assertTrue(aged.get("modelFpr").asDouble() <= 0.01);
      assertEquals(g.forgottenByShifts(), aged.get("forgottenByGenerations").asInt());
      if (spec.timed()) {
        assertEquals("time", aged.get("window").asText());
        assertEquals(7L * 86_400_000, aged.get("windowMillis").asLong());
        assertEquals(g.l() * spec.generationMillis(), aged.get("guaranteedWindowMillis").asLong());
        assertTrue(aged.get("windowUrls").isNull());
        assertEquals(1280.0, aged.get("rate").asDouble(), 1e-9);
      } else {
        assertEquals(100_000, aged.get("windowUrlsPerShard").asLong());
        assertEquals(g.guaranteedInserts(), aged.get("guaranteedWindowUrlsPerShard").asLong());
        assertTrue(aged.get("guaranteedWindowUrlsPerShard").asLong() >= 100_000);
      }
      var forgetting = aged.get("forgetting");
      assertEquals(
          0.0,
          forgetting.get(0).get("reemittedIfSeenAgain").asDouble(),
          "inside the window: never");
      assertEquals(g.l(), forgetting.get(0).get("generations").asInt());
    }
  }

  /** Runs the real launcher entry; returns exit code and stderr. */
  private static String[] launch(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new String[] {Integer.toString(code), err.toString(StandardCharsets.UTF_8)};
  }

  private static String refused(String... args) throws Exception {
    String[] r = launch(args);
    assertEquals("2", r[0], "exit code for " + List.of(args) + ": " + r[1]);
    assertTrue(r[1].startsWith("urldedup: error: --"), r[1]);
    assertFalse(r[1].contains("Exception") || r[1].contains("\tat "), r[1]);
    System.out.println(List.of(args) + " -> " + r[1].strip());
    return r[1];
  }

  /**
   * Issue 11 cases 2, 3, 6, 7: flags that parse but would lose data or fail inside Flink exit 2,
   * naming the flag and what is accepted, before any cluster starts (nothing is written).
   */
  @Test
  void badPathsAndSizesExit2BeforeAnyClusterStarts(@TempDir Path dir) throws Exception {
    Path input = dir.resolve("in.txt");
    Files.writeString(input, "http://a.com/1\nhttp://a.com/2\n");
    Path link = dir.resolve("link.txt");
    Files.createSymbolicLink(link, input);
    String same = dir + "/./in.txt";
    for (String output : List.of(input.toString(), same, link.toString())) {
      String m = refused("run", "--input", input.toString(), "--output", output);
      assertTrue(m.contains("--output") && m.contains("--input") && m.contains("same file"), m);
    }
    String viaLink = refused("run", "--input", link.toString(), "--output", input.toString());
    assertTrue(viaLink.contains("same file"), viaLink);
    assertEquals(
        "http://a.com/1\nhttp://a.com/2\n", Files.readString(input), "the input is untouched");

    Path out = dir.resolve("out.txt");
    String dlq =
        refused(
            "run",
            "--input",
            input.toString(),
            "--output",
            out.toString(),
            "--dlq",
            dir + "/./out.txt");
    assertTrue(dlq.contains("--dlq") && dlq.contains("--output") && dlq.contains("same file"), dlq);
    assertTrue(
        refused(
                "run",
                "--input",
                input.toString(),
                "--output",
                out.toString(),
                "--dlq",
                input.toString())
            .contains("--dlq"));

    assertMessage(refused("run", "--input", dir.toString()), "--input", "a readable file or -");
    assertMessage(
        refused("run", "--input", dir.resolve("missing.txt").toString()),
        "--input",
        "a readable file or -");
    assertMessage(
        refused("run", "--input", input.toString(), "--output", dir.toString()),
        "--output",
        "a file path");
    assertMessage(
        refused("run", "--input", input.toString(), "--output", "/nonexistent/x"),
        "--output",
        "a file in an existing directory");
    assertMessage(
        refused("run", "--input", input.toString(), "--dlq", "/nonexistent/d.tsv"),
        "--dlq",
        "a file in an existing directory");
    assertFalse(Files.exists(out), "nothing was written");

    assertMessage(
        refused("run", "--input", input.toString(), "--shards", "32769"),
        "--shards",
        "from 1 to 32768");
    assertMessage(
        refused("run", "--input", input.toString(), "--shards", "65536"),
        "--shards",
        "from 1 to 32768");
    assertMessage(
        refused("run", "--input", input.toString(), "--parallelism", "512"),
        "--parallelism",
        "1 to 128");

    String heap =
        refused("run", "--input", input.toString(), "--filter", "stable", "--memory", "1t");
    assertTrue(
        heap.startsWith("urldedup: error: --memory")
            && heap.contains("what fits: --memory up to")
            && heap.contains("--state-backend rocksdb"),
        heap);
    String scalable =
        refused(
            "run", "--input", input.toString(), "--capacity", "100000000000", "--max-memory", "1t");
    assertTrue(
        scalable.startsWith("urldedup: error: --capacity") && scalable.contains("what fits"),
        scalable);
    // the page cache's own flag is blamed when the filter alone fits (issue 21: it was --capacity)
    for (String backend : List.of("hashmap", "rocksdb")) {
      String cache =
          refused(
              "run",
              "--input",
              input.toString(),
              "--cache-memory",
              "1t",
              "--parallelism",
              "2",
              "--state-backend",
              backend);
      assertTrue(
          cache.startsWith(
                  "urldedup: error: --cache-memory 1.0 TiB per subtask x 2 subtasks is 2.0 TiB of"
                      + " page cache")
              && cache.contains("what fits: --cache-memory up to"),
          cache);
    }
  }

  /**
   * Issue 21 item 10: plan refuses what run refuses for this JVM's heap, with run's message, after
   * printing the plan (exit 2, as documented in help).
   */
  @Test
  void planSaysWhatRunSaysAboutTheHeap(@TempDir Path dir) throws Exception {
    Path input = dir.resolve("in.txt");
    Files.writeString(input, "http://a.com/1\n");
    for (List<String> flags :
        List.of(
            List.of("--filter", "stable", "--memory", "100g"),
            List.of("--capacity", "100000000000", "--max-memory", "1t"),
            List.of("--cache-memory", "1t"),
            List.of("--state-backend", "rocksdb", "--cache-memory", "1t"))) {
      List<String> run = new ArrayList<>(List.of("run", "--input", input.toString()));
      run.addAll(flags);
      String runSays = refused(run.toArray(String[]::new));
      List<String> plan = new ArrayList<>(List.of("plan"));
      plan.addAll(flags);
      for (boolean json : List.of(false, true)) {
        if (json) {
          plan.add("--json");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
            UrlDedupJob.run(
                plan.toArray(String[]::new),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, code, plan.toString());
        assertEquals(runSays, err.toString(StandardCharsets.UTF_8), plan.toString());
        String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(
            json ? printed.contains("\"planVersion\"") : printed.contains("max parallelism:"),
            printed);
      }
    }
  }

  private static void assertMessage(String message, String flag, String accepted) {
    assertTrue(message.contains(flag), "names " + flag + ": " + message);
    assertTrue(message.contains(accepted), "says " + accepted + ": " + message);
  }
}
