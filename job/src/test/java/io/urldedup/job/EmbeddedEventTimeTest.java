package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The embedded mode with {@code --filter aged --window 60s --time event}: the event time is each
 * JSON record's field {@code ts} (epoch milliseconds or ISO-8601), so the outcome depends on the
 * records only, not on how fast the file is read (all of it takes well under a second). A URL sent
 * again 30 s (of record time) after its first emission is suppressed, after 90 s emitted again;
 * records without a valid {@code ts} are dead letters {@code bad_timestamp}.
 *
 * <p>With --fpr 1e-4 the expected false positives over the ~200 first occurrences are 0.02; the
 * seed is fixed, so the run is deterministic there. 90 s is beyond the window's 10% slack.
 */
class EmbeddedEventTimeTest {

  static final int TARGETS = 20;
  static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(2);

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  @Timeout(120)
  void suppressedAfter30sEmittedAgainAfter90sByTheTsField(String backend) throws Exception {
    List<String> lines = new ArrayList<>();
    Map<String, Integer> expected = new TreeMap<>();
    for (int sec = 0; sec <= 90; sec++) {
      long ts = T0 + sec * 1000L;
      // half the records give ts as ISO-8601 (with an offset), half as epoch milliseconds
      String stamp =
          sec % 2 == 0
              ? Long.toString(ts)
              : "\"" + Instant.ofEpochMilli(ts).atOffset(java.time.ZoneOffset.ofHours(2)) + "\"";
      if (sec == 0 || sec == 30 || sec == 90) {
        for (int i = 0; i < TARGETS; i++) {
          lines.add("{\"url\":\"https://target.example/page/" + i + "\",\"ts\":" + stamp + "}");
        }
      }
      String filler = "https://filler.example/" + sec;
      lines.add("{\"ts\":" + stamp + ",\"url\":\"" + filler + "\"}");
      expected.put(filler, 1);
    }
    for (int i = 0; i < TARGETS; i++) {
      expected.put("https://target.example/page/" + i, 2); // at 0 s and at 90 s; not at 30 s
    }
    lines.add("{\"url\":\"https://no-ts.example/\"}");
    lines.add("{\"url\":\"https://bad-ts.example/\",\"ts\":\"yesterday\"}");
    lines.add("{\"url\":\"https://float-ts.example/\",\"ts\":1.5}");
    lines.add("{\"url\":\"https://two-ts.example/\",\"ts\":1,\"ts\":2}");
    Path input = dir.resolve("in.jsonl");
    Path output = dir.resolve("out.jsonl");
    Path dlq = dir.resolve("dlq.tsv");
    Files.write(input, lines, StandardCharsets.UTF_8);

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            new String[] {
              "run",
              "--input",
              input.toString(),
              "--output",
              output.toString(),
              "--dlq",
              dlq.toString(),
              "--format",
              "json",
              "--state-backend",
              backend,
              "--shards",
              "8",
              "--parallelism",
              "2",
              "--filter",
              "aged",
              "--window",
              "60s",
              "--rate",
              "100",
              "--fpr",
              "1e-4",
              "--time",
              "event",
              "--max-out-of-orderness",
              "5s",
              "--hash-seed",
              "99"
            },
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String summary = err.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, summary);

    Map<String, Integer> counts = new TreeMap<>();
    for (String line : Files.readAllLines(output, StandardCharsets.UTF_8)) {
      int at = line.indexOf("\"url\":\"") + 7;
      counts.merge(line.substring(at, line.indexOf('"', at)), 1, Integer::sum);
    }
    assertEquals(
        expected, counts, "emissions per URL (targets: at 0 s and 90 s, suppressed at 30 s)");

    Map<String, String> dead = new HashMap<>();
    for (String line : Files.readAllLines(dlq, StandardCharsets.UTF_8)) {
      String[] f = line.split("\t", -1);
      assertEquals("bad_timestamp", f[0], line);
      dead.put(f[3].replaceAll(".*\"url\":\"([^\"]*)\".*", "$1"), f[1]);
    }
    assertEquals(4, dead.size(), dead.toString());
    assertTrue(
        dead.get("https://no-ts.example/").contains("no top-level field 'ts'"), dead.toString());
    assertTrue(dead.get("https://bad-ts.example/").contains("ISO-8601"), dead.toString());
    assertTrue(dead.get("https://float-ts.example/").contains("fraction"), dead.toString());
    assertTrue(dead.get("https://two-ts.example/").contains("more than once"), dead.toString());
    assertTrue(summary.contains("invalid=4"), summary);
  }
}
