package io.urldedup.job;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@link UrlDedupJob#main} in a JVM of its own, as {@code ./urldedup} starts it: Flink's Java 17
 * opens, the launcher's logging (job/src/main/launcher/log4j2-cli.properties), a heap of its own,
 * and a private {@code java.io.tmpdir} whose leftovers a test can list.
 */
final class LauncherJvm {

  private LauncherJvm() {}

  /** The java command running {@code UrlDedupJob args...} with {@code tmpdir} as java.io.tmpdir. */
  static List<String> command(Path tmpdir, String heap, List<String> args) throws IOException {
    Files.createDirectories(tmpdir);
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-opens") || a.startsWith("--add-exports")) {
        cmd.add(a);
      }
    }
    cmd.addAll(
        List.of(
            "-Xmx" + heap,
            "-XX:+ExitOnOutOfMemoryError",
            "-Djava.io.tmpdir=" + tmpdir,
            "-Dlog4j.configurationFile="
                + Path.of("src/main/launcher/log4j2-cli.properties").toAbsolutePath(),
            "-cp",
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            UrlDedupJob.class.getName()));
    cmd.addAll(args);
    return cmd;
  }

  /**
   * {@code cmd} with SIGINT at its default: a process started in the background of a
   * non-interactive shell (as this test JVM may be) inherits SIGINT ignored, and the JVM then
   * cannot handle it; a terminal's Ctrl-C reaches a foreground process with SIGINT at its default.
   */
  static List<String> sigintDefault(List<String> cmd) {
    List<String> out =
        new ArrayList<>(
            List.of("perl", "-e", "$SIG{INT} = 'DEFAULT'; exec @ARGV or die \"exec: $!\""));
    out.addAll(cmd);
    return out;
  }

  /** What is left in {@code tmpdir}: nothing, after any exit that can run code. */
  static List<String> leftovers(Path tmpdir) throws IOException {
    try (Stream<Path> s = Files.list(tmpdir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  /** Sends {@code signal} (INT, TERM, KILL) to {@code p}. */
  static void kill(Process p, String signal) throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + signal + " " + p.pid() + " failed");
    }
  }

  /**
   * stderr lines that are a stack trace's ({@code \tat ...}, {@code Caused by:}, {@code ... N
   * more}).
   */
  static List<String> traceLines(String stderr) {
    return stderr
        .lines()
        .filter(
            l ->
                l.startsWith("\tat ")
                    || l.startsWith("Caused by:")
                    || l.matches("\\s*\\.\\.\\. \\d+ more"))
        .toList();
  }
}
