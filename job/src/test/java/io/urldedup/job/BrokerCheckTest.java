package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka mode in a process of its own ({@code ./urldedup run --bootstrap-servers ...}): with no
 * broker at the address it exits 2 within {@link BrokerCheck#TIMEOUT} naming the flag (it used to
 * retry forever); with a real broker the job runs, and SIGTERM ends it leaving nothing in
 * java.io.tmpdir.
 */
class BrokerCheckTest {

  @RegisterExtension static final InProcessKafka KAFKA = new InProcessKafka();

  @TempDir Path dir;

  /** A port nothing listens on: bound, then closed. */
  static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static JobConfig kafkaFlags(String servers) {
    return JobConfig.parse(
        new String[] {
          "--bootstrap-servers",
          servers,
          "--input-topic",
          "in",
          "--output-topic",
          "out",
          "--dlq-topic",
          "none",
          "--hash-seed",
          "0x6a09e667f3bcc908"
        },
        Map.of());
  }

  @Test
  void aClosedPortIsRefusedWithinTheTimeout() throws Exception {
    String servers = "127.0.0.1:" + closedPort();
    long t0 = System.nanoTime();
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> BrokerCheck.require(kafkaFlags(servers), Duration.ofSeconds(3)));
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertEquals(
        "--bootstrap-servers "
            + servers
            + ": no Kafka broker answered within 3 s (not running, or not"
            + " reachable from here); accepted: HOST:PORT[,...] of running brokers",
        e.getMessage());
    assertTrue(seconds < 15, seconds + " s");
  }

  @Test
  void aRunningBrokerPasses() {
    BrokerCheck.require(kafkaFlags(KAFKA.bootstrapServers()), Duration.ofSeconds(30));
  }

  /** The launcher against a closed port: exit 2 with the one line, in about 30 s, nothing left. */
  @Test
  @Timeout(600)
  void aRunWithoutABrokerExits2() throws Exception {
    Path tmp = dir.resolve("tmp");
    String servers = "127.0.0.1:" + closedPort();
    Process p =
        new ProcessBuilder(
                LauncherJvm.command(
                    tmp,
                    "512m",
                    List.of(
                        "run",
                        "--bootstrap-servers",
                        servers,
                        "--input-topic",
                        "in",
                        "--output-topic",
                        "out",
                        "--dlq-topic",
                        "none",
                        "--hash-seed",
                        "0x6a09e667f3bcc908")))
            .redirectError(dir.resolve("stderr.txt").toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    try {
      assertTrue(
          p.waitFor(
              EmbeddedProcessTest.START_BOUND_S + BrokerCheck.TIMEOUT.toSeconds(),
              TimeUnit.SECONDS),
          "still running: a run without a broker must end");
    } finally {
      p.destroyForcibly();
    }
    String err = Files.readString(dir.resolve("stderr.txt"));
    assertEquals(2, p.exitValue(), err);
    // the error alone (the check comes before the job is built, and before its warnings)
    assertEquals(
        "urldedup: error: --bootstrap-servers "
            + servers
            + ": no Kafka broker answered within "
            + BrokerCheck.TIMEOUT.toSeconds()
            + " s (not running, or not reachable from here); accepted: HOST:PORT[,...]"
            + " of running brokers\n",
        err);
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }

  /** The launcher against the in-process broker: URLs come out; SIGTERM ends it, nothing left. */
  @Test
  @Timeout(600)
  void aRunWithABrokerProceeds() throws Exception {
    KAFKA.createTopics(1, "bc-in", "bc-out");
    Path tmp = dir.resolve("tmp");
    Process p =
        new ProcessBuilder(
                LauncherJvm.command(
                    tmp,
                    "512m",
                    List.of(
                        "run",
                        "--bootstrap-servers",
                        KAFKA.bootstrapServers(),
                        "--input-topic",
                        "bc-in",
                        "--output-topic",
                        "bc-out",
                        "--dlq-topic",
                        "none",
                        "--starting-offsets",
                        "earliest",
                        "--checkpoint-interval",
                        "1s",
                        "--parallelism",
                        "1",
                        "--hash-seed",
                        "0x6a09e667f3bcc908")))
            .redirectError(dir.resolve("stderr.txt").toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
    try {
      List<ProducerRecord<byte[], byte[]>> in = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        in.add(
            new ProducerRecord<>(
                "bc-in", ("https://a.example/" + i).getBytes(StandardCharsets.UTF_8)));
      }
      KAFKA.produce(in);
      try (KafkaConsumer<byte[], byte[]> c = KAFKA.committedReader("bc-out", 1)) {
        TestKafkaBroker.readUntil(
            c,
            got,
            r -> r.size() >= 3 || !p.isAlive(),
            Duration.ofSeconds(EmbeddedProcessTest.START_BOUND_S));
      }
      assertEquals(3, got.size(), Files.readString(dir.resolve("stderr.txt")));
      p.destroy(); // SIGTERM: the JVM's shutdown runs LocalCluster's cleanup
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "no exit 120 s after SIGTERM");
    } finally {
      p.destroyForcibly();
    }
    assertEquals(List.of(), LauncherJvm.leftovers(tmp), "left in java.io.tmpdir");
  }
}
