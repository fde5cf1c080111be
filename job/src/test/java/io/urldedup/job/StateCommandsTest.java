package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.RawRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.InjectMiniCluster;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state commands on what they are given besides bootstrap's own savepoints: a retained
 * checkpoint ({@code chk-N}) of a running job, raw and non-UTF-8 input, dead letters, and the
 * configuration errors that must exit 2 naming the flag instead of failing inside Flink.
 */
class StateCommandsTest {

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(4);

  @TempDir Path dir;

  static String[] args(String... head) {
    return EmbeddedStateTest.args(head);
  }

  /** Runs the CLI; returns {stdout, stderr}, asserting the exit code. */
  static String[] cli(int expectedCode, String... args) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String e = err.toString(StandardCharsets.UTF_8);
    assertEquals(expectedCode, code, "exit code; stderr: " + e);
    return new String[] {out.toString(StandardCharsets.UTF_8), e};
  }

  Path write(String name, List<String> lines) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, lines, StandardCharsets.UTF_8);
    return p;
  }

  /**
   * A streaming job over a file, held open at its end (as {@code run --state} holds it); a
   * checkpoint triggered then is retained after the job is cancelled and holds every decision:
   * inspect reads its counts and probe answers seen for every URL, given the {@code chk-N}
   * directory or the checkpoint root above it.
   */
  @Test
  void inspectAndProbeReadARetainedCheckpoint(@InjectMiniCluster MiniCluster cluster)
      throws Exception {
    List<String> known = EmbeddedStateTest.lines("ck", 0, 1200);
    Path input = write("known.txt", known);
    Path ckpt = dir.resolve("ckpt");
    JobConfig c =
        JobConfig.parse(
            args(
                "--input",
                input.toString(),
                "--output",
                dir.resolve("out").toString(),
                "--checkpoint-dir",
                ckpt.toString(),
                "--checkpoint-interval",
                "1h"),
            Map.of());
    Configuration conf = JobEnvironment.configuration(c);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(2);
    String token = UUID.randomUUID().toString();
    LineFileSource file = new LineFileSource(input.toString(), "known");
    DataStream<RawRecord> source =
        env.fromSource(
                new HoldAtEndSource<>(file, token),
                WatermarkStrategy.noWatermarks(),
                "file",
                file.getProducedType())
            .setParallelism(1);
    DedupPipeline.build(
            source,
            new LineSink<io.urldedup.operators.UrlRecord>("--output", c.output, r -> r.value),
            null,
            c.pipeline())
        .out()
        .setParallelism(1);
    JobClient client = env.executeAsync("checkpointed");
    String chk;
    try {
      HoldAtEndSource.ended(token).get(120, TimeUnit.SECONDS);
      chk = checkpoint(cluster, client);
    } finally {
      client.cancel().get(60, TimeUnit.SECONDS);
      HoldAtEndSource.forget(token);
    }
    Path chkDir = Path.of(java.net.URI.create(chk.startsWith("file:") ? chk : "file:" + chk));
    assertTrue(chkDir.getFileName().toString().startsWith("chk-"), chk);
    assertTrue(Files.isRegularFile(chkDir.resolve("_metadata")), "retained after cancel: " + chk);

    String report = cli(0, args("inspect", "--state", chkDir.toString()))[0];
    assertTrue(report.contains("distinct URLs: 1,200 recorded"), report);
    String fromRoot = cli(0, args("inspect", "--state", ckpt.toString(), "--json"))[0];
    assertTrue(fromRoot.contains("\"inserts\" : 1200,"), fromRoot);

    String probed =
        cli(0, args("probe", "--state", chkDir.toString(), "--input", input.toString()))[0];
    String[] rows = probed.split("\n");
    assertEquals(known.size(), rows.length);
    for (String row : rows) {
      assertTrue(row.endsWith("\tseen\t0"), row);
    }
  }

  /**
   * A checkpoint of the job: a short input can end before every task runs (as for {@code run
   * --state}'s savepoint), and the trigger then fails with "not all required tasks are currently
   * running": try again.
   */
  private static String checkpoint(MiniCluster cluster, JobClient client) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try {
        return cluster.triggerCheckpoint(client.getJobID()).get(120, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (System.nanoTime() > deadline
            || !String.valueOf(e.getCause()).contains("not being executed")) {
          throw e;
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * probe reads --input as raw lines, as run does: a line that is not UTF-8 is echoed byte for byte
   * and answered (invalid, with the decoder's reason), not turned into U+FFFD or an exception; CR
   * LF and a last line without a line end are lines.
   */
  @Test
  void probeReadsRawLines() throws Exception {
    Path boot = dir.resolve("boot");
    cli(
        0,
        args(
            "bootstrap",
            "--input",
            write("k.txt", List.of("https://a.example/x")).toString(),
            "--state",
            boot.toString()));
    byte[] bad = {
      'h',
      't',
      't',
      'p',
      ':',
      '/',
      '/',
      'a',
      '.',
      'e',
      'x',
      'a',
      'm',
      'p',
      'l',
      'e',
      '/',
      (byte) 0xff,
      (byte) 0xfe
    };
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    in.write("https://a.example/x\r\n".getBytes(StandardCharsets.UTF_8));
    in.write(bad);
    in.write("\nhttps://a.example/y".getBytes(StandardCharsets.UTF_8));
    Path file = dir.resolve("probe.txt");
    Files.write(file, in.toByteArray());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        UrlDedupJob.run(
            args("probe", "--state", boot.toString(), "--input", file.toString()),
            new PrintStream(out, true),
            new PrintStream(err, true));
    assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
    byte[] got = out.toByteArray();
    List<byte[]> rows = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < got.length; i++) {
      if (got[i] == '\n') {
        rows.add(Arrays.copyOfRange(got, start, i));
        start = i + 1;
      }
    }
    assertEquals(3, rows.size(), new String(got, StandardCharsets.ISO_8859_1));
    assertEquals(
        "https://a.example/x\thttps://a.example/x\tseen\t0",
        new String(rows.get(0), StandardCharsets.UTF_8));
    assertArrayEquals(bad, Arrays.copyOf(rows.get(1), bad.length), "the bad line, byte for byte");
    assertEquals('\t', rows.get(1)[bad.length]);
    assertTrue(
        new String(rows.get(2), StandardCharsets.UTF_8)
            .startsWith("https://a.example/y\thttps://a.example/y" + "\tunseen"),
        new String(rows.get(2), StandardCharsets.UTF_8));
  }

  /**
   * Issue 21 item 8: probe reads its URL arguments as the bytes the shell passed, as run reads a
   * file. An argument that is not UTF-8 is invalid bad_utf8 (the JVM's decoding had made it U+FFFD:
   * a valid URL, unseen); an IDN is found under the C locale (the decoding had made each of its
   * non-ASCII bytes U+FFFD: bad_host). probe runs as a process, started by bash so that its
   * arguments can hold any bytes.
   */
  @Test
  @Timeout(600)
  void probeArgumentsAreTheBytesPassed() throws Exception {
    Path boot = dir.resolve("boot");
    cli(
        0,
        args(
            "bootstrap",
            "--input",
            write("k.txt", List.of("https://caf\u00e9.example/x")).toString(),
            "--state",
            boot.toString()));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "bash",
                "-c",
                "exec \"$@\" $'https://a.example/\\xff' $'https://caf\\xc3\\xa9.example/x'",
                "bash"));
    cmd.addAll(EmbeddedProcessTest.main(dir));
    cmd.addAll(List.of(args("probe", "--state", boot.toString())));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(dir.resolve("probe.err").toFile());
    pb.environment().put("LC_ALL", "C");
    Process p = pb.start();
    byte[] got = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "probe did not end");
    assertEquals(0, p.exitValue(), Files.readString(dir.resolve("probe.err")));
    ByteArrayOutputStream expected = new ByteArrayOutputStream();
    expected.write("https://a.example/".getBytes(StandardCharsets.US_ASCII));
    expected.write(0xff);
    expected.write("\t\tinvalid\tbad_utf8\n".getBytes(StandardCharsets.US_ASCII));
    expected.write(
        "https://caf\u00e9.example/x\thttps://xn--caf-dma.example/x\tseen\t0\n"
            .getBytes(StandardCharsets.UTF_8));
    assertEquals(
        new String(expected.toByteArray(), StandardCharsets.ISO_8859_1),
        new String(got, StandardCharsets.ISO_8859_1));
  }

  /**
   * {@link ArgvBytes#match}: each word its own entry, later entries first, the UTF-8 of a word
   * without one.
   */
  @Test
  void argvBytesMatchTheWordsInOrder() {
    java.nio.charset.Charset ascii = StandardCharsets.US_ASCII;
    byte[] ff = {'a', (byte) 0xff};
    byte[] fe = {'a', (byte) 0xfe};
    List<byte[]> cmdline = List.of("java".getBytes(ascii), ff, "--state".getBytes(ascii), fe, ff);
    List<String> words =
        List.of(new String(ff, ascii), new String(fe, ascii), new String(ff, ascii), "b");
    List<byte[]> got = ArgvBytes.match(words, cmdline, ascii);
    assertArrayEquals(ff, got.get(0));
    assertArrayEquals(fe, got.get(1));
    assertArrayEquals(ff, got.get(2));
    assertArrayEquals("b".getBytes(StandardCharsets.UTF_8), got.get(3));
  }

  /**
   * bootstrap --dlq writes the dead letters run --dlq writes for the same input, in the same
   * format.
   */
  @Test
  void bootstrapWritesDeadLettersAsRunDoes() throws Exception {
    Path input =
        write(
            "in.txt",
            List.of(
                "https://a.example/1",
                "not a url",
                "https://a.example/2",
                "ftp://x/",
                "https://a.example/1"));
    Path bootDlq = dir.resolve("boot.dlq");
    String[] io =
        cli(
            0,
            args(
                "bootstrap",
                "--input",
                input.toString(),
                "--state",
                dir.resolve("b").toString(),
                "--dlq",
                bootDlq.toString()));
    assertTrue(io[1].contains("in=5 recorded=2 duplicates=1 invalid=2"), io[1]);
    Path runDlq = dir.resolve("run.dlq");
    cli(
        0,
        args(
            "run",
            "--input",
            input.toString(),
            "--output",
            dir.resolve("run.out").toString(),
            "--dlq",
            runDlq.toString()));
    assertEquals(Files.readAllLines(runDlq), Files.readAllLines(bootDlq));
    assertEquals(2, Files.readAllLines(bootDlq).size());
  }

  @Test
  void configurationErrorsNameTheFlag() throws Exception {
    Path input = write("in.txt", List.of("https://a.example/1"));
    String e =
        cli(
            2,
            "bootstrap",
            "--input",
            input.toString(),
            "--state",
            dir.resolve("a").toString(),
            "--filter",
            "aged",
            "--window",
            "1h",
            "--rate",
            "100",
            "--hash-seed",
            "0x5747e0b5")[1];
    assertTrue(e.contains("--window") && e.contains("--window-urls"), e);

    e =
        cli(
            2,
            args("bootstrap", "--input", dir.toString(), "--state", dir.resolve("b").toString()))[
            1];
    assertTrue(e.contains("--input") && e.contains("directory"), e);

    e = cli(2, args("probe", "--input", dir.toString(), "--state", dir.resolve("b").toString()))[1];
    assertTrue(e.contains("--input") && e.contains("directory"), e);

    Path corrupt = dir.resolve("corrupt/savepoint-x");
    Files.createDirectories(corrupt);
    Files.write(corrupt.resolve("_metadata"), "not a savepoint".getBytes(StandardCharsets.UTF_8));
    e = cli(2, args("inspect", "--state", dir.resolve("corrupt").toString()))[1];
    assertTrue(e.contains("--state") && e.contains("_metadata"), e);
    e = cli(2, args("probe", "--state", corrupt.toString(), "https://a.example/1"))[1];
    assertTrue(e.contains("--state") && e.contains("_metadata"), e);

    e = cli(2, args("inspect", "--state", "s3://bucket/urldedup"))[1];
    assertTrue(e.contains("--state s3://bucket/urldedup") && e.contains("'s3'"), e);
    e =
        cli(2, args("bootstrap", "--input", input.toString(), "--state", "s3://bucket/urldedup"))[
            1];
    assertTrue(e.contains("--state s3://bucket/urldedup"), e);
    e = cli(2, args("run", "--input", input.toString(), "--state", "s3://bucket/urldedup"))[1];
    assertTrue(e.contains("--state s3://bucket/urldedup") && e.contains("local"), e);

    e = cli(2, args("inspect", "--state", dir.resolve("nothing-here").toString()))[1];
    assertTrue(e.contains("--state") && e.contains("no savepoint"), e);
  }
}
