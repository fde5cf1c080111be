package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hash seed and the Kafka password never reach a log event, the program's own output, or the
 * REST API behind the Web UI (job config, plan, vertices, accumulators, checkpoint config,
 * exceptions, cluster config).
 *
 * <p>The job runs through {@link UrlDedupJob#run} exactly as {@code flink run ... run --hash-seed
 * ... --kafka-properties FILE} would start it (here against the mini cluster of this JVM), with a
 * SASL/PLAIN broker so the password is really used. Logging is captured for the whole run with our
 * code at TRACE and Flink and the Kafka clients (their config dumps) at DEBUG. The secrets are
 * searched in the forms a leak would take: the seed in decimal, unsigned decimal and hex (both
 * cases), the password verbatim.
 */
class SecretsNotLoggedTest {

  static final long SEED = 0x6a09e667f3bcc908L;
  static final String PASSWORD = "pw-Never-Logged-4Zr8";

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(2);

  @RegisterExtension static final SaslKafka KAFKA = new SaslKafka(PASSWORD);

  @TempDir Path dir;

  static List<String> needles() {
    String hex = Long.toHexString(SEED);
    return List.of(
        PASSWORD,
        Long.toString(SEED),
        Long.toUnsignedString(SEED),
        hex,
        hex.toUpperCase(Locale.ROOT));
  }

  @Test
  @Timeout(180)
  void seedAndPasswordAppearInNoLogEventNoOutputAndNoRestResponse() throws Exception {
    SaslJobRun run = new SaslJobRun("secrets");
    run.produce(KAFKA);
    Path props = KAFKA.writeProperties(dir.resolve("kafka.properties"), SaslKafka.PLAIN);
    String[] args =
        run.args(
            KAFKA,
            props,
            "--hash-seed",
            "0x" + Long.toHexString(SEED),
            "--job-name",
            "secrets-test");
    String[] command = new String[args.length + 1];
    command[0] = "run";
    System.arraycopy(args, 0, command, 1, args.length);

    Configuration client = FLINK.getClientConfiguration();
    String rest = "http://" + client.get(RestOptions.ADDRESS) + ":" + client.get(RestOptions.PORT);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    List<String> responses = new ArrayList<>();
    Map<String, Integer> counts;
    LogCapture capture = LogCapture.start(needles());
    // one planted leak at DEBUG proves the capture sees what it must search
    org.slf4j.LoggerFactory.getLogger(SecretsNotLoggedTest.class.getName() + ".canary")
        .debug("canary {}", PASSWORD);
    AtomicReference<Throwable> ended = new AtomicReference<>();
    Thread main =
        new Thread(
            () -> {
              try (PrintStream ps = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
                UrlDedupJob.run(command, ps, ps);
              } catch (Throwable t) {
                ended.set(t); // the cancellation below ends env.execute with an exception
              }
            },
            "urldedup-main");
    try {
      main.start();
      String jobId = awaitRunningJob(http, rest, "secrets-test");
      counts = readAsUser(run);
      for (String path :
          List.of(
              "/jobs/" + jobId,
              "/jobs/" + jobId + "/config",
              "/jobs/" + jobId + "/plan",
              "/jobs/" + jobId + "/checkpoints/config",
              "/jobs/" + jobId + "/accumulators",
              "/jobs/" + jobId + "/exceptions",
              "/jobs/" + jobId + "/jobmanager/config",
              "/jobmanager/config",
              "/taskmanagers",
              "/jobs/overview")) {
        responses.add(path + " " + get(http, rest + path));
      }
      Matcher vertices = Pattern.compile("\"id\":\"([0-9a-f]{32})\"").matcher(responses.get(0));
      while (vertices.find()) {
        String v = "/jobs/" + jobId + "/vertices/" + vertices.group(1);
        responses.add(v + " " + get(http, rest + v));
        responses.add(v + "/accumulators " + get(http, rest + v + "/accumulators"));
        responses.add(
            v + "/subtasks/accumulators " + get(http, rest + v + "/subtasks/accumulators"));
      }
      http.send(
          HttpRequest.newBuilder(URI.create(rest + "/jobs/" + jobId + "?mode=cancel"))
              .method("PATCH", HttpRequest.BodyPublishers.noBody())
              .build(),
          HttpResponse.BodyHandlers.ofString());
      main.join(60_000);
    } finally {
      capture.close();
      if (main.isAlive()) {
        main.interrupt();
      }
    }

    // the run was real: the user's output arrived, with the secrets in use
    assertEquals(run.expected, counts.keySet(), "the job did not deliver its output");
    assertTrue(
        capture.events() > 1000,
        "too few log events captured (" + capture.events() + "): capture broken?");
    assertTrue(
        responses.get(1).contains("execution-config"),
        "no job config from REST: " + responses.get(1));
    assertTrue(responses.get(2).contains("nodes"), "no plan from REST: " + responses.get(2));

    System.out.println(
        "SecretsNotLoggedTest: "
            + capture.events()
            + " log events searched, "
            + responses.size()
            + " REST responses");
    assertEquals(
        1,
        capture.leaks(),
        "secrets in "
            + (capture.leaks() - 1)
            + " of "
            + capture.events()
            + " log events besides the canary, first: "
            + capture.leakers());
    assertTrue(
        capture.leakers().get(0).contains(".canary"),
        "the canary was not seen: " + capture.leakers());
    String out = printed.toString(StandardCharsets.UTF_8);
    for (String n : needles()) {
      assertTrue(
          !out.contains(n),
          "a secret (needle #" + needles().indexOf(n) + ") in the program's output");
      for (String r : responses) {
        assertTrue(
            !r.contains(n),
            "a secret (needle #"
                + needles().indexOf(n)
                + ") in REST "
                + r.substring(0, r.indexOf(' ')));
      }
    }
    Throwable t = ended.get();
    if (t != null) {
      for (String n : needles()) {
        assertTrue(
            !org.apache.flink.util.ExceptionUtils.stringifyException(t).contains(n),
            "a secret in the job's final exception");
      }
    }
  }

  /**
   * Issue 21 item 15: no error quotes the seed or a Kafka password from a config line or a flag,
   * whatever the mistake: a key without '=' (the line once came back whole: "key 'hash-seed 0x...'
   * is not a flag"), a mistyped key, the secret alone on a line, a bad value, a flag given to a
   * command that does not take it. Every command, the program's whole output.
   */
  @Test
  void configAndFlagErrorsNeverShowASecret() throws Exception {
    String hex = "0x" + Long.toHexString(SEED);
    String jaas =
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " password=\""
            + PASSWORD
            + "\" username=\"u\";";
    List<String> lines =
        List.of(
            "hash-seed " + hex,
            "hash-seed: " + hex,
            "hash-seed\t" + hex,
            "hash_seed=" + hex,
            "HASH-SEED=" + hex,
            "hashseed=" + hex,
            hex,
            Long.toString(SEED),
            Long.toUnsignedString(SEED),
            "hash-seed=" + hex + " # the seed",
            "hash-seed=" + hex.toUpperCase(Locale.ROOT) + "Z",
            "seed " + hex,
            jaas,
            jaas.replace("=", " "),
            "password=" + PASSWORD,
            PASSWORD,
            "--hash-seed " + hex);
    List<String[]> commands =
        List.of(
            new String[] {"run"},
            new String[] {"plan"},
            new String[] {"bootstrap", "--state", dir.resolve("s").toString()},
            new String[] {"inspect", "--state", dir.toString()},
            new String[] {"probe", "--state", dir.toString(), "http://a.example/"});
    int runs = 0;
    for (String line : lines) {
      Path conf = dir.resolve("job.conf");
      java.nio.file.Files.writeString(
          conf, "input=" + dir.resolve("missing.txt") + "\n" + line + "\n");
      for (String[] command : commands) {
        List<String> args = new ArrayList<>(List.of(command));
        args.addAll(List.of("--config", conf.toString()));
        assertNoSecretIn(args, 2);
        runs++;
      }
    }
    // flags: a value on the command line, where the flag does not apply or the value is bad
    for (List<String> args :
        List.of(
            List.of("inspect", "--state", dir.toString(), "--hash-seed", hex),
            List.of("version", "--hash-seed=" + hex),
            List.of("help", "--hash-seed", hex),
            List.of("run", "--input", "x", "--hash-seed", hex + "Z"),
            List.of("run", "--input", "x", "--hash_seed", hex),
            List.of(
                "run",
                "--input",
                "x",
                "--hash-seed=" + hex,
                "--filter",
                "stable",
                "--capacity",
                "5"),
            List.of(
                "probe",
                "--state",
                dir.toString(),
                "--hash-seed",
                hex,
                "--filter",
                "stable",
                "http://a.example/"),
            List.of(
                "bootstrap",
                "--input",
                "x",
                "--state",
                dir.toString(),
                "--hash-seed",
                hex,
                "--output",
                "o"),
            List.of("run", "--input", "x", "--kafka-properties", "p", "--hash-seed", hex))) {
      assertNoSecretIn(args, 2);
      runs++;
    }
    System.out.println(
        "SecretsNotLoggedTest: " + runs + " refused command lines, no secret in their output");
  }

  /**
   * Runs the launcher's entry with {@code args}; asserts the exit code and that no secret is
   * printed.
   */
  private static void assertNoSecretIn(List<String> args, int expectedCode) throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    int code;
    try (PrintStream ps = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
      code = UrlDedupJob.run(args.toArray(String[]::new), ps, ps);
    }
    String out = printed.toString(StandardCharsets.UTF_8);
    assertEquals(expectedCode, code, args + ": " + out);
    for (String n : needles()) {
      assertTrue(
          !out.toLowerCase(Locale.ROOT).contains(n.toLowerCase(Locale.ROOT)),
          "a secret (needle #"
              + needles().indexOf(n)
              + ") in the output of "
              + args.get(0)
              + ": "
              + out.replace(n, "<SECRET>"));
    }
  }

  private static Map<String, Integer> readAsUser(SaslJobRun run) {
    Map<String, Integer> counts = new HashMap<>();
    try (var consumer = KAFKA.committedReader(SaslKafka.PLAIN, run.out, SaslJobRun.PARTITIONS)) {
      List<org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]>> read =
          new ArrayList<>();
      TestKafkaBroker.readUntil(
          consumer, read, r -> r.size() >= run.expected.size(), Duration.ofSeconds(90));
      for (var r : read) {
        counts.merge(new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
      }
    }
    return counts;
  }

  private static String awaitRunningJob(HttpClient http, String rest, String name)
      throws Exception {
    Pattern job =
        Pattern.compile(
            "\\{\"jid\":\"([0-9a-f]{32})\",\"name\":\""
                + Pattern.quote(name)
                + "\"[^}]*?\"state\":\"RUNNING\"");
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      Matcher m = job.matcher(get(http, rest + "/jobs/overview"));
      if (m.find()) {
        return m.group(1);
      }
      Thread.sleep(200);
    }
    throw new AssertionError("job " + name + " not RUNNING after 60 s");
  }

  private static String get(HttpClient http, String url) throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    return r.statusCode() + " " + r.body();
  }
}
