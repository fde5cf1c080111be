package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 item 5: the filters whose decisions depend on the order of the URLs (aged with a count
 * window, stable) decide at --parallelism 2 exactly as at --parallelism 1. Before, a file of 32 MiB
 * or more was read as two byte ranges at once, so the second half's URLs reached the filter mixed
 * with the first half's: an aged count window re-emitted URLs early and suppressed others, the
 * stable filter forgot other URLs. Real embedded runs on a mini-cluster; the input is over 2 x
 * {@link LineFileSource#MIN_RANGE_BYTES}, so parallel ranges would be used.
 *
 * <p>At parallelism 2 the output interleaves the two dedup subtasks' shards, so the emitted lines
 * are compared as multisets (sorted); each shard's decisions are the same, in the same order.
 */
class InputOrderTest {

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(2);

  static final int LINES = 110_000;
  static final int DISTINCT = 40_000;

  /** Lines of about 330 bytes: {@value #LINES} of them make a file of more than 32 MiB. */
  static final String PAD = "x".repeat(300);

  @TempDir static Path dir;
  static Path input;

  /**
   * The same {@value #LINES}/2 lines twice: in file order a URL's second-half occurrence comes tens
   * of thousands of new URLs after its first (past the window, mostly forgotten by the stable
   * filter: emitted again), read as two ranges at once both come together (the second suppressed).
   * Within each half, repeats at every distance.
   */
  @BeforeAll
  static void write() throws Exception {
    input = dir.resolve("in.txt");
    Random rnd = new Random(215);
    List<String> half = new ArrayList<>();
    for (int i = 0; i < LINES / 2; i++) {
      int id = rnd.nextInt(DISTINCT);
      half.add("http://h" + (id % 53) + ".example/p/" + id + "?pad=" + PAD);
    }
    try (BufferedWriter w = Files.newBufferedWriter(input, StandardCharsets.US_ASCII)) {
      for (int copy = 0; copy < 2; copy++) {
        for (String l : half) {
          w.write(l + "\n");
        }
      }
    }
    assertTrue(Files.size(input) > 2 * LineFileSource.MIN_RANGE_BYTES, "big enough for two ranges");
  }

  static List<String> run(int parallelism, String... filter) throws Exception {
    Path out = dir.resolve("out-" + parallelism + "-" + filter[1] + ".txt");
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "--input",
                input.toString(),
                "--output",
                out.toString(),
                "--parallelism",
                Integer.toString(parallelism),
                "--shards",
                "8",
                "--hash-seed",
                "0x6a09e667f3bcc908"));
    args.addAll(List.of(filter));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            args.toArray(String[]::new),
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String e = err.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, e);
    assertTrue(e.contains("urldedup: in=" + LINES + " "), e);
    List<String> lines = Files.readAllLines(out, StandardCharsets.US_ASCII);
    Collections.sort(lines);
    return lines;
  }

  static void sameDecisions(String... filter) throws Exception {
    List<String> one = run(1, filter);
    List<String> two = run(2, filter);
    System.out.println(
        List.of(filter)
            + ": emitted "
            + one.size()
            + " of "
            + LINES
            + " at --parallelism 1, "
            + two.size()
            + " at 2");
    assertTrue(
        one.size() > DISTINCT / 2 && one.size() < LINES,
        "the filter decides both ways: " + one.size());
    assertEquals(one.size(), two.size(), "emitted at --parallelism 1 and 2");
    assertTrue(one.equals(two), "the same lines emitted at --parallelism 1 and 2");
  }

  /**
   * A count window of 20,000 URLs (2,500 per shard): URLs come back after it, in file order only.
   */
  @Test
  @Timeout(600)
  void anAgedCountWindowDecidesAsAtParallelismOne() throws Exception {
    sameDecisions("--filter", "aged", "--window-urls", "20000");
  }

  /** A stable filter of 64 KiB: it forgets, and what it forgets when depends on the order. */
  @Test
  @Timeout(600)
  void aStableFilterDecidesAsAtParallelismOne() throws Exception {
    sameDecisions("--filter", "stable", "--memory", "64k");
  }
}
