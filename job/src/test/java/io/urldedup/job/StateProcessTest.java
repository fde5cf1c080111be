package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.stateops.StateLocation;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code run --state} and {@code bootstrap} as processes ({@code ./urldedup}): state far over
 * Flink's in-memory limit saved and restored, one writer per state directory at a time (a second is
 * refused naming the first, a lock left by a {@code kill -9}ed run is taken over), a refused
 * restore and a second Ctrl-C as the user sees them, and nothing left in {@code java.io.tmpdir}
 * after any of these exits.
 */
class StateProcessTest {

  static final String SEED = "0x6a09e667f3bcc908";

  /** Cluster start and a run of a few URLs in a fresh JVM under load. */
  static final long RUN_BOUND_S = 240;

  @TempDir Path dir;

  /** Each process's stderr file. */
  private final Map<Process, Path> stderr = new HashMap<>();

  /** A launcher process; stdout a pipe if {@code stdoutPipe}, else discarded; stderr to a file. */
  Process start(Path tmp, boolean stdoutPipe, boolean sigintDefault, String... args)
      throws IOException {
    return start(tmp, "512m", stdoutPipe, sigintDefault, args);
  }

  Process start(Path tmp, String heap, boolean stdoutPipe, boolean sigintDefault, String... args)
      throws IOException {
    List<String> a = new ArrayList<>(List.of(args));
    a.addAll(List.of("--hash-seed", SEED, "--parallelism", "1"));
    List<String> cmd = LauncherJvm.command(tmp, heap, a);
    Path err = dir.resolve("stderr-" + (stderr.size() + 1) + ".txt");
    ProcessBuilder b =
        new ProcessBuilder(sigintDefault ? LauncherJvm.sigintDefault(cmd) : cmd)
            .redirectError(err.toFile());
    if (!stdoutPipe) {
      b.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    }
    Process p = b.start();
    stderr.put(p, err);
    return p;
  }

  String stderr(Process p) throws IOException {
    return Files.readString(stderr.get(p));
  }

  /** Runs to the end; returns its stderr, asserting the exit code. */
  String finish(Process p, int expectedCode) throws Exception {
    assertTrue(p.waitFor(RUN_BOUND_S, TimeUnit.SECONDS), "no exit within " + RUN_BOUND_S + " s");
    String err = stderr(p);
    assertEquals(expectedCode, p.exitValue(), err);
    return err;
  }

  Path urls(String name, String prefix, int n) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("https://h")
          .append(i % 13)
          .append(".example/")
          .append(prefix)
          .append('/')
          .append(i)
          .append('\n');
    }
    return Files.writeString(dir.resolve(name), b);
  }

  /** Waits until {@code p} holds the lock on {@code state} (the lock file names it). */
  static void awaitLock(Process p, Path state) throws Exception {
    Path file = state.resolve(StateDirLock.FILE);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUN_BOUND_S);
    while (!(Files.exists(file) && Files.readString(file).contains("pid=" + p.pid() + "\n"))) {
      assertTrue(p.isAlive(), "the holder exited");
      assertTrue(System.nanoTime() < deadline, "no lock taken");
      Thread.sleep(100);
    }
  }

  static void send(OutputStream stdin, String line) throws IOException {
    stdin.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    stdin.flush();
  }

  /**
   * A run reading stdin holds DIR: a second run and a bootstrap into DIR exit 2 naming its pid and
   * start time, and leave nothing; once it has saved, the second run goes through and restores it.
   */
  @Test
  @Timeout(900)
  void aSecondWriterIsRefusedNamingTheHolder() throws Exception {
    Path tmp = dir.resolve("tmp");
    Path holderTmp = dir.resolve("holder-tmp");
    Path state = dir.resolve("state");
    Process holder =
        start(
            holderTmp,
            false,
            false,
            "run",
            "--input",
            "-",
            "--output",
            dir.resolve("holder.out").toString(),
            "--state",
            state.toString());
    try (OutputStream stdin = holder.getOutputStream()) {
      awaitLock(holder, state);
      String started = holder.info().startInstant().map(Instant::toString).orElseThrow();
      String expected =
          "urldedup: error: --state "
              + state
              + " is in use by another urldedup command (pid "
              + holder.pid()
              + ", started "
              + started
              + ", run): ";

      Path day2 = urls("day2.txt", "a", 50);
      String err =
          finish(
              start(
                  tmp,
                  false,
                  false,
                  "run",
                  "--input",
                  day2.toString(),
                  "--output",
                  dir.resolve("refused.out").toString(),
                  "--state",
                  state.toString()),
              2);
      assertEquals(1, err.lines().count(), err);
      assertTrue(err.startsWith(expected), err);
      assertFalse(Files.exists(dir.resolve("refused.out")), "a refused run wrote its output");

      err =
          finish(
              start(
                  tmp,
                  false,
                  false,
                  "bootstrap",
                  "--input",
                  day2.toString(),
                  "--state",
                  state.toString()),
              2);
      assertTrue(err.startsWith(expected), err);
      assertEquals(
          List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir by the refused commands");

      for (int i = 0; i < 10; i++) {
        send(stdin, "https://h" + (i % 13) + ".example/a/" + i);
      }
    }
    String err = finish(holder, 0);
    assertTrue(err.contains("urldedup: state saved to " + state), err);
    assertEquals(
        List.of(), LauncherJvm.leftovers(holderTmp), "left in java.io.tmpdir by the holder");
    assertEquals(10, Files.readAllLines(dir.resolve("holder.out")).size());

    // DIR is free again: the second run restores the holder's state (the first 10 are seen)
    Path day2 = dir.resolve("day2.txt");
    finish(
        start(
            tmp,
            false,
            false,
            "run",
            "--input",
            day2.toString(),
            "--output",
            dir.resolve("day2.out").toString(),
            "--state",
            state.toString()),
        0);
    assertEquals(40, Files.readAllLines(dir.resolve("day2.out")).size());
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }

  /**
   * The lock file of a run killed with SIGKILL stays, but its lock died with the process: the next
   * run takes it over and restores the last complete savepoint.
   */
  @Test
  @Timeout(900)
  void theLockOfAKilledRunIsTakenOver() throws Exception {
    Path state = dir.resolve("state");
    Path tmp = dir.resolve("tmp");
    Path day1 = urls("day1.txt", "a", 30);
    finish(
        start(
            tmp,
            false,
            false,
            "run",
            "--input",
            day1.toString(),
            "--output",
            dir.resolve("day1.out").toString(),
            "--state",
            state.toString()),
        0);

    // SIGKILL runs no code: what it leaves in its java.io.tmpdir is its own (a tmpdir of its own
    // here)
    Process killed =
        start(
            dir.resolve("killed-tmp"),
            false,
            false,
            "run",
            "--input",
            "-",
            "--output",
            dir.resolve("killed.out").toString(),
            "--state",
            state.toString());
    try (OutputStream stdin = killed.getOutputStream()) {
      awaitLock(killed, state);
      LauncherJvm.kill(killed, "KILL");
      assertTrue(killed.waitFor(60, TimeUnit.SECONDS));
    }
    assertTrue(
        Files.readString(state.resolve(StateDirLock.FILE)).contains("pid=" + killed.pid() + "\n"),
        "the killed run's lock file is gone: nothing to take over");

    Path day2 = urls("day2.txt", "a", 60);
    String err =
        finish(
            start(
                tmp,
                false,
                false,
                "run",
                "--input",
                day2.toString(),
                "--output",
                dir.resolve("day2.out").toString(),
                "--state",
                state.toString()),
            0);
    assertTrue(err.contains("urldedup: state saved to " + state), err);
    assertEquals(
        30, Files.readAllLines(dir.resolve("day2.out")).size(), "day 1's 30 URLs were restored");
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }

  /** A restore with another --shards: exit 2, the one line naming the flag, nothing left. */
  @Test
  @Timeout(900)
  void aRefusedRestoreIsOneLineAndLeavesNothing() throws Exception {
    Path state = dir.resolve("state");
    Path tmp = dir.resolve("tmp");
    Path day1 = urls("day1.txt", "a", 30);
    finish(
        start(
            tmp,
            false,
            false,
            "run",
            "--input",
            day1.toString(),
            "--output",
            dir.resolve("day1.out").toString(),
            "--state",
            state.toString()),
        0);
    String err =
        finish(
            start(
                tmp,
                false,
                false,
                "run",
                "--input",
                day1.toString(),
                "--output",
                dir.resolve("day2.out").toString(),
                "--state",
                state.toString(),
                "--shards",
                "64"),
            2);
    assertEquals(1, err.lines().count(), err);
    assertTrue(err.startsWith("urldedup: error: restored state of shard "), err);
    assertTrue(
        err.contains("state was written with --shards 128 but this job has --shards 64"), err);
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }

  /**
   * Ctrl-C twice while the state is being saved: the process exits at once (130), says that the
   * state was not saved, and leaves nothing in java.io.tmpdir; DIR holds no savepoint.
   */
  @Test
  @Timeout(900)
  void aSecondCtrlCSaysTheStateWasNotSaved() throws Exception {
    Path state = dir.resolve("state");
    Path tmp = dir.resolve("tmp");
    // 60,000 URLs in a 256 MiB stable filter on RocksDB: a savepoint of about 160 MB, seconds to
    // write, so that the second signal comes while it is written
    int n = 60_000;
    Process p =
        start(
            tmp,
            true,
            true,
            "run",
            "--input",
            "-",
            "--output",
            "-",
            "--state",
            state.toString(),
            "--filter",
            "stable",
            "--memory",
            "256m",
            "--state-backend",
            "rocksdb");
    try (OutputStream stdin = p.getOutputStream();
        BufferedReader out =
            new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      stdin.write(Files.readAllBytes(urls("in.txt", "p", n)));
      stdin.flush();
      for (int i = 0; i < n; i++) {
        assertTrue(out.readLine() != null, "output ended after " + i + " lines: " + stderr(p));
      }
      LauncherJvm.kill(p, "INT");
      // two signals sent at once are one to the process (a pending signal is not queued twice)
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!stderr(p).contains("urldedup: SIGINT: ending the input")) {
        assertTrue(System.nanoTime() < deadline, "the first SIGINT was not handled: " + stderr(p));
        Thread.sleep(10);
      }
      LauncherJvm.kill(p, "INT");
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "no exit 120 s after the second SIGINT");
    } finally {
      p.destroyForcibly();
    }
    String err = stderr(p);
    assertEquals(130, p.exitValue(), err);
    assertTrue(err.contains("urldedup: SIGINT again: exiting at once\n"), err);
    assertTrue(
        err.contains("urldedup: the state was not saved: " + state + " holds no state\n"), err);
    assertFalse(err.contains("state saved to"), err);
    assertEquals(List.of(), LauncherJvm.traceLines(err), err);
    assertTrue(StateLocation.find(state).isEmpty(), "a savepoint in " + state);
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }

  /** Bytes under the newest savepoint in {@code state}. */
  static long savepointBytes(Path state) throws IOException {
    Path sp = Path.of(StateLocation.find(state).orElseThrow().toUri());
    try (Stream<Path> s = Files.walk(sp)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }

  /**
   * A 256 MiB stable filter in one subtask: its state is far over the 5 MiB per subtask that Flink
   * keeps in the JobManager's memory, where the launcher's savepoints went ("Size of the state is
   * larger than the maximum permitted memory-backed state", exit 1, no savepoint). (A test
   * MiniCluster always has a checkpoint directory, so only the launcher shows it.) The run saves it
   * into DIR; a second run over the same input restores it and emits nothing.
   */
  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  @Timeout(900)
  void stateOfA256MiBFilterIsSavedAndRestored(String backend) throws Exception {
    Path tmp = dir.resolve("tmp");
    Path in = urls("big.txt", "big", 60_000);
    Path state = dir.resolve("state");
    String[] run = {
      "run",
      "--input",
      in.toString(),
      "--state",
      state.toString(),
      "--state-backend",
      backend,
      "--filter",
      "stable",
      "--memory",
      "256m"
    };
    // the filter on the heap (hashmap) must fit half of it (Preflight.heap)
    String err =
        finish(
            start(tmp, "1g", false, false, join(run, "--output", dir.resolve("1.out").toString())),
            0);
    assertTrue(err.contains("urldedup: state saved to " + state), err);
    int first = Files.readAllLines(dir.resolve("1.out")).size();
    assertTrue(first > 59_000, "emitted " + first + " of 60,000 distinct URLs");
    long bytes = savepointBytes(state);
    assertTrue(
        bytes > 64L << 20,
        "a savepoint of " + bytes + " bytes: not the large state this test is about");
    System.out.println(
        backend + ": savepoint of a 256 MiB stable filter after 60,000 URLs: " + bytes + " bytes");

    finish(
        start(tmp, "1g", false, false, join(run, "--output", dir.resolve("2.out").toString())), 0);
    assertEquals(
        List.of(), Files.readAllLines(dir.resolve("2.out")), "the first run's URLs emitted again");
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }

  /**
   * bootstrap of a 64 MiB stable filter from 5 URLs, then run --state over DIR with 20,000 URLs:
   * the run restores the bootstrapped filter and saves about 45 MiB of pages (over Flink's
   * in-memory limit, as above); a second run of the same day emits nothing.
   */
  @Test
  @Timeout(900)
  void bootstrapOfA64MiBFilterThenRunWithState() throws Exception {
    Path tmp = dir.resolve("tmp");
    Path state = dir.resolve("state");
    String[] filter = {"--state", state.toString(), "--filter", "stable", "--memory", "64m"};
    finish(
        start(
            tmp,
            false,
            false,
            join(
                new String[] {"bootstrap", "--input", urls("known.txt", "a", 5).toString()},
                filter)),
        0);
    Path day = urls("day.txt", "a", 20_000);
    String err =
        finish(
            start(
                tmp,
                false,
                false,
                join(
                    new String[] {
                      "run",
                      "--input",
                      day.toString(),
                      "--output",
                      dir.resolve("day.out").toString()
                    },
                    filter)),
            0);
    assertTrue(err.contains("urldedup: state saved to " + state), err);
    List<String> emitted = Files.readAllLines(dir.resolve("day.out"));
    assertTrue(emitted.size() > 19_900 && emitted.size() <= 19_995, emitted.size() + " emitted");
    assertTrue(
        emitted.stream().noneMatch(u -> u.matches("https://h\\d+\\.example/a/[0-4]")),
        "a bootstrapped URL");
    assertTrue(savepointBytes(state) > 16L << 20, savepointBytes(state) + " bytes");

    finish(
        start(
            tmp,
            false,
            false,
            join(
                new String[] {
                  "run", "--input", day.toString(), "--output", dir.resolve("again.out").toString()
                },
                filter)),
        0);
    assertEquals(
        List.of(), Files.readAllLines(dir.resolve("again.out")), "the day's URLs emitted again");
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }

  static String[] join(String[] a, String... b) {
    List<String> out = new ArrayList<>(List.of(a));
    out.addAll(List.of(b));
    return out.toArray(String[]::new);
  }
}
