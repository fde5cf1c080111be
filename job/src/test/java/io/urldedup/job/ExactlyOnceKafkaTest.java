package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.RawRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
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
 * Exactly-once through a failure: Kafka in, a failure injected after the first completed
 * checkpoint, a restart from it, Kafka out. Read with {@code isolation.level=read_committed}, the
 * output must be exactly the unique canonical URLs: nothing lost, nothing twice (the sink's
 * uncommitted transaction is aborted, the filter state and the source offsets roll back together).
 *
 * <p>Exactness: the scalable filter at {@code --fpr 1e-6} gives an expected number of false
 * positives below 3000 x 3 x 1e-6 = 0.01; the seed is fixed, so the run is deterministic there.
 */
class ExactlyOnceKafkaTest {

  static final int UNIQUE = 3000;
  static final int PARTITIONS = 3;

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(4);

  @RegisterExtension static final InProcessKafka KAFKA = new InProcessKafka();

  /** Each URL in 1-4 spellings that canonicalize alike. */
  static List<String> spellings(int i, Random rnd) {
    String host = "h" + (i % 53) + ".example.org";
    String path = "/item/" + i;
    String[] v = {
      "http://" + host + path,
      "HTTP://" + host.toUpperCase() + path,
      "http://" + host + ":80" + path + "#top",
      "http://" + host + "/a/.." + path
    };
    List<String> out = new ArrayList<>();
    int copies = 1 + rnd.nextInt(4);
    for (int c = 0; c < copies; c++) {
      out.add(v[rnd.nextInt(v.length)]);
    }
    return out;
  }

  static String canonical(int i) {
    return "http://h" + (i % 53) + ".example.org/item/" + i;
  }

  @ParameterizedTest
  @ValueSource(strings = {"hashmap", "rocksdb"})
  @Timeout(240)
  void noLossNoDuplicatesAcrossARestart(String backend) throws Exception {
    String in = "eo-in-" + backend;
    String out = "eo-out-" + backend;
    String dlq = "eo-dlq-" + backend;
    KAFKA.createTopics(PARTITIONS, in, out, dlq);

    Random rnd = new Random(7);
    List<ProducerRecord<byte[], byte[]>> first = new ArrayList<>();
    List<ProducerRecord<byte[], byte[]>> second = new ArrayList<>();
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < UNIQUE; i++) {
      expected.add(canonical(i));
      for (String s : spellings(i, rnd)) {
        // the second batch repeats URLs of the first: the restored filter must know them
        List<ProducerRecord<byte[], byte[]>> batch =
            i < UNIQUE / 2 && rnd.nextInt(3) > 0 ? first : second;
        batch.add(new ProducerRecord<>(in, null, s.getBytes(StandardCharsets.UTF_8)));
      }
    }
    KAFKA.produce(first);

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
              "eo-" + backend,
              "--starting-offsets",
              "earliest",
              "--transactional-id-prefix",
              "eo-" + backend,
              "--transaction-timeout",
              "1min",
              "--checkpoint-interval",
              "500ms",
              "--state-backend",
              backend,
              "--shards",
              "16",
              "--parallelism",
              "2",
              "--filter",
              "scalable",
              "--fpr",
              "1e-6",
              "--capacity",
              "16000",
              "--hash-seed",
              "99"
            },
            Map.of());
    Configuration conf = JobEnvironment.configuration(config);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
    conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
    conf.setString(
        "state.backend.rocksdb.localdir", System.getProperty("java.io.tmpdir") + "/rdb-eo");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(config.parallelism);

    FailOnceAfterCheckpoint.reset();
    DataStream<RawRecord> source =
        env.fromSource(KafkaIO.source(config), WatermarkStrategy.noWatermarks(), "kafka source")
            .uid(DedupPipeline.UID_SOURCE)
            .map(new FailOnceAfterCheckpoint(200))
            .returns(TypeInformation.of(RawRecord.class))
            .uid("fail-once");
    DedupPipeline.build(
        source, KafkaIO.outputSink(config), KafkaIO.dlqSink(config), config.pipeline());
    JobClient job = env.executeAsync("exactly-once-" + backend);

    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = KAFKA.committedReader(out, PARTITIONS)) {
      // the failure fires on records that arrive after the first completed checkpoint
      TestKafkaBroker.readUntil(
          consumer, read, r -> FailOnceAfterCheckpoint.CHECKPOINTED.get(), Duration.ofSeconds(60));
      assertTrue(FailOnceAfterCheckpoint.CHECKPOINTED.get(), "no checkpoint completed");
      KAFKA.produce(second);
      TestKafkaBroker.readUntil(consumer, read, r -> r.size() >= UNIQUE, Duration.ofSeconds(90));
      // a few more checkpoints: duplicates would surface now
      TestKafkaBroker.readUntil(consumer, read, r -> false, Duration.ofSeconds(2));
    } finally {
      job.cancel().get();
    }

    assertTrue(FailOnceAfterCheckpoint.FAILED.get(), "the injected failure did not happen");
    Map<String, Integer> counts = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : read) {
      counts.merge(new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
    }
    List<String> twice = new ArrayList<>();
    counts.forEach(
        (u, n) -> {
          if (n > 1) {
            twice.add(u);
          }
        });
    assertEquals(List.of(), twice, "emitted more than once");
    assertEquals(expected, counts.keySet());
    assertEquals(UNIQUE, read.size());
    // the record key is the host (per-host partitioning for fetchers)
    for (ConsumerRecord<byte[], byte[]> r : read) {
      String url = new String(r.value(), StandardCharsets.UTF_8);
      assertEquals(
          url.substring("http://".length(), url.indexOf('/', "http://".length())),
          new String(r.key(), StandardCharsets.UTF_8));
    }
  }
}
