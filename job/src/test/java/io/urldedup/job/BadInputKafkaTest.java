package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.BadInputCorpus;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordHeaders;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 10^4 malformed records (BadInputCorpus) mixed with 1000 valid ones through Kafka, restarts
 * disabled (any exception fails the job and the test). Every malformed record must reach the
 * dead-letter topic byte-exact, with its key, its headers and the expected reason header; the
 * counts must balance exactly: in = emitted + duplicates + invalid.
 */
class BadInputKafkaTest {

  static final int BAD = 10_000;
  static final int VALID = 1000;
  static final int PARTITIONS = 3;

  /**
   * Long values still exceed --max-url-bytes (8192) many times over, but stay far below Kafka's 1
   * MiB message limit and keep the test's traffic small (the corpus' long cases would otherwise
   * push hundreds of MB through the broker twice).
   */
  static final int MAX_VALUE_BYTES = 64 * 1024;

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(4);

  @RegisterExtension static final InProcessKafka KAFKA = new InProcessKafka();

  @ParameterizedTest
  @ValueSource(strings = {"text", "json"})
  @Timeout(240)
  void everyMalformedRecordReachesTheDeadLetterTopic(String format) throws Exception {
    String in = "bad-in-" + format;
    String out = "bad-out-" + format;
    String dlq = "bad-dlq-" + format;
    KAFKA.createTopics(PARTITIONS, in, out, dlq);

    JobConfig config =
        JobConfig.parse(
            new String[] {
              "--bootstrap-servers",
              KAFKA.bootstrapServers(),
              "--input-topic",
              in,
              "--output-topic",
              out,
              "--dlq-topic",
              dlq,
              "--group-id",
              "bad-" + format,
              "--starting-offsets",
              "earliest",
              "--transactional-id-prefix",
              "bad-" + format,
              "--transaction-timeout",
              "1min",
              "--checkpoint-interval",
              "500ms",
              "--shards",
              "16",
              "--parallelism",
              "2",
              "--format",
              format,
              "--fpr",
              "1e-6",
              "--capacity",
              "16000",
              "--hash-seed",
              "5"
            },
            Map.of());

    List<BadInputCorpus.Case> corpus =
        BadInputCorpus.generate(config.decodeConfig(), 42, BAD, MAX_VALUE_BYTES);
    Map<String, Integer> expectedDead = new HashMap<>();
    Map<String, Long> expectedByReason = new TreeMap<>();
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (BadInputCorpus.Case c : corpus) {
      expectedDead.merge(
          fingerprint(
              c.expected.label(), c.record.key, c.record.value, kafkaHeaders(c.record.headers)),
          1,
          Integer::sum);
      expectedByReason.merge(c.expected.label(), 1L, Long::sum);
      records.add(
          new ProducerRecord<>(
              in, null, null, c.record.key, c.record.value, kafkaHeaders(c.record.headers)));
    }
    Set<String> validUrls = new HashSet<>();
    for (int i = 0; i < VALID; i++) {
      String url = "https://valid" + (i % 17) + ".example.net/doc/" + i;
      validUrls.add(url);
      String value = format.equals("json") ? "{\"url\":\"" + url + "\"}" : url;
      records.add(new ProducerRecord<>(in, value.getBytes(StandardCharsets.UTF_8)));
    }
    Collections.shuffle(records, new Random(3));
    KAFKA.produce(records);

    Configuration conf = JobEnvironment.configuration(config);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(config.parallelism);
    DataStream<RawRecord> source =
        env.fromSource(
                KafkaIO.sourceBuilder(config).setBounded(OffsetsInitializer.latest()).build(),
                WatermarkStrategy.noWatermarks(),
                "kafka source")
            .uid(DedupPipeline.UID_SOURCE);
    DedupPipeline.build(
        source, KafkaIO.outputSink(config), KafkaIO.dlqSink(config), config.pipeline());
    JobExecutionResult result = env.execute("bad-input-" + format);

    RunSummary s = RunSummary.of(result.getAllAccumulatorResults());
    assertEquals(BAD + VALID, s.in(), s.toString());
    assertEquals(BAD, s.invalid(), s.toString());
    assertEquals(VALID, s.emitted(), s.toString());
    assertEquals(0, s.duplicates(), s.toString());
    assertEquals(s.in(), s.emitted() + s.duplicates() + s.invalid(), s.toString());
    assertEquals(expectedByReason, new TreeMap<>(s.invalidByReason()), "accumulators per reason");

    List<ConsumerRecord<byte[], byte[]>> dead = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = KAFKA.committedReader(dlq, PARTITIONS)) {
      TestKafkaBroker.readUntil(c, dead, r -> r.size() >= BAD, Duration.ofSeconds(60));
      TestKafkaBroker.readUntil(c, dead, r -> false, Duration.ofMillis(500));
    }
    assertEquals(BAD, dead.size(), "dead letters");
    Map<String, Integer> actualDead = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : dead) {
      List<Header> original = new ArrayList<>();
      String reason = null;
      for (Header h : r.headers()) {
        if (h.key().equals(KafkaIO.HEADER_REASON)) {
          reason = new String(h.value(), StandardCharsets.UTF_8);
        } else if (h.key().equals(KafkaIO.HEADER_ORIGIN)) {
          assertTrue(new String(h.value(), StandardCharsets.UTF_8).startsWith(in + "-"), "origin");
        } else if (!h.key().equals(KafkaIO.HEADER_DETAIL)) {
          original.add(h);
        }
      }
      actualDead.merge(fingerprint(reason, r.key(), r.value(), original), 1, Integer::sum);
    }
    assertTrue(
        expectedDead.equals(actualDead),
        "every malformed record byte-exact, with key,"
            + " headers and reason: "
            + diff(expectedDead, actualDead));

    List<ConsumerRecord<byte[], byte[]>> emitted = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c = KAFKA.committedReader(out, PARTITIONS)) {
      TestKafkaBroker.readUntil(c, emitted, r -> r.size() >= VALID, Duration.ofSeconds(30));
    }
    Set<String> urls = new HashSet<>();
    for (ConsumerRecord<byte[], byte[]> r : emitted) {
      String v = new String(r.value(), StandardCharsets.UTF_8);
      urls.add(format.equals("json") ? v.replaceAll(".*\"url\":\"([^\"]*)\".*", "$1") : v);
    }
    assertEquals(VALID, emitted.size());
    assertEquals(validUrls, urls);
  }

  private static List<Header> kafkaHeaders(RecordHeaders h) {
    List<Header> out = new ArrayList<>();
    for (int i = 0; i < h.size(); i++) {
      out.add(new RecordHeader(h.name(i), h.value(i)));
    }
    return out;
  }

  private static String fingerprint(
      String reason, byte[] key, byte[] value, Iterable<Header> headers) throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update(value == null ? new byte[] {1} : value);
    StringBuilder b =
        new StringBuilder(reason)
            .append('|')
            .append(
                value == null
                    ? "null"
                    : value.length + ":" + Base64.getEncoder().encodeToString(sha.digest()))
            .append('|')
            .append(key == null ? "null" : Base64.getEncoder().encodeToString(key));
    for (Header h : headers) {
      b.append('|')
          .append(h.key())
          .append('=')
          .append(h.value() == null ? "null" : Base64.getEncoder().encodeToString(h.value()));
    }
    return b.toString();
  }

  private static String diff(Map<String, Integer> expected, Map<String, Integer> actual) {
    List<String> d = new ArrayList<>();
    for (Map.Entry<String, Integer> e : expected.entrySet()) {
      if (!e.getValue().equals(actual.get(e.getKey())) && d.size() < 5) {
        d.add("expected " + e.getValue() + " got " + actual.get(e.getKey()) + ": " + e.getKey());
      }
    }
    for (Map.Entry<String, Integer> e : actual.entrySet()) {
      if (!expected.containsKey(e.getKey()) && d.size() < 10) {
        d.add("unexpected " + e.getValue() + ": " + e.getKey());
      }
    }
    return d.toString();
  }
}
