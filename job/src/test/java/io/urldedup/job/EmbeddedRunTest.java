package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The embedded mode end to end ({@code ./urldedup run --input F --output F --dlq F}): a generated
 * input with repeats, spelling variants of the same URL and malformed lines.
 *
 * <p>Exactness: the scalable filter at {@code --fpr 1e-6} has a compound false-positive bound of
 * 1e-6 per query, so over {@value #UNIQUE} x ~3 queries the expected number of false positives is
 * below 0.01; the seed is fixed, so the outcome is deterministic, and the test asserts the exact
 * set of first occurrences.
 */
class EmbeddedRunTest {

  /**
   * One mini-cluster for all runs (the embedded mode's {@code getExecutionEnvironment} picks it up
   * instead of starting its own, which the launcher does): saves a cluster start per run.
   */
  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(4);

  static final int UNIQUE = 2000;
  static final int FORCED_EVERY = 100;

  @TempDir Path dir;

  record Input(
      List<String> lines, Set<String> expected, Map<String, Integer> invalid, int forcedRepeats) {}

  /** Unique canonical URLs, each appearing 1-4 times in several spellings, plus bad lines. */
  static Input generate(boolean json) {
    Random rnd = new Random(20261201);
    List<String> lines = new ArrayList<>();
    Set<String> expected = new LinkedHashSet<>();
    Map<String, Integer> invalid = new TreeMap<>();
    int forcedRepeats = 0;
    List<String> pending = new ArrayList<>();
    for (int i = 0; i < UNIQUE; i++) {
      String host = "site" + (i % 97) + ".example.com";
      String canonical = "http://" + host + "/page/" + i + "?a=1&b=2";
      expected.add(canonical);
      String[] variants = {
        canonical,
        "HTTP://" + host.toUpperCase() + "/page/" + i + "?a=1&b=2",
        "http://" + host + ":80/page/" + i + "?a=1&b=2#section",
        "http://user@" + host + "./x/../page/%2D/../" + i + "?a=1&b=2"
      };
      int copies = 1 + rnd.nextInt(4);
      for (int c = 0; c < copies; c++) {
        String v = variants[rnd.nextInt(variants.length)];
        pending.add(json ? "{\"url\":\"" + v + "\",\"n\":" + c + "}" : v);
      }
      if (json && i % FORCED_EVERY == 0) {
        // a forced re-emit of an already seen URL counts as emitted and forced
        pending.add("{\"url\":\"" + canonical + "\",\"force\":true}");
        forcedRepeats++;
      }
    }
    // first occurrences must come first: keep each URL's copies in order, interleave URLs
    lines.addAll(pending);
    String[] bad =
        json
            ? new String[] {
              "",
              "not json",
              "[1,2]",
              "{\"href\":\"http://a.example/\"}",
              "{\"url\":5}",
              "{\"url\":\"ftp://files.example/x\"}",
              "{\"url\":\"/relative/path\"}"
            }
            : new String[] {
              "", "   ", "ftp://files.example/x", "/relative/path", "http://", "mailto:a@b.example"
            };
    for (int k = 0; k < 5; k++) {
      for (String b : bad) {
        lines.add(rnd.nextInt(lines.size()), b);
      }
    }
    return new Input(lines, expected, invalid, forcedRepeats);
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "text, hashmap, false",
    "json, hashmap, false",
    "text, rocksdb, true",
    "json, rocksdb, true"
  })
  @Timeout(120)
  void emitsExactlyTheFirstOccurrences(String format, String backend, boolean checkpoints)
      throws Exception {
    boolean json = format.equals("json");
    Input in = generate(json);
    Path input = dir.resolve("in.txt");
    Path output = dir.resolve("out.txt");
    Path dlq = dir.resolve("dlq.tsv");
    Files.write(input, in.lines(), StandardCharsets.UTF_8);

    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--input",
                input.toString(),
                "--output",
                output.toString(),
                "--dlq",
                dlq.toString(),
                "--format",
                format,
                "--state-backend",
                backend,
                "--filter",
                "scalable",
                "--fpr",
                "1e-6",
                "--capacity",
                "20000",
                "--shards",
                "8",
                "--parallelism",
                "2",
                "--hash-seed",
                "12345"));
    if (json) {
      // the registrable-domain key loads the public suffix list (crawler-commons, commons-io)
      args.addAll(List.of("--key", "domain"));
    }
    if (checkpoints) {
      args.addAll(
          List.of(
              "--checkpoint-interval",
              "100ms",
              "--checkpoint-dir",
              dir.resolve("ckpt").toString()));
    }
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            args.toArray(String[]::new),
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String summary = err.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, summary);

    List<String> out = Files.readAllLines(output, StandardCharsets.UTF_8);
    List<String> urls = new ArrayList<>();
    for (String line : out) {
      urls.add(json ? jsonUrl(line) : line);
    }
    // forced repeats are emitted again: the output is the unique set plus the forced copies
    Map<String, Integer> counts = new HashMap<>();
    for (String u : urls) {
      counts.merge(u, 1, Integer::sum);
    }
    assertEquals(new TreeSet<>(in.expected()), new TreeSet<>(counts.keySet()), "emitted set");
    assertEquals(UNIQUE + in.forcedRepeats(), urls.size(), "emitted count");

    List<String> dead = Files.readAllLines(dlq, StandardCharsets.UTF_8);
    long badLines =
        in.lines().size() - in.lines().stream().filter(l -> l.contains("page/")).count();
    assertEquals(badLines, dead.size(), "dead letters");
    for (String d : dead) {
      String[] f = d.split("\t", -1);
      assertEquals(4, f.length, d);
      assertTrue(f[0].matches("[a-z_]+"), d);
      assertTrue(f[2].startsWith(input.toString() + ":"), d);
    }

    Matcher m =
        Pattern.compile("in=(\\d+) emitted=(\\d+) duplicates=(\\d+) invalid=(\\d+) forced=(\\d+)")
            .matcher(summary);
    assertTrue(m.find(), summary);
    long total = Long.parseLong(m.group(1));
    long emitted = Long.parseLong(m.group(2));
    long duplicates = Long.parseLong(m.group(3));
    long invalidCount = Long.parseLong(m.group(4));
    long forced = Long.parseLong(m.group(5));
    assertEquals(in.lines().size(), total, summary);
    assertEquals(urls.size(), emitted, summary);
    assertEquals(dead.size(), invalidCount, summary);
    assertEquals(in.forcedRepeats(), forced, summary);
    assertEquals(total, emitted + duplicates + invalidCount, summary);
    assertTrue(summary.contains("invalid by reason:"), summary);
  }

  private static String jsonUrl(String line) {
    Matcher m = Pattern.compile("\"url\"\\s*:\\s*\"([^\"]*)\"").matcher(line);
    assertTrue(m.find(), line);
    return m.group(1);
  }
}
