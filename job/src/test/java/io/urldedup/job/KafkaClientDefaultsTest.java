package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The throughput defaults reach the clients the job builds, and --kafka-properties overrides each.
 */
class KafkaClientDefaultsTest {

  @TempDir Path dir;

  private static JobConfig config(String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--bootstrap-servers",
                "127.0.0.1:9",
                "--input-topic",
                "in",
                "--output-topic",
                "out",
                "--dlq-topic",
                "dlq",
                "--hash-seed",
                "0x6a09e667f3bcc908"));
    args.addAll(List.of(extra));
    return JobConfig.parse(args.toArray(String[]::new), Map.of());
  }

  private static Properties field(Object o, String name) throws ReflectiveOperationException {
    Field f = o.getClass().getDeclaredField(name);
    f.setAccessible(true);
    return (Properties) f.get(o);
  }

  private static Properties sourceProps(JobConfig c) throws ReflectiveOperationException {
    KafkaSource<?> s = KafkaIO.source(c);
    return field(s, "props");
  }

  private static Properties sinkProps(KafkaSink<?> s) throws ReflectiveOperationException {
    return field(s, "kafkaProducerConfig");
  }

  @Test
  void theSourceAndBothSinksGetTheDefaults() throws Exception {
    JobConfig c = config();
    Properties source = sourceProps(c);
    assertEquals("65536", source.getProperty("fetch.min.bytes"));
    assertEquals("100", source.getProperty("fetch.max.wait.ms"));
    assertEquals("5000", source.getProperty("max.poll.records"));
    for (Properties sink :
        List.of(sinkProps(KafkaIO.outputSink(c)), sinkProps(KafkaIO.dlqSink(c)))) {
      assertEquals("100", sink.getProperty("linger.ms"));
      assertEquals("262144", sink.getProperty("batch.size"));
      assertEquals(
          null, sink.getProperty("fetch.min.bytes"), "consumer settings stay off the producer");
    }
    assertEquals(null, source.getProperty("linger.ms"), "producer settings stay off the consumer");
  }

  @Test
  void theReadmeListsEachDefault() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    for (Map<String, String> m :
        List.of(KafkaClientDefaults.CONSUMER, KafkaClientDefaults.PRODUCER)) {
      m.forEach(
          (k, v) ->
              assertTrue(
                  readme.contains("| `" + k + "` | " + v + " |"),
                  "README, Kafka client defaults: no row '| `" + k + "` | " + v + " |'"));
    }
  }

  @Test
  void kafkaPropertiesOverrideEachDefault() throws Exception {
    Map<String, String> mine =
        Map.of(
            "fetch.min.bytes",
            "1",
            "fetch.max.wait.ms",
            "500",
            "max.poll.records",
            "500",
            "linger.ms",
            "5",
            "batch.size",
            "16384");
    Properties file = new Properties();
    mine.forEach(file::setProperty);
    Path p = dir.resolve("client.properties");
    try (var w = Files.newBufferedWriter(p)) {
      file.store(w, null);
    }
    JobConfig c = config("--kafka-properties", p.toString());
    Properties source = sourceProps(c);
    Properties out = sinkProps(KafkaIO.outputSink(c));
    Properties dlq = sinkProps(KafkaIO.dlqSink(c));
    for (String k : KafkaClientDefaults.CONSUMER.keySet()) {
      assertEquals(mine.get(k), source.getProperty(k), k);
    }
    for (String k : KafkaClientDefaults.PRODUCER.keySet()) {
      assertEquals(mine.get(k), out.getProperty(k), k);
      assertEquals(mine.get(k), dlq.getProperty(k), k);
    }
    assertEquals(
        mine.keySet().size(),
        KafkaClientDefaults.CONSUMER.size() + KafkaClientDefaults.PRODUCER.size(),
        "every default is overridden in this test");
  }
}
