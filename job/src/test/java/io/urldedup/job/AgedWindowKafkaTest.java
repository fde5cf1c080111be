package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.urldedup.operators.RawRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The job with {@code --filter aged --window 60s} on a real Kafka broker (in process) and a Flink
 * MiniCluster, in event time from the Kafka record timestamps: a URL sent again 30 s (of record
 * time) after its first arrival is suppressed, sent again after 90 s it is emitted again. The
 * records carry their timestamps, so the outcome does not depend on how fast the machine reads them
 * (the whole topic is read in well under a second of wall time).
 *
 * <p>Between the three arrivals of each target URL, one new URL per second of record time keeps the
 * shard clocks moving. With --fpr 1e-4 the expected false positives over the ~200 first occurrences
 * are 0.02 (the seed is fixed, so the run is deterministic there), and 90 s is more than the
 * filter's k + l generations of 60 s / l, after which a URL is gone.
 */
class AgedWindowKafkaTest {

  static final int TARGETS = 20;
  static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(2);

  @RegisterExtension static final InProcessKafka KAFKA = new InProcessKafka();

  static ProducerRecord<byte[], byte[]> at(String topic, long ts, String url) {
    return new ProducerRecord<>(topic, 0, ts, null, url.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  @Timeout(400)
  void suppressedAfter30sEmittedAgainAfter90s(String backend) throws Exception {
    String in = "aged-in-" + backend;
    String out = "aged-out-" + backend;
    KAFKA.createTopics(1, in, out);
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    Map<String, Integer> expected = new HashMap<>();
    for (int sec = 0; sec <= 90; sec++) {
      long ts = T0 + sec * 1000L;
      if (sec == 0 || sec == 30 || sec == 90) {
        for (int i = 0; i < TARGETS; i++) {
          records.add(at(in, ts, "https://target.example/page/" + i));
        }
      }
      String filler = "https://filler.example/" + sec;
      records.add(at(in, ts, filler));
      expected.put(filler, 1);
    }
    for (int i = 0; i < TARGETS; i++) {
      expected.put("https://target.example/page/" + i, 2); // at 0 s and at 90 s; not at 30 s
    }
    KAFKA.produce(records);

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
              "none",
              "--group-id",
              "aged-" + backend,
              "--starting-offsets",
              "earliest",
              "--transactional-id-prefix",
              "aged-" + backend,
              "--transaction-timeout",
              "1min",
              "--checkpoint-interval",
              "500ms",
              "--state-backend",
              backend,
              "--shards",
              "8",
              "--parallelism",
              "2",
              "--filter",
              "aged",
              "--window",
              "60s",
              "--rate",
              "100",
              "--fpr",
              "1e-4",
              "--hash-seed",
              "99"
            },
            Map.of());
    Configuration conf = JobEnvironment.configuration(config);
    conf.setString(
        "state.backend.rocksdb.localdir", System.getProperty("java.io.tmpdir") + "/rdb-aged");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(config.parallelism);
    DataStream<RawRecord> source =
        env.fromSource(KafkaIO.source(config), config.pipeline().watermarks(), "kafka source")
            .uid(DedupPipeline.UID_SOURCE);
    DedupPipeline.build(source, KafkaIO.outputSink(config), null, config.pipeline());
    JobClient job = env.executeAsync("aged-window-" + backend);

    int total = expected.values().stream().mapToInt(Integer::intValue).sum();
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = KAFKA.committedReader(out, 1)) {
      // generous: on a loaded machine the job's first checkpoints can take a minute
      TestKafkaBroker.readUntil(consumer, read, r -> r.size() >= total, Duration.ofSeconds(240));
      // a few more checkpoints: an extra emission would surface now
      TestKafkaBroker.readUntil(consumer, read, r -> false, Duration.ofSeconds(2));
    } finally {
      job.cancel().get();
    }
    Map<String, Integer> counts = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : read) {
      counts.merge(new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
    }
    assertEquals(
        expected, counts, "emissions per URL (targets: at 0 s and 90 s, suppressed at 30 s)");
  }
}
