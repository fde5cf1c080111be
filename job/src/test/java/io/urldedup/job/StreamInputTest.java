package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 item 11: an input that cannot seek (a named pipe, {@code <(cmd)}, {@code /dev/stdin} of
 * a pipe) is read as a stream, as stdin is, by {@code run} and {@code bootstrap}; before, the
 * reader seeked ({@code IOException: Illegal seek}). Real FIFOs made by {@code mkfifo}, fed by a
 * writer thread; {@code <(cmd)} and {@code /dev/stdin} through a real process.
 */
class StreamInputTest {

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(2);

  static final String SEED = "0x6a09e667f3bcc908";
  static final int URLS = 3000;

  @TempDir Path dir;

  /** {@value #URLS} distinct URLs, every third one twice, and one line that is no URL. */
  static List<String> lines() {
    List<String> l = new ArrayList<>();
    for (int i = 0; i < URLS; i++) {
      l.add("http://h" + (i % 31) + ".example/p/" + i);
      if (i % 3 == 0) {
        l.add("HTTP://h" + (i % 31) + ".example:80/p/" + i);
      }
      if (i == URLS / 2) {
        l.add("not a url");
      }
    }
    return l;
  }

  static final int LINES = URLS + URLS / 3 + 1;

  Path fifo(String name) throws Exception {
    Path p = dir.resolve(name);
    Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
    assertEquals(0, mk.waitFor());
    return p;
  }

  /**
   * Writes the lines into the FIFO once a reader opened it (open() waits for one), then closes it.
   */
  static CompletableFuture<Void> feed(Path fifo, List<String> lines) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread t =
        new Thread(
            () -> {
              try (OutputStream o = new FileOutputStream(fifo.toFile())) {
                for (String l : lines) {
                  o.write((l + "\n").getBytes(StandardCharsets.US_ASCII));
                }
                done.complete(null);
              } catch (IOException e) {
                done.completeExceptionally(e);
              }
            },
            "fifo-writer");
    t.setDaemon(true); // a run that never opens the FIFO must not keep the JVM
    t.start();
    return done;
  }

  static String cli(String... args) throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(args, System.out, new PrintStream(err, true, StandardCharsets.UTF_8));
    String e = err.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, e);
    return e;
  }

  static TreeSet<String> expectedUrls() {
    TreeSet<String> s = new TreeSet<>();
    for (int i = 0; i < URLS; i++) {
      s.add("http://h" + (i % 31) + ".example/p/" + i);
    }
    return s;
  }

  /**
   * At --parallelism 2: a stream has one reader whatever the parallelism (it has no byte ranges).
   */
  @Test
  @Timeout(180)
  void runReadsANamedPipe() throws Exception {
    Path fifo = fifo("in.fifo");
    CompletableFuture<Void> fed = feed(fifo, lines());
    Path out = dir.resolve("out.txt");
    String err =
        cli(
            "run",
            "--input",
            fifo.toString(),
            "--output",
            out.toString(),
            "--dlq",
            dir.resolve("dlq.tsv").toString(),
            "--parallelism",
            "2",
            "--fpr",
            "1e-6",
            "--hash-seed",
            SEED);
    fed.get(10, TimeUnit.SECONDS);
    assertEquals(
        "urldedup: in="
            + LINES
            + " emitted="
            + URLS
            + " duplicates="
            + (URLS / 3)
            + " invalid=1 forced=0\nurldedup: invalid by reason: relative_url=1\n",
        err);
    assertEquals(expectedUrls(), new TreeSet<>(Files.readAllLines(out)));
    assertEquals(
        List.of(
            "relative_url\tno scheme: a relative reference (absolute http or https URLs only)\t"
                + fifo
                + ":"
                + (URLS / 2 + URLS / 6 + 3)
                + "\tnot a url"),
        Files.readAllLines(dir.resolve("dlq.tsv")));
  }

  @Test
  @Timeout(180)
  void bootstrapReadsANamedPipe() throws Exception {
    Path fifo = fifo("in.fifo");
    CompletableFuture<Void> fed = feed(fifo, lines());
    Path state = dir.resolve("state");
    String err =
        cli(
            "bootstrap",
            "--input",
            fifo.toString(),
            "--state",
            state.toString(),
            "--fpr",
            "1e-6",
            "--hash-seed",
            SEED);
    fed.get(10, TimeUnit.SECONDS);
    assertTrue(
        err.contains(
            "urldedup: bootstrap: in="
                + LINES
                + " recorded="
                + URLS
                + " duplicates="
                + (URLS / 3)
                + " invalid=1 forced=0 ("),
        err);

    // the state holds them: a run of the same URLs from a second pipe emits none
    Path again = fifo("again.fifo");
    CompletableFuture<Void> fedAgain = feed(again, lines());
    Path out = dir.resolve("out.txt");
    String run =
        cli(
            "run",
            "--input",
            again.toString(),
            "--output",
            out.toString(),
            "--state",
            state.toString(),
            "--fpr",
            "1e-6",
            "--hash-seed",
            SEED);
    fedAgain.get(10, TimeUnit.SECONDS);
    assertTrue(
        run.contains(
            "urldedup: in=" + LINES + " emitted=0 duplicates=" + (LINES - 1) + " invalid=1"),
        run);
    assertEquals(0, Files.size(out));
  }

  /**
   * {@code run --input <(cmd)} and {@code run --input /dev/stdin} (stdin a pipe), as a shell starts
   * them: the JVM is given the path of a pipe.
   */
  @Test
  @Timeout(600)
  void processSubstitutionAndDevStdinAreStreams() throws Exception {
    Path src = dir.resolve("urls.txt");
    Files.write(src, lines(), StandardCharsets.US_ASCII);
    for (String input : List.of("<(cat \"$1\")", "/dev/stdin")) {
      Path out = dir.resolve("out.txt");
      Path errFile = dir.resolve("stderr.txt");
      List<String> java = new ArrayList<>(EmbeddedProcessTest.main(dir));
      java.addAll(
          List.of(
              "run",
              "--hash-seed",
              SEED,
              "--fpr",
              "1e-6",
              "--parallelism",
              "2",
              "--output",
              out.toString()));
      StringBuilder script = new StringBuilder("exec");
      for (String a : java) {
        script.append(" '").append(a.replace("'", "'\\''")).append('\'');
      }
      script
          .append(" --input ")
          .append(input)
          .append(input.equals("/dev/stdin") ? " < <(cat \"$1\")" : "");
      Process p =
          new ProcessBuilder("bash", "-c", script.toString(), "bash", src.toString())
              .redirectError(errFile.toFile())
              .start();
      assertTrue(p.waitFor(EmbeddedProcessTest.START_BOUND_S, TimeUnit.SECONDS), input);
      String err = Files.readString(errFile);
      assertEquals(0, p.exitValue(), input + ": " + err);
      assertTrue(
          err.contains(
              "urldedup: in="
                  + LINES
                  + " emitted="
                  + URLS
                  + " duplicates="
                  + (URLS / 3)
                  + " invalid=1 forced=0\n"),
          input + ": " + err);
      assertEquals(expectedUrls(), new TreeSet<>(Files.readAllLines(out)), input);
    }
  }
}
