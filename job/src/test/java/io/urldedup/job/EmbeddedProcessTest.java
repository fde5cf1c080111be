package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded mode as a process ({@code UrlDedupJob.main}, as the launcher runs it, with the
 * launcher's logging): stdin from a real slow producer, Ctrl-C and SIGTERM, stdout that cannot be
 * written ({@code > /dev/full}, a reader that goes away as {@code | head -2} does). After each of
 * these exits the process's java.io.tmpdir is empty, and an error is its one line on stderr.
 *
 * <p>Timing: the producer waits for each URL to come out before it sends the next (at least {@value
 * #SPACING_MS} ms apart), so a source that read stdin to its end before emitting would emit nothing
 * and fail the test, however loaded the machine. The latencies are printed; the bound on them
 * ({@value #LATENCY_BOUND_MS} ms) allows for a machine running eight builds at once (stdout is
 * written at once: about 0.2 s here when idle, see the README).
 */
class EmbeddedProcessTest {

  static final int LINES = 12;
  static final long SPACING_MS = 300;
  static final long LATENCY_BOUND_MS = 30_000;

  /** Cluster start of a fresh JVM under load. */
  static final long START_BOUND_S = 180;

  @TempDir Path dir;

  /**
   * The job's main in a JVM of its own; {@code resetInt}: SIGINT not ignored ({@link
   * LauncherJvm#sigintDefault}).
   */
  ProcessBuilder job(boolean resetInt, String... flags) throws IOException {
    List<String> args =
        new ArrayList<>(List.of("run", "--hash-seed", "0x6a09e667f3bcc908", "--parallelism", "1"));
    args.addAll(List.of(flags));
    List<String> cmd = LauncherJvm.command(tmp(), "512m", args);
    return new ProcessBuilder(resetInt ? LauncherJvm.sigintDefault(cmd) : cmd)
        .redirectError(dir.resolve("stderr.txt").toFile());
  }

  /** The process's java.io.tmpdir. */
  Path tmp() {
    return dir.resolve("tmp");
  }

  /**
   * Every exit that runs code leaves nothing in java.io.tmpdir (Flink's RPC jar alone is 21 MB).
   */
  @AfterEach
  void nothingLeftInTmpdir() throws IOException {
    if (Files.isDirectory(tmp())) {
      assertEquals(List.of(), LauncherJvm.leftovers(tmp()), "left in java.io.tmpdir");
    }
  }

  /**
   * {@code java ... UrlDedupJob}, as the launcher starts it (its opens, its logging), with {@code
   * tmp} as java.io.tmpdir.
   */
  static List<String> main(Path tmp) throws IOException {
    return LauncherJvm.command(tmp, "512m", List.of());
  }

  String stderr() throws IOException {
    return Files.readString(dir.resolve("stderr.txt"));
  }

  /** stdout lines with their arrival time, read on a thread of their own. */
  static LinkedBlockingQueue<long[]> arrivals(Process p, List<String> lines) {
    LinkedBlockingQueue<long[]> q = new LinkedBlockingQueue<>();
    Thread t =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                  synchronized (lines) {
                    lines.add(l);
                  }
                  q.add(new long[] {System.nanoTime(), lines.size()});
                }
              } catch (IOException ignored) {
                // the process ended
              }
            },
            "stdout-reader");
    t.setDaemon(true);
    t.start();
    return q;
  }

  static void send(OutputStream stdin, String line) throws IOException {
    stdin.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    stdin.flush();
  }

  /**
   * {@code (for i in $(seq 1 12); do echo http://a.com/$i; sleep ...; done) | urldedup run --input
   * - --output - --checkpoint-interval 1s}: each URL comes out while the producer is still there;
   * then SIGTERM (the pipe still open) ends the run with the summary, exit 0.
   */
  @Test
  @Timeout(600)
  void stdinIsAStreamAndSigtermEndsItWithTheSummary() throws Exception {
    Process p = job(false, "--input", "-", "--output", "-", "--checkpoint-interval", "1s").start();
    List<String> out = new ArrayList<>();
    LinkedBlockingQueue<long[]> q = arrivals(p, out);
    List<Long> latencies = new ArrayList<>();
    try (OutputStream stdin = p.getOutputStream()) {
      for (int i = 1; i <= LINES; i++) {
        long sent = System.nanoTime();
        send(stdin, "http://a.com/" + i);
        long[] a = q.poll(i == 1 ? START_BOUND_S : LATENCY_BOUND_MS / 1000, TimeUnit.SECONDS);
        assertNotNull(
            a, "http://a.com/" + i + " not written while the producer waits; stderr:\n" + stderr());
        latencies.add((a[0] - sent) / 1_000_000);
        Thread.sleep(Math.max(0, SPACING_MS - (System.nanoTime() - sent) / 1_000_000));
      }
      List<String> expected = new ArrayList<>();
      for (int i = 1; i <= LINES; i++) {
        expected.add("http://a.com/" + i);
      }
      synchronized (out) {
        assertEquals(expected, out, "in input order at --parallelism 1");
      }
      System.out.println(
          "stdin -> stdout latencies (ms; the first includes the cluster start): " + latencies);
      for (long l : latencies.subList(1, latencies.size())) {
        assertTrue(l <= LATENCY_BOUND_MS, "latency " + l + " ms: " + latencies);
      }
      p.destroy(); // SIGTERM, the producer still connected
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "no exit 120 s after SIGTERM");
    } finally {
      p.destroyForcibly();
    }
    String err = stderr();
    assertEquals(0, p.exitValue(), err);
    assertTrue(err.contains("urldedup: SIGTERM: ending the input"), err);
    assertTrue(err.contains("urldedup: in=12 emitted=12 duplicates=0 invalid=0 forced=0\n"), err);
    assertTrue(err.contains("urldedup: the input was ended by SIGTERM after 12 lines\n"), err);
  }

  /** Ctrl-C (SIGINT) while the producer is quiet: the lines read are processed, summary, exit 0. */
  @Test
  @Timeout(600)
  void sigintEndsTheInputWithTheSummary() throws Exception {
    Process p = job(true, "--input", "-", "--output", "-").start();
    List<String> out = new ArrayList<>();
    LinkedBlockingQueue<long[]> q = arrivals(p, out);
    try (OutputStream stdin = p.getOutputStream()) {
      send(stdin, "http://a.com/1");
      assertNotNull(q.poll(START_BOUND_S, TimeUnit.SECONDS), stderr());
      send(stdin, "http://a.com/2");
      assertNotNull(q.poll(LATENCY_BOUND_MS, TimeUnit.MILLISECONDS), stderr());
      Process kill =
          new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).inheritIO().start();
      assertEquals(0, kill.waitFor());
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "no exit 120 s after SIGINT");
    } finally {
      p.destroyForcibly();
    }
    String err = stderr();
    assertEquals(0, p.exitValue(), err);
    assertTrue(err.contains("urldedup: in=2 emitted=2 duplicates=0 invalid=0 forced=0\n"), err);
    assertTrue(err.contains("urldedup: the input was ended by SIGINT after 2 lines\n"), err);
  }

  /**
   * SIGTERM while a file is read as two byte ranges at once (the scalable filter at --parallelism
   * 2, a file over 2 x {@link LineFileSource#MIN_RANGE_BYTES}): the lines read are a prefix of each
   * range, not the first N, and the message says which (before: {@code after N lines}). They are
   * exactly the lines whose URLs were emitted (one distinct URL per line, holding its line number;
   * {@code --fpr 1e-9}). The test stops reading stdout before the signal, so the job is held by
   * backpressure in the middle of both ranges however fast the machine.
   */
  @Test
  @Timeout(600)
  void sigtermDuringParallelRangesSaysWhichLinesWereRead() throws Exception {
    int n = 110_000;
    Path in = dir.resolve("big.txt");
    String pad = "x".repeat(300);
    try (java.io.BufferedWriter w = Files.newBufferedWriter(in, StandardCharsets.US_ASCII)) {
      for (int i = 1; i <= n; i++) {
        w.write("http://h" + (i % 53) + ".example/" + i + "?pad=" + pad + "\n");
      }
    }
    assertTrue(Files.size(in) > 2 * LineFileSource.MIN_RANGE_BYTES);
    List<String> cmd = new ArrayList<>(main(dir));
    cmd.addAll(
        List.of(
            "run",
            "--hash-seed",
            "0x6a09e667f3bcc908",
            "--parallelism",
            "2",
            "--fpr",
            "1e-9",
            "--input",
            in.toString(),
            "--output",
            "-"));
    Process p = new ProcessBuilder(cmd).redirectError(dir.resolve("stderr.txt").toFile()).start();
    Set<Integer> emitted = new HashSet<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String first = r.readLine();
      assertNotNull(first, stderr());
      emitted.add(lineOf(first));
      Thread.sleep(3000); // stdout not read: its pipe fills and the job waits, both ranges begun
      // SIGTERM by kill: Process.destroy would also close the stream read below
      Process kill =
          new ProcessBuilder("kill", "-TERM", String.valueOf(p.pid())).inheritIO().start();
      assertEquals(0, kill.waitFor());
      for (String l; (l = r.readLine()) != null; ) {
        emitted.add(lineOf(l));
      }
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "no exit 120 s after SIGTERM");
    } finally {
      p.destroyForcibly();
    }
    String err = stderr();
    assertEquals(143, p.exitValue(), err);
    Matcher m =
        Pattern.compile(
                "urldedup: the input was ended by SIGTERM after"
                    + " (\\d+) lines, read as parallel byte ranges: lines (\\d+)-(\\d+), (\\d+)-(\\d+) \\(not the whole file\\)\n")
            .matcher(err);
    assertTrue(m.find(), err);
    System.out.print("SIGTERM during parallel ranges: " + m.group());
    long read = Long.parseLong(m.group(1));
    int a1 = Integer.parseInt(m.group(2));
    int b1 = Integer.parseInt(m.group(3));
    int a2 = Integer.parseInt(m.group(4));
    int b2 = Integer.parseInt(m.group(5));
    assertEquals(1, a1, err);
    assertTrue(b1 < a2 - 1 && b2 < n, "both ranges cut short: " + err);
    assertEquals(read, (b1 - a1 + 1) + (b2 - a2 + 1), err);
    assertTrue(
        err.contains("urldedup: in=" + read + " emitted=" + read + " duplicates=0 invalid=0"), err);
    Set<Integer> expected = new HashSet<>();
    for (int i = a1; i <= b1; i++) {
      expected.add(i);
    }
    for (int i = a2; i <= b2; i++) {
      expected.add(i);
    }
    assertEquals(expected, emitted, "the lines emitted are the lines the message names");
  }

  /** The line number in {@code http://hK.example/LINE?pad=...}. */
  static int lineOf(String url) {
    int s = url.indexOf('/', "http://".length()) + 1;
    return Integer.parseInt(url.substring(s, url.indexOf('?', s)));
  }

  Path urls(int n) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("http://h").append(i % 97).append(".example/p/").append(i).append('\n');
    }
    return Files.writeString(dir.resolve("in.txt"), b);
  }

  /** {@code --output - > /dev/full}: exit 1 naming the cause, not exit 0 with emitted=N. */
  @Test
  @Timeout(600)
  void stdoutOnAFullDeviceFailsTheRun() throws Exception {
    Process p =
        job(false, "--input", urls(100).toString(), "--output", "-")
            .redirectOutput(new File("/dev/full"))
            .start();
    assertTrue(p.waitFor(START_BOUND_S, TimeUnit.SECONDS));
    String err = stderr();
    assertEquals(1, p.exitValue(), err);
    // the error alone: no failing task's warning and stack trace before it
    assertEquals(
        "urldedup: error: the job failed: --output -: write failed: No space left on device\n",
        err);
  }

  /**
   * {@code --output - | head -2}: the reader leaves after two lines; the next write fails the run.
   */
  @Test
  @Timeout(600)
  void stdoutWhoseReaderLeftFailsTheRun() throws Exception {
    // 2 MB: more than the pipe and the sink buffer hold, so writes go on after the reader left
    Process p = job(false, "--input", urls(50_000).toString(), "--output", "-").start();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      assertNotNull(r.readLine());
      assertNotNull(r.readLine());
    }
    assertTrue(p.waitFor(START_BOUND_S, TimeUnit.SECONDS));
    String err = stderr();
    assertEquals(1, p.exitValue(), err);
    assertEquals("urldedup: error: the job failed: --output -: write failed: Broken pipe\n", err);
  }
}
