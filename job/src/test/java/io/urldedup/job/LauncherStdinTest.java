package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 item 6: the launcher ({@code ./urldedup}) started with stdin closed or write-only.
 * Closed, the JVM's first {@code open()} took fd 0 and {@code run --input -} read that file (the
 * job's own jar) and exited 0. The launcher refuses both with exit 2 before it opens anything
 * (before it would build the jar or start Java, so these runs take no build). A real process: fd 0
 * is closed by the shell that execs the launcher, as {@code <&-} does on a command line.
 */
class LauncherStdinTest {

  static final Path LAUNCHER = Path.of("..", "urldedup").toAbsolutePath().normalize();

  @TempDir Path dir;

  /**
   * {@code bash -c 'exec ./urldedup run --input - --output OUT REDIRECT'} exits 2 with {@code
   * message} alone on stderr, and writes nothing.
   */
  void refused(String redirect, String message) throws Exception {
    Path out = dir.resolve("out.txt");
    Path err = dir.resolve("stderr.txt");
    Process p =
        new ProcessBuilder(
                List.of(
                    "bash",
                    "-c",
                    "exec \"$0\" run --input - --output \"$1\" " + redirect,
                    LAUNCHER.toString(),
                    out.toString()))
            .redirectError(err.toFile())
            .start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher did not exit");
    assertFalse(Files.exists(out), "nothing was written");
    assertEquals("urldedup: error: " + message + "\n", Files.readString(err));
    assertEquals(2, p.exitValue());
  }

  @Test
  @Timeout(120)
  void closedStdinIsRefused() throws Exception {
    refused(
        "<&-",
        "stdin (fd 0) is closed; start urldedup with stdin open (a pipe, a file, or < /dev/null)");
  }

  @Test
  @Timeout(120)
  void writeOnlyStdinIsRefused() throws Exception {
    refused(
        "0>\"$1.w\"",
        "stdin (fd 0) is open for writing only; start urldedup with stdin readable (a pipe, a"
            + " file, or < /dev/null)");
  }
}
