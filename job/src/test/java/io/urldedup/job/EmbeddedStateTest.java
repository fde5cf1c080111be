package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code run --state}, {@code bootstrap}, {@code inspect} and {@code probe} through the command
 * line entry point, on real savepoints. Scalable at {@code --fpr 1e-6}: over a few thousand queries
 * the expected number of false positives is below 0.01, so outputs are compared exactly.
 */
class EmbeddedStateTest {

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(4);

  /** The filter's flags: run and bootstrap take them. */
  private static final List<String> FILTER = List.of("--fpr", "1e-6", "--capacity", "4000");

  /**
   * How URLs map to bits: run, bootstrap and probe take them (the seed last); inspect reads them
   * from the state.
   */
  private static final List<String> MAPPING =
      List.of("--shards", "16", "--hash-seed", "0x5747e0b5");

  @TempDir Path dir;

  static List<String> lines(String prefix, int from, int to) {
    List<String> out = new ArrayList<>();
    for (int i = from; i < to; i++) {
      out.add("https://host" + (i % 13) + ".example/" + prefix + "/" + i);
      if (i % 7 == 0) {
        out.add("https://HOST" + (i % 13) + ".example:443/" + prefix + "/" + i + "#again");
      }
    }
    return out;
  }

  Path write(String name, List<String> lines) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, lines, StandardCharsets.UTF_8);
    return p;
  }

  /** Runs the CLI; returns stdout, asserting the exit code. */
  static String cli(int expectedCode, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(expectedCode, code, "exit code; stderr: " + err.toString(StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8);
  }

  /**
   * {@code head} (a command and its flags) with the flags of this test's job that the command
   * takes.
   */
  static String[] args(String... head) {
    List<String> a = new ArrayList<>(List.of(head));
    String command = head.length > 0 ? head[0] : "";
    if (!command.equals("probe") && !command.equals("inspect")) {
      a.addAll(FILTER);
    }
    if (!command.equals("inspect")) {
      a.addAll(MAPPING);
    }
    return a.toArray(String[]::new);
  }

  List<String> run(Path input, Path state, String backend, String... more) throws Exception {
    Path out = dir.resolve(input.getFileName() + ".out");
    List<String> a =
        new ArrayList<>(
            List.of(
                "run",
                "--input",
                input.toString(),
                "--output",
                out.toString(),
                "--state",
                state.toString(),
                "--state-backend",
                backend));
    a.addAll(List.of(more));
    cli(0, args(a.toArray(String[]::new)));
    return Files.readAllLines(out, StandardCharsets.UTF_8);
  }

  /**
   * {@code --materialize-every 3} with checkpoints every 100 ms: the savepoint each run leaves may
   * hold insert logs (its checkpoint id need not be a multiple of 3); the next run replays them.
   * The outputs equal one run over the concatenation with today's layout, and inspect of the last
   * state reports the distinct URLs recorded.
   */
  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void runsWithInsertLogsEqualOneRunWithout(String backend) throws Exception {
    List<String> a = lines("a", 0, 800);
    List<String> b = new ArrayList<>(lines("b", 0, 800));
    b.addAll(lines("a", 400, 900));
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    Path state = dir.resolve("logged-" + backend);
    String[] logged = {"--materialize-every", "3", "--checkpoint-interval", "100ms"};
    List<String> got = new ArrayList<>(run(write("la.txt", a), state, backend, logged));
    got.addAll(run(write("lb.txt", b), state, backend, logged));
    List<String> once = run(write("lall.txt", all), dir.resolve("plain-" + backend), backend);
    assertEquals(new TreeSet<>(once), new TreeSet<>(got), "the two runs' outputs, together");
    assertEquals(once.size(), got.size(), "no URL emitted twice across the runs");
    String report = cli(0, args("inspect", "--state", state.toString()));
    assertTrue(
        report.contains(
            "distinct URLs: " + String.format(Locale.ROOT, "%,d", once.size()) + " recorded"),
        report);
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  void threeRunsWithStateEqualOneRunOverTheConcatenation(String backend) throws Exception {
    List<String> a = lines("a", 0, 800);
    List<String> b = new ArrayList<>(lines("b", 0, 800));
    b.addAll(lines("a", 400, 900)); // half seen on day 1
    List<String> c = new ArrayList<>(lines("c", 0, 500));
    c.addAll(lines("b", 0, 300));
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    all.addAll(c);
    Path state = dir.resolve("state-" + backend);
    List<String> got = new ArrayList<>(run(write("a.txt", a), state, backend));
    got.addAll(run(write("b.txt", b), state, backend));
    got.addAll(run(write("c.txt", c), state, backend));
    List<String> once = run(write("all.txt", all), dir.resolve("fresh-" + backend), backend);
    assertEquals(new TreeSet<>(once), new TreeSet<>(got), "the three runs' outputs, together");
    assertEquals(once.size(), got.size(), "no URL emitted twice across the runs");
  }

  @Test
  void bootstrapThenRunEmitsOnlyTheNewUrlsAndProbeAgrees() throws Exception {
    List<String> known = lines("known", 0, 1500);
    known.add("not a url");
    Path boot = dir.resolve("boot");
    cli(
        0,
        args(
            "bootstrap",
            "--input",
            write("known.txt", known).toString(),
            "--state",
            boot.toString()));

    List<String> day = new ArrayList<>(lines("known", 0, 1500));
    day.addAll(lines("new", 0, 300));
    List<String> out = run(write("day.txt", day), boot, "hashmap");
    assertEquals(300, out.size(), "only the new URLs: " + out.subList(0, Math.min(5, out.size())));
    assertTrue(out.stream().allMatch(u -> u.contains("/new/")), "a bootstrapped URL was emitted");

    String probed =
        cli(
            0,
            args(
                "probe",
                "--state",
                boot.toString(),
                "https://HOST1.example:443/known/1#x",
                "https://host1.example/never/seen",
                "::bad::"));
    String[] rows = probed.split("\n");
    assertEquals(3, rows.length, probed);
    assertEquals(
        "https://HOST1.example:443/known/1#x\thttps://host1.example/known/1\tseen\t0", rows[0]);
    assertTrue(rows[1].endsWith("\tunseen\t-"), rows[1]);
    assertTrue(rows[2].startsWith("::bad::\t\tinvalid\t"), rows[2]);

    String wrongSeed = "0x1";
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    String[] a = args("probe", "--state", boot.toString(), "https://host1.example/known/1");
    a[a.length - 1] = wrongSeed;
    int code =
        UrlDedupJob.run(a, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
    assertEquals(2, code, "a wrong seed is refused");
    assertTrue(err.toString().contains("different --hash-seed"), err.toString());

    // the run saved its savepoint into boot/: 1,500 bootstrapped + 300 new
    String report = cli(0, args("inspect", "--state", boot.toString()));
    assertTrue(report.contains("distinct URLs: 1,800 recorded"), report);
    String json = cli(0, args("inspect", "--state", boot.toString(), "--json"));
    assertTrue(json.contains("\"kind\" : \"scalable\""), json);
  }
}
