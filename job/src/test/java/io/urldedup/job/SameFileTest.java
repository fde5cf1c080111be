package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 item 3: {@code --input}, {@code --output} and {@code --dlq} are compared by identity
 * (device and inode), so a hard link or the file behind stdin cannot make a run truncate its own
 * input or two sinks overwrite each other. Real files and hard links; stdin through a real process
 * whose fd 0 is the file. Every refusal comes before any cluster starts (exit 2, files untouched).
 */
class SameFileTest {

  static final String INPUT = "http://a.com/1\nhttp://a.com/2\n";
  static final String DEAD = "13 dead letters\n";

  @TempDir Path dir;

  static String refused(String... args) throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--hash-seed", "0x6a09e667f3bcc908"));
    int code =
        UrlDedupJob.run(
            all.toArray(String[]::new),
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String m = err.toString(StandardCharsets.UTF_8);
    assertEquals(2, code, List.of(args) + ": " + m);
    assertTrue(m.contains("same file"), m);
    return m;
  }

  /**
   * {@code ln in.txt in.hard; run --input in.txt --output in.hard} (and --dlq, and the other way).
   */
  @Test
  void aHardLinkToTheInputIsRefusedAsOutputOrDlq() throws Exception {
    Path in = Files.writeString(dir.resolve("in.txt"), INPUT);
    Path hard = Files.createLink(dir.resolve("in.hard"), in);
    Path symToHard = Files.createSymbolicLink(dir.resolve("in.sym"), hard);
    Path out = dir.resolve("out.txt");
    for (Path other : List.of(hard, symToHard)) {
      String m = refused("run", "--input", in.toString(), "--output", other.toString());
      assertTrue(m.startsWith("urldedup: error: --output " + other + " and --input " + in), m);
      m =
          refused(
              "run",
              "--input",
              in.toString(),
              "--output",
              out.toString(),
              "--dlq",
              other.toString());
      assertTrue(m.startsWith("urldedup: error: --dlq " + other + " and --input " + in), m);
      m = refused("run", "--input", other.toString(), "--output", in.toString());
      assertTrue(m.startsWith("urldedup: error: --output " + in + " and --input " + other), m);
    }
    refused(
        "bootstrap",
        "--input",
        in.toString(),
        "--state",
        dir.resolve("state").toString(),
        "--dlq",
        hard.toString());
    assertEquals(INPUT, Files.readString(in), "the input is untouched");
    assertFalse(Files.exists(out));
    assertFalse(Files.exists(dir.resolve("state")));
  }

  /** {@code --output o.txt --dlq o.hard} would overwrite the dead letters (or the output). */
  @Test
  void anOutputAndADlqThatAreOneFileAreRefused() throws Exception {
    Path in = Files.writeString(dir.resolve("in.txt"), INPUT);
    Path o = Files.writeString(dir.resolve("o.txt"), DEAD);
    Path hard = Files.createLink(dir.resolve("o.hard"), o);
    String m =
        refused(
            "run", "--input", in.toString(), "--output", o.toString(), "--dlq", hard.toString());
    assertTrue(m.startsWith("urldedup: error: --dlq " + hard + " and --output " + o), m);
    refused("run", "--input", in.toString(), "--output", hard.toString(), "--dlq", o.toString());
    assertEquals(DEAD, Files.readString(o));
  }

  /**
   * {@code run --input - --output f < f}, and {@code --dlq f}: the process's fd 0 is f itself. A
   * real process (fd 0 cannot be redirected inside this JVM); refused before the cluster starts, f
   * untouched.
   */
  @Test
  @Timeout(300)
  void stdinThatIsTheOutputOrDlqFileIsRefused() throws Exception {
    Path f = Files.writeString(dir.resolve("f.txt"), INPUT);
    Path link = Files.createLink(dir.resolve("f.hard"), f);
    Path out = dir.resolve("out.txt");
    for (List<String> flags :
        List.of(
            List.of("--output", f.toString()),
            List.of("--output", link.toString()),
            List.of("--output", out.toString(), "--dlq", f.toString()))) {
      List<String> cmd = new ArrayList<>(EmbeddedProcessTest.main(dir));
      cmd.addAll(List.of("run", "--hash-seed", "0x6a09e667f3bcc908", "--input", "-"));
      cmd.addAll(flags);
      Path err = dir.resolve("stderr.txt");
      Process p =
          new ProcessBuilder(cmd).redirectInput(f.toFile()).redirectError(err.toFile()).start();
      assertTrue(
          p.waitFor(EmbeddedProcessTest.START_BOUND_S, TimeUnit.SECONDS), "no exit: " + flags);
      String m = Files.readString(err);
      assertEquals(2, p.exitValue(), flags + ": " + m);
      String flag = flags.get(flags.size() - 2);
      assertTrue(
          m.startsWith(
              "urldedup: error: "
                  + flag
                  + " "
                  + flags.get(flags.size() - 1)
                  + " and --input - (stdin) are the same file ("
                  + f.toRealPath()
                  + ")"),
          m);
      assertEquals(INPUT, Files.readString(f), "the input is untouched: " + flags);
    }
    assertFalse(Files.exists(out));
  }

  /** Different files, and stdin that is a pipe, still run: only identity refuses. */
  @Test
  void distinctFilesAreAccepted() throws Exception {
    Path in = Files.writeString(dir.resolve("in.txt"), INPUT);
    Path copy = Files.copy(in, dir.resolve("copy.txt"));
    JobConfig c =
        JobConfig.parse(
            new String[] {
              "--input",
              in.toString(),
              "--output",
              copy.toString(),
              "--dlq",
              dir.resolve("d.tsv").toString(),
              "--hash-seed",
              "1"
            });
    Preflight.files(c);
    c =
        JobConfig.parse(
            new String[] {"--input", "-", "--output", "-", "--dlq", "-", "--hash-seed", "1"});
    Preflight.files(c);
  }
}
