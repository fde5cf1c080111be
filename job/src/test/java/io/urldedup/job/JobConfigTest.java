package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DecodeConfig;
import io.urldedup.state.FilterSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
      "--bootstrap-servers", "localhost:9092", "--input-topic", "in", "--output-topic", "out",
      "--dlq-topic", "dlq"};

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
    assertEquals(JobConfig.NONE, c.dlq);
    assertEquals(FilterSpec.Kind.SCALABLE, c.filter);
    assertEquals(0.01, c.fpr);
    assertEquals(128, c.shards);
    assertEquals(128, c.maxParallelism());
    assertNull(c.checkpointInterval);
    assertTrue(c.defaultSeed);
    assertEquals(JobConfig.DEFAULT_SEED, c.hashSeed());
    assertEquals(List.of(), c.stripParams);
    assertFalse(c.allowCanonicalizationChange);
    assertEquals(JobConfig.AUTO_CACHE_MEMORY, c.cacheMemoryBytes);
    assertEquals(io.urldedup.operators.DedupOperator.AUTO_CACHE, c.cachePages());
    FilterSpec s = c.perShardSpec();
    assertEquals(1_000_000 / 128, s.capacity());
    assertEquals((1L << 30) / 128, s.maxMemoryBytes());
  }

  @Test
  void everyFlagIsParsed() {
    JobConfig c = parse(kafka(
        "--group-id", "g1", "--kafka-properties", "/etc/kafka.properties",
        "--starting-offsets", "earliest", "--transactional-id-prefix", "tx",
        "--transaction-timeout", "5min", "--filter", "stable", "--fpr", "0.001",
        "--memory", "256m", "--cell-bits", "3", "--capacity", "5000", "--growth", "4",
        "--tightening", "0.8", "--max-memory", "2g", "--shards", "64", "--hash-seed", "0xff",
        "--format", "json", "--key", "domain", "--strip-params", "sid,utm_*", "--strip-www",
        "--sort-params", "--drop-empty-params", "--collapse-slashes",
        "--max-url-bytes", "4096", "--parallelism", "3", "--state-backend", "rocksdb",
        "--checkpoint-dir", "/tmp/ckpt", "--checkpoint-interval", "30s", "--cache-memory", "16m",
        "--job-name", "crawl-dedup", "--allow-canonicalization-change", "--verbose"));
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
    assertEquals(5000, c.capacity);
    assertEquals(4, c.growth);
    assertEquals(0.8, c.tightening);
    assertEquals(2L << 30, c.maxMemoryBytes);
    assertEquals(64, c.shards);
    assertEquals(128, c.maxParallelism());
    assertEquals(255, c.hashSeed());
    assertFalse(c.defaultSeed);
    assertEquals(DecodeConfig.Format.JSON, c.format);
    assertEquals(DecodeConfig.KeyMode.DOMAIN, c.key);
    assertEquals(List.of("sid", "utm_*"), c.stripParams);
    assertTrue(c.stripWww);
    assertEquals("sort-params,drop-empty-params,strip-params=sid|utm_*,strip-www,collapse-slashes",
        c.decodeConfig().rules().describe());
    assertTrue(c.allowCanonicalizationChange);
    assertEquals(4096, c.maxUrlBytes);
    assertEquals(3, c.parallelism);
    assertEquals(JobConfig.StateBackend.ROCKSDB, c.stateBackend);
    assertEquals("/tmp/ckpt", c.checkpointDir);
    assertEquals(Duration.ofSeconds(30), c.checkpointInterval);
    assertEquals(16L << 20, c.cacheMemoryBytes);
    assertEquals("crawl-dedup", c.jobName);
    assertTrue(c.get(JobConfig.VERBOSE));
    FilterSpec s = c.perShardSpec();
    assertEquals((256L << 20) / 64, s.memoryBytes());
    assertEquals(3, s.cellBits());

    // every flag of the table was exercised above or in embedded mode
    Set<String> covered = new HashSet<>(List.of(
        "bootstrap-servers", "input-topic", "output-topic", "dlq-topic", "group-id", "kafka-properties",
        "starting-offsets", "transactional-id-prefix", "transaction-timeout", "filter", "fpr", "memory",
        "cell-bits", "capacity", "growth", "tightening", "max-memory", "shards", "hash-seed", "format",
        "key", "strip-params", "strip-www", "sort-params", "drop-empty-params", "collapse-slashes",
        "max-url-bytes", "allow-canonicalization-change", "parallelism",
        "state-backend",
        "checkpoint-dir", "checkpoint-interval", "cache-memory", "job-name", "verbose",
        "input", "output", "dlq", "config", "state", "json",
        "window", "window-urls", "generations", "rate", "time", "max-out-of-orderness")); // agedFlags
    assertEquals(covered, JobConfig.flagNames());
  }

  /** The aged kind's flags: totals become per-shard values; misuse exits naming the flag. */
  @Test
  void agedFlags() {
    JobConfig t = parse("--input", "x", "--filter", "aged", "--window", "7d", "--rate", "1280", "--generations",
        "20", "--time", "processing", "--shards", "128");
    FilterSpec s = t.perShardSpec();
    assertEquals(FilterSpec.Kind.AGED, s.kind());
    assertEquals(7L * 86_400_000, s.windowMillis());
    assertEquals(10.0, s.rate());
    assertEquals(20, s.generations());
    assertFalse(t.generationTime().event());
    JobConfig e = JobConfig.parse(new String[] {"--bootstrap-servers", "b:9092", "--input-topic", "i",
        "--output-topic", "o", "--dlq-topic", "none", "--filter", "aged", "--window", "1h", "--rate", "10",
        "--max-out-of-orderness", "30s"}, NO_ENV);
    assertTrue(e.generationTime().event(), "Kafka mode defaults to event time");
    assertEquals(30_000, e.generationTime().maxOutOfOrdernessMillis());
    JobConfig c = parse("--input", "x", "--filter", "aged", "--window-urls", "1000000", "--shards", "16");
    assertEquals(62_500, c.perShardSpec().windowUrls());
    assertNull(c.generationTime());

    assertTrue(error("--input", "x", "--filter", "aged", "--window", "7d").contains("--rate"));
    assertTrue(error("--input", "x", "--filter", "aged").contains("--window"));
    assertTrue(error("--input", "x", "--filter", "aged", "--window", "7d", "--window-urls", "5", "--rate", "1")
        .contains("exactly one"));
    assertTrue(error("--input", "x", "--filter", "stable", "--window", "7d").contains("--window applies to --filter aged"));
    // embedded event time is the JSON field ts: JSON input only
    String eventText = error("--input", "x", "--filter", "aged", "--window", "7d", "--rate", "1", "--time", "event");
    assertTrue(eventText.contains("--format json") && eventText.contains("--time processing"), eventText);
    assertTrue(parse("--input", "x", "--format", "json", "--filter", "aged", "--window", "7d", "--rate", "1", "--time",
        "event").generationTime().event());
    assertTrue(error("--input", "x", "--filter", "aged", "--window-urls", "100", "--rate", "1").contains("--rate"));
    assertTrue(error("--input", "x", "--filter", "aged", "--window-urls", "100", "--generations", "64")
        .contains("--generations"));
  }

  @Test
  void stateFlagsParseInEmbeddedModeAndStateIsRefusedInKafkaMode() {
    JobConfig c = JobConfig.parse(new String[] {"--input", "in.txt", "--state", "s/", "--json"}, Map.of());
    assertEquals("s/", c.get(JobConfig.STATE));
    assertTrue(c.get(JobConfig.JSON));
    ConfigException e = assertThrows(ConfigException.class, () -> parse(kafka("--state", "s/")));
    assertTrue(e.getMessage().startsWith("--state is for the embedded mode"), e.getMessage());
  }

  @Test
  void embeddedFlags() {
    JobConfig c = parse("--input", "-", "--output", "out.txt", "--dlq", "dead.tsv", "--checkpoint-interval", "1s");
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
    assertEquals(JobConfig.DEFAULT_STRIP_PARAMS, parse("--strip-params", "--input", "x").stripParams);
    assertEquals(JobConfig.DEFAULT_STRIP_PARAMS, parse("--input", "x", "--strip-params").stripParams);
    assertEquals(List.of("a"), parse("--input", "x", "--strip-params=a").stripParams);
    assertEquals(List.of(), parse("--input", "x", "--strip-params", "none").stripParams);
  }

  @Test
  void seedFromEnvironmentAndFlagWins() {
    JobConfig env = JobConfig.parse(new String[] {"--input", "x"}, Map.of(JobConfig.SEED_ENV, "42"));
    assertEquals(42, env.hashSeed());
    assertFalse(env.defaultSeed);
    JobConfig flag = JobConfig.parse(new String[] {"--input", "x", "--hash-seed", "7"},
        Map.of(JobConfig.SEED_ENV, "42"));
    assertEquals(7, flag.hashSeed());
    assertEquals(-1L, parse("--input", "x", "--hash-seed", "0xffffffffffffffff").hashSeed());
  }

  @Test
  void seedErrorNeverShowsTheSeed() {
    String m = error("--input", "x", "--hash-seed", "s3cr3t-passphrase");
    assertTrue(m.startsWith("--hash-seed"), m);
    assertFalse(m.contains("s3cr3t"), m);
    String e = assertThrows(ConfigException.class,
        () -> JobConfig.parse(new String[] {"--input", "x"}, Map.of(JobConfig.SEED_ENV, "topsecret"))).getMessage();
    assertTrue(e.contains(JobConfig.SEED_ENV), e);
    assertFalse(e.contains("topsecret"), e);
    assertFalse(parse("--input", "x", "--hash-seed", "12345").toString().contains("12345"));
  }

  @Test
  void configFileWithFlagOverride(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("job.conf");
    Files.writeString(f, String.join("\n",
        "# a comment",
        "input = samples/urls.txt",
        "filter=stable",
        "memory=64m",
        "shards=32",
        "strip-www",
        "strip-params=",
        "checkpoint-interval=2s",
        ""), StandardCharsets.UTF_8);
    JobConfig c = parse("--config", f.toString(), "--shards", "16", "--filter=stable");
    assertEquals("samples/urls.txt", c.input);
    assertEquals(FilterSpec.Kind.STABLE, c.filter);
    assertEquals(64L << 20, c.memoryBytes);
    assertEquals(16, c.shards);
    assertTrue(c.stripWww);
    assertEquals(JobConfig.DEFAULT_STRIP_PARAMS, c.stripParams);
    assertEquals(Duration.ofSeconds(2), c.checkpointInterval);

    Files.writeString(f, "input=x\nno-such-key=1\n");
    String m = error("--config", f.toString());
    assertTrue(m.contains(f + ":2") && m.contains("no-such-key") && m.contains("accepted:"), m);

    Files.writeString(f, "input=x\nfpr=lots\n");
    m = error("--config", f.toString());
    assertTrue(m.startsWith("--fpr") && m.contains("accepted: a rate"), m);

    m = error("--config", dir.resolve("missing.conf").toString());
    assertTrue(m.startsWith("--config: cannot read"), m);
  }

  @Test
  void invalidValuesNameTheFlagAndTheAcceptedValues() {
    assertMessage(error("--input", "x", "--filter", "cuckoo"), "--filter", "stable, scalable");
    assertMessage(error("--input", "x", "--fpr", "0"), "--fpr", "from 1.0E-9 up to (not including) 0.5");
    assertMessage(error("--input", "x", "--fpr", "1.5"), "--fpr", "e.g. 0.01");
    assertMessage(error("--input", "x", "--fpr", "0.7"), "--fpr", "0.5");
    assertMessage(error("--input", "x", "--fpr", "often"), "--fpr", "0.5");
    assertMessage(error("--input", "x", "--memory", "lots"), "--memory", "64m, 1g");
    assertMessage(error("--input", "x", "--memory", "-5m"), "--memory", "64m, 1g");
    assertMessage(error("--input", "x", "--filter", "stable", "--memory", "100k"), "--memory", "4 KiB per shard");
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
    assertMessage(error("--input", "x", "--state-backend", "memory"), "--state-backend", "hashmap, rocksdb");
    assertMessage(error("--input", "x", "--checkpoint-interval", "soon"), "--checkpoint-interval", "10s");
    assertMessage(error("--input", "x", "--checkpoint-interval", "0s"), "--checkpoint-interval", "10s");
    assertMessage(error("--input", "x", "--cache-memory", "1k"), "--cache-memory", "at least 4k");
    assertMessage(error("--input", "x", "--cache-memory", "lots"), "--cache-memory", "auto, or a positive size");
    assertMessage(error("--input", "x", "--job-name", " "), "--job-name", "non-empty");
    assertMessage(error(kafka("--starting-offsets", "now")), "--starting-offsets", "earliest, latest, committed");
    assertMessage(error(kafka("--transaction-timeout", "forever")), "--transaction-timeout", "10min");
    assertMessage(error(kafka("--transaction-timeout", "5s", "--checkpoint-interval", "10s")),
        "--transaction-timeout", "must exceed --checkpoint-interval");
    assertMessage(error(kafka("--group-id", "")), "--group-id", "non-empty");
    assertMessage(error(kafka("--input-topic", ",")), "--input-topic", "comma-separated");
    assertMessage(error("--input", "x", "--bogus", "1"), "--bogus", "accepted:");
    assertMessage(error("--input", "x", "--fpr"), "--fpr", "RATE");
    assertMessage(error("--input", "x", "stray"), "unexpected argument 'stray'", "--");
  }

  @Test
  void modeRequirements() {
    assertMessage(error(), "--input", "embedded mode");
    assertMessage(error("--bootstrap-servers", "k:9092", "--input-topic", "in", "--output-topic", "out"),
        "--dlq-topic", "'none'");
    assertMessage(error("--bootstrap-servers", "k:9092", "--output-topic", "out", "--dlq-topic", "d"),
        "--input-topic", "required");
    assertMessage(error(kafka("--input", "x")), "--input", "embedded");
    assertEquals(JobConfig.NONE, parse(kafka("--dlq-topic", "none")).dlqTopic);
  }

  @Test
  void helpDocumentsEveryFlagWithItsDefault() {
    String help = JobConfig.helpText();
    for (Option<?> f : JobConfig.OPTIONS) {
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
    int code = UrlDedupJob.run(new String[] {"run", "--input", "x", "--shards", "many"},
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, code);
    String e = err.toString(StandardCharsets.UTF_8);
    assertTrue(e.startsWith("urldedup: error: --shards"), e);
    assertFalse(e.contains("Exception") || e.contains("\tat "), e);

    assertEquals(2, UrlDedupJob.run(new String[] {"frobnicate"}, new PrintStream(out), new PrintStream(err)));
    assertEquals(0, UrlDedupJob.run(new String[] {"help"}, new PrintStream(out), new PrintStream(err)));
    out.reset();
    assertEquals(0, UrlDedupJob.run(new String[] {"version"}, new PrintStream(out), new PrintStream(err)));
    assertTrue(out.toString().startsWith("urldedup "), out.toString());
    out.reset();
    assertEquals(0, UrlDedupJob.run(new String[] {"plan", "--filter", "stable", "--memory", "64m",
        "--parallelism", "4", "--input", "x"}, new PrintStream(out), new PrintStream(err)));
    String plan = out.toString();
    assertTrue(plan.contains("shards:           128") && plan.contains("64.0 MiB"), plan);
  }

  /** plan --json: one document, the documented keys, the same numbers as the text plan. */
  @Test
  void planJsonHasTheDocumentedKeysAndTheTextPlansNumbers() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    assertEquals(0, UrlDedupJob.run(new String[] {"plan", "--filter", "stable", "--memory", "64m", "--json",
        "--parallelism", "4"}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err)));
    var mapper = new org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper();
    var doc = mapper.readTree(out.toString(StandardCharsets.UTF_8));
    for (String key : List.of("planVersion", "filter", "fpr", "shards", "maxParallelism", "parallelism",
        "shardsPerSubtask", "cachePagesPerSubtask", "cacheBytesPerSubtask", "stable")) {
      assertTrue(doc.has(key), key + " in " + doc);
    }
    assertEquals("stable", doc.get("filter").asText());
    assertEquals(128, doc.get("shards").asInt());
    assertEquals(32, doc.get("shardsPerSubtask").asInt());
    assertEquals(64L << 20, doc.get("stable").get("totalBytes").asLong());
    JobConfig c = JobConfig.parseForPlan(new String[] {"--filter", "stable", "--memory", "64m"}, NO_ENV);
    var rows = io.urldedup.state.FilterPlan.forgetting(c.perShardSpec(), c.shards);
    var first = doc.get("stable").get("forgetting").get(0);
    assertEquals(100_000, first.get("newUrls").asLong());
    assertEquals(rows.get(0).reemittedIfSeenAgain(), first.get("reemittedIfSeenAgain").asDouble());

    out.reset();
    assertEquals(0, UrlDedupJob.run(new String[] {"plan", "--json"}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err)));
    doc = mapper.readTree(out.toString(StandardCharsets.UTF_8));
    assertTrue(doc.get("parallelism").isNull());
    for (String key : List.of("capacityPerShard", "growthTable", "capReachedAfterUrls", "totalMaxMemory")) {
      assertTrue(doc.get("scalable").has(key), key);
    }
    assertEquals(2, UrlDedupJob.run(new String[] {"plan", "--json", "--fpr", "2"}, new PrintStream(out),
        new PrintStream(err)));

    // aged: the plan's numbers, computed from the same geometry as the text plan
    for (String[] window : List.of(new String[] {"--window", "7d", "--rate", "1280"},
        new String[] {"--window-urls", "12800000"})) {
      out.reset();
      List<String> args = new java.util.ArrayList<>(List.of("plan", "--filter", "aged", "--json"));
      args.addAll(List.of(window));
      assertEquals(0, UrlDedupJob.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
          new PrintStream(err)));
      doc = mapper.readTree(out.toString(StandardCharsets.UTF_8));
      assertEquals("aged", doc.get("filter").asText());
      var aged = doc.get("aged");
      for (String key : List.of("window", "windowMillis", "windowUrlsPerShard", "windowUrls", "ratePerShard", "rate",
          "k", "l", "slices", "layout", "rowLines", "segmentBits", "bitsPerWindowUrl", "generationMillis", "generationUrlsPerShard", "urlsPerRowPerGeneration", "rowsPerShard",
          "pagesPerShard", "bytesPerShard", "totalBytes", "modelFpr", "guaranteedWindowMillis",
          "guaranteedWindowUrlsPerShard", "slack", "forgottenShare", "forgottenByGenerations", "forgottenByMillis",
          "forgottenByUrlsPerShard", "forgetting")) {
        assertTrue(aged.has(key), key + " in " + aged);
      }
      List<String> flags = new java.util.ArrayList<>(List.of("--filter", "aged"));
      flags.addAll(List.of(window));
      JobConfig ac = JobConfig.parseForPlan(flags.toArray(String[]::new), NO_ENV);
      io.urldedup.state.FilterSpec spec = ac.perShardSpec();
      var g = spec.agedGeometry();
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
      assertEquals(0.0, forgetting.get(0).get("reemittedIfSeenAgain").asDouble(), "inside the window: never");
      assertEquals(g.l(), forgetting.get(0).get("generations").asInt());
    }
  }

  /** Runs the real launcher entry; returns exit code and stderr. */
  private static String[] launch(String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = UrlDedupJob.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
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
    assertEquals("http://a.com/1\nhttp://a.com/2\n", Files.readString(input), "the input is untouched");

    Path out = dir.resolve("out.txt");
    String dlq = refused("run", "--input", input.toString(), "--output", out.toString(), "--dlq", dir + "/./out.txt");
    assertTrue(dlq.contains("--dlq") && dlq.contains("--output") && dlq.contains("same file"), dlq);
    assertTrue(refused("run", "--input", input.toString(), "--output", out.toString(), "--dlq", input.toString())
        .contains("--dlq"));

    assertMessage(refused("run", "--input", dir.toString()), "--input", "a readable file or -");
    assertMessage(refused("run", "--input", dir.resolve("missing.txt").toString()), "--input", "a readable file or -");
    assertMessage(refused("run", "--input", input.toString(), "--output", dir.toString()), "--output", "a file path");
    assertMessage(refused("run", "--input", input.toString(), "--output", "/nonexistent/x"), "--output",
        "a file in an existing directory");
    assertMessage(refused("run", "--input", input.toString(), "--dlq", "/nonexistent/d.tsv"), "--dlq",
        "a file in an existing directory");
    assertFalse(Files.exists(out), "nothing was written");

    assertMessage(refused("run", "--input", input.toString(), "--shards", "32769"), "--shards", "from 1 to 32768");
    assertMessage(refused("run", "--input", input.toString(), "--shards", "65536"), "--shards", "from 1 to 32768");
    assertMessage(refused("run", "--input", input.toString(), "--parallelism", "512"), "--parallelism",
        "1 to 128");

    String heap = refused("run", "--input", input.toString(), "--filter", "stable", "--memory", "1t");
    assertTrue(heap.startsWith("urldedup: error: --memory") && heap.contains("what fits: --memory up to")
        && heap.contains("--state-backend rocksdb"), heap);
    String scalable = refused("run", "--input", input.toString(), "--capacity", "100000000000", "--max-memory", "1t");
    assertTrue(scalable.startsWith("urldedup: error: --capacity") && scalable.contains("what fits"), scalable);
  }

  private static void assertMessage(String message, String flag, String accepted) {
    assertTrue(message.contains(flag), "names " + flag + ": " + message);
    assertTrue(message.contains(accepted), "says " + accepted + ": " + message);
  }
}
