package io.urldedup.job;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The job as {@code urldedup run} builds it, against a {@link SaslKafka} broker, with the client
 * security settings only in the {@code --kafka-properties} file. Input: {@link #UNIQUE} URLs in 1-3
 * spellings each; output read back read_committed as the SASL user.
 */
final class SaslJobRun {

  static final int UNIQUE = 400;
  static final int PARTITIONS = 2;

  final String in;
  final String out;
  final String dlq;
  final Set<String> expected = new LinkedHashSet<>();
  JobClient job;

  SaslJobRun(String name) {
    in = name + "-in";
    out = name + "-out";
    dlq = name + "-dlq";
  }

  /** Creates the topics and produces the input (as the admin). */
  void produce(SaslKafka kafka) throws Exception {
    kafka.createTopics(PARTITIONS, in, out, dlq);
    List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
    for (int i = 0; i < UNIQUE; i++) {
      String host = "h" + (i % 17) + ".example.net";
      expected.add("http://" + host + "/p/" + i);
      String[] spellings = {
        "http://" + host + "/p/" + i,
        "HTTP://" + host.toUpperCase() + "/p/" + i + "#x",
        "http://" + host + ":80/q/../p/" + i
      };
      for (int c = 0; c <= i % 3; c++) {
        records.add(new ProducerRecord<>(in, null, spellings[c].getBytes(StandardCharsets.UTF_8)));
      }
    }
    records.add(new ProducerRecord<>(in, null, "not a url".getBytes(StandardCharsets.UTF_8)));
    kafka.produce(records);
  }

  /** The job's flags for this run; {@code extra} is appended (e.g. the seed). */
  String[] args(SaslKafka kafka, Path properties, String... extra) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "--bootstrap-servers",
                kafka.bootstrapServers(),
                "--input-topic",
                in,
                "--output-topic",
                out,
                "--dlq-topic",
                dlq,
                "--group-id",
                in + "-group",
                "--starting-offsets",
                "earliest",
                "--transactional-id-prefix",
                in,
                "--transaction-timeout",
                "1min",
                "--checkpoint-interval",
                "300ms",
                "--shards",
                "8",
                "--parallelism",
                "2",
                "--filter",
                "scalable",
                "--fpr",
                "1e-6",
                "--capacity",
                "8000",
                "--kafka-properties",
                properties.toString()));
    a.addAll(List.of(extra));
    return a.toArray(new String[0]);
  }

  JobClient start(JobConfig config) throws Exception {
    Configuration conf = JobEnvironment.configuration(config);
    // a broken login must fail the test, not restart forever
    conf.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(config.parallelism);
    DedupPipeline.build(
        env.fromSource(KafkaIO.source(config), WatermarkStrategy.noWatermarks(), "kafka source")
            .uid(DedupPipeline.UID_SOURCE),
        KafkaIO.outputSink(config),
        KafkaIO.dlqSink(config),
        config.pipeline());
    job = env.executeAsync(config.jobName);
    return job;
  }

  /** URL -> times emitted, read until every expected URL is there (or the timeout) plus 1 s. */
  Map<String, Integer> readOutput(SaslKafka kafka, String mechanism, Duration timeout) {
    List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        kafka.committedReader(mechanism, out, PARTITIONS)) {
      TestKafkaBroker.readUntil(
          consumer, read, r -> r.size() >= expected.size() || jobEnded(), timeout);
      // a few more checkpoints: a duplicate would show up now
      TestKafkaBroker.readUntil(consumer, read, r -> false, Duration.ofSeconds(1));
    }
    Map<String, Integer> counts = new HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : read) {
      counts.merge(new String(r.value(), StandardCharsets.UTF_8), 1, Integer::sum);
    }
    return counts;
  }

  private boolean jobEnded() {
    try {
      return job.getJobStatus().get().isGloballyTerminalState();
    } catch (Exception e) {
      return true;
    }
  }

  void cancel() throws Exception {
    if (job != null && !jobEnded()) {
      job.cancel().get();
    }
  }
}
