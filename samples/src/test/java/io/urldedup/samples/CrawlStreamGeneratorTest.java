package io.urldedup.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.UrlCanonicalizer;
import io.urldedup.operators.UrlRejectedException;
import io.urldedup.state.SplitMix64;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
class CrawlStreamGeneratorTest {

  private static CrawlStreamGenerator.Settings settings(long lines, long seed, boolean json) {
    return CrawlStreamGenerator.parse(
        new String[] {
          "--lines",
          Long.toString(lines),
          "--seed",
          Long.toString(seed),
          "--format",
          json ? "json" : "text"
        });
  }

  private static byte[][] run(CrawlStreamGenerator.Settings s) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream truth = new ByteArrayOutputStream();
    new CrawlStreamGenerator(s).generate(out, truth);
    return new byte[][] {out.toByteArray(), truth.toByteArray()};
  }

  @Test
  void sameSeedSameStreamOtherSeedOtherStream() throws IOException {
    for (boolean json : new boolean[] {false, true}) {
      byte[][] a = run(settings(20_000, 7, json));
      byte[][] b = run(settings(20_000, 7, json));
      byte[][] c = run(settings(20_000, 8, json));
      assertArrayEquals(a[0], b[0]);
      assertArrayEquals(a[1], b[1]);
      assertFalse(Arrays.equals(a[0], c[0]));
    }
  }

  /**
   * Every line canonicalizes (the job's canonicalizer, default rules) to the canonical URL of its
   * truth line, canonical URLs are fixed points, and "first" holds exactly for the first occurrence
   * of a canonical URL. Distinct pages never share a canonical URL: the number of distinct
   * canonical URLs equals the number of "first" lines.
   */
  @Test
  void truthMatchesTheCanonicalizer() throws Exception {
    truthHolds(settings(30_000, 3, false), false);
  }

  /** The same for --messy, text and JSON, and the messy stream has every kind of mess. */
  @Test
  void messyTruthMatchesTheCanonicalizer() throws Exception {
    for (boolean json : new boolean[] {false, true}) {
      CrawlStreamGenerator.Settings s =
          CrawlStreamGenerator.parse(
              new String[] {
                "--lines", "30000", "--seed", "4", "--format", json ? "json" : "text", "--messy"
              });
      List<String> lines = truthHolds(s, json);
      String all = String.join("\n", lines);
      for (String mess :
          new String[] {
            "HTTP",
            "@",
            "xn--",
            "10.",
            "[2001:",
            ":8080",
            "%2d",
            "%c3%a9",
            "/./",
            "/../",
            "//",
            "&empty=&",
            "#",
            ".:",
            "0x",
            " "
          }) {
        assertTrue(all.contains(mess), (json ? "json" : "text") + " stream lacks " + mess);
      }
      if (!json) {
        for (String mess : new String[] {"\t", "\\", "ü"}) {
          assertTrue(all.contains(mess), "text stream lacks " + mess);
        }
      }
    }
  }

  private static List<String> truthHolds(CrawlStreamGenerator.Settings s, boolean json)
      throws Exception {
    UrlCanonicalizer canonicalizer = UrlCanonicalizer.defaults();
    byte[][] r = run(s);
    List<String> lines = lines(r[0]);
    List<String> truth = lines(r[1]);
    assertEquals(s.lines(), lines.size());
    assertEquals(lines.size(), truth.size());
    Set<String> seen = new HashSet<>();
    int variants = 0;
    for (int i = 0; i < lines.size(); i++) {
      String[] t = truth.get(i).split("\t", 2);
      String canonical = t[1];
      String line = lines.get(i);
      String url = json ? line.substring(8, line.indexOf("\",\"source\"")) : line;
      try {
        assertEquals(canonical, canonicalizer.canonicalize(url), "line " + (i + 1) + ": " + url);
        assertEquals(
            canonical,
            canonicalizer.canonicalize(canonical),
            "canonical is not a fixed point: " + canonical);
      } catch (UrlRejectedException e) {
        throw new AssertionError("line " + (i + 1) + ": " + url + " rejected: " + e.detail());
      }
      assertEquals(
          seen.add(canonical), t[0].equals("first"), "line " + (i + 1) + ": " + truth.get(i));
      if (!url.equals(canonical)) {
        variants++;
      }
    }
    // --variants 0.3: binomial, 5 sigma = 5 sqrt(0.3 * 0.7 / 30000) = 0.013
    assertEquals(0.3, variants / 30_000.0, 0.013);
    return lines;
  }

  @Test
  void jsonLinesCarryTheSameUrls() throws IOException {
    List<String> text = lines(run(settings(2_000, 11, false))[0]);
    List<String> json = lines(run(settings(2_000, 11, true))[0]);
    assertEquals(text.size(), json.size());
    for (int i = 0; i < text.size(); i++) {
      String j = json.get(i);
      assertTrue(j.startsWith("{\"url\":\"") && j.endsWith("\"}"), j);
      assertTrue(
          j.contains("\"source\":\"http")
              && j.contains("\"depth\":")
              && j.contains("\"anchor\":\""),
          j);
      String url = j.substring(8, j.indexOf('"', 8));
      // the JSON stream draws one extra number per line (anchor), so compare the page, not the
      // variant
      assertTrue(url.startsWith("http://") || url.startsWith("https://"), url);
    }
  }

  /**
   * Repeat fraction: a line is a first occurrence with probability p = unique/lines (Bernoulli), so
   * the first count is Binomial(N, p); 5 sigma = 5 sqrt(N p (1-p)). Temporal locality: repeats
   * drawn from the window (probability 1 - longRange - nav at least, nav repeats are intra-host
   * too) have their previous occurrence within --window lines.
   */
  @Test
  void repeatFractionAndLocality() throws IOException {
    long n = 200_000;
    long unique = 50_000;
    CrawlStreamGenerator.Settings s =
        CrawlStreamGenerator.parse(
            new String[] {
              "--lines", Long.toString(n), "--unique-target", Long.toString(unique), "--seed", "5"
            });
    List<String> truth = lines(run(s)[1]);
    Map<String, Integer> last = new HashMap<>();
    long firsts = 0;
    long repeats = 0;
    long near = 0;
    for (int i = 0; i < truth.size(); i++) {
      String line = truth.get(i);
      String canonical = line.substring(line.indexOf('\t') + 1);
      Integer prev = last.put(canonical, i);
      if (line.startsWith("first")) {
        firsts++;
      } else {
        repeats++;
        if (i - prev <= s.window()) {
          near++;
        }
      }
    }
    double p = (double) unique / n;
    double sigma = Math.sqrt(n * p * (1 - p));
    assertEquals(unique, firsts, 5 * sigma, "first occurrences");
    double minNear = 1 - s.longRange() - s.nav();
    double sigmaNear = Math.sqrt(minNear * (1 - minNear) / repeats);
    assertTrue(
        near / (double) repeats >= minNear - 5 * sigmaNear,
        "repeats within the window: " + near / (double) repeats + " < " + minNear);
  }

  /** P(rank 1) = 1 / H(n, s), H the generalized harmonic number; binomial 5 sigma. */
  @Test
  void zipfRankOneFrequency() {
    long n = 1000;
    double s = 1.1;
    double harmonic = 0;
    for (long k = 1; k <= n; k++) {
      harmonic += Math.pow(k, -s);
    }
    double p1 = 1 / harmonic;
    double p2 = Math.pow(2, -s) / harmonic;
    ZipfSampler z = new ZipfSampler(n, s);
    SplitMix64 rnd = new SplitMix64(42);
    int draws = 200_000;
    int ones = 0;
    int twos = 0;
    for (int i = 0; i < draws; i++) {
      long k = z.sample(rnd::nextDouble);
      assertTrue(k >= 1 && k <= n);
      if (k == 1) {
        ones++;
      } else if (k == 2) {
        twos++;
      }
    }
    assertEquals(p1, ones / (double) draws, 5 * Math.sqrt(p1 * (1 - p1) / draws));
    assertEquals(p2, twos / (double) draws, 5 * Math.sqrt(p2 * (1 - p2) / draws));
  }

  /**
   * 10^6 lines in a JVM with a 32 MB heap: the state is the window, the reservoir, a byte per host.
   */
  @Test
  void boundedMemory() throws Exception {
    Path dir = Files.createTempDirectory(Path.of(System.getProperty("java.io.tmpdir")), "gen");
    Path out = dir.resolve("out.txt");
    Path truth = dir.resolve("truth.txt");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                "-Xmx32m",
                "-cp",
                System.getProperty("java.class.path"),
                CrawlStreamGenerator.class.getName(),
                "--lines",
                "1000000",
                "--seed",
                "9",
                "--output",
                out.toString(),
                "--truth",
                truth.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("log.txt").toFile())
            .start();
    assertTrue(p.waitFor(90, TimeUnit.SECONDS), "generator did not finish in 90 s");
    String log = Files.readString(dir.resolve("log.txt"));
    assertEquals(0, p.exitValue(), log);
    System.out.println(log);
    assertEquals(1_000_000, countLines(out.toFile()));
    assertEquals(1_000_000, countLines(truth.toFile()));
  }

  @Test
  void flagErrorsNameTheFlag() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CrawlStreamGenerator.parse(new String[] {"--format", "xml"}));
    assertTrue(
        e.getMessage().contains("--format") && e.getMessage().contains("text, json"),
        e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                CrawlStreamGenerator.parse(
                    new String[] {"--lines", "10", "--unique-target", "20"}));
    assertTrue(e.getMessage().contains("--unique-target"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CrawlStreamGenerator.parse(new String[] {"--lines", "ten"}));
    assertTrue(e.getMessage().contains("--lines"), e.getMessage());
  }

  private static List<String> lines(byte[] bytes) {
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8).lines().toList();
  }

  private static long countLines(File f) throws IOException {
    try (var lines = Files.lines(f.toPath())) {
      return lines.count();
    }
  }
}
