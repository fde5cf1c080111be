package io.urldedup.jobbench;

import io.urldedup.job.DedupPipeline;
import io.urldedup.job.JobConfig;
import io.urldedup.job.JobEnvironment;
import io.urldedup.job.KafkaIO;
import io.urldedup.operators.DecodeFunction;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.UrlRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The Kafka-mode peers of urldedup for deploy/local/kafka-bench.sh, submitted to a session cluster
 * with urldedup's own Kafka flags: the same source, the same exactly-once sink settings ({@link
 * KafkaIO#exactlyOnceSink}), the same checkpointing ({@link JobEnvironment}).
 *
 * <pre>
 * flink run -c io.urldedup.jobbench.KafkaPeerJob -C file:///.../urldedup-jobbench.jar urldedup-job.jar \
 *     --peer identity|exact [--ttl 30d] [urldedup Kafka flags: --bootstrap-servers ... --output-topic ...]
 * </pre>
 *
 * identity: every input record to the output topic as read (key, value, headers): the cost of Kafka
 * in, Kafka out, exactly once. exact: decode, keyBy the canonical URL, a per-URL flag in keyed
 * state ({@link ExactDedup}), Kafka out: the exact dedup a Flink user writes today.
 */
public final class KafkaPeerJob {

  private KafkaPeerJob() {}

  public static void main(String[] args) throws Exception {
    String peer = null;
    Duration ttl = Duration.ofDays(30);
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--peer") && i + 1 < args.length) {
        peer = args[++i].toLowerCase(Locale.ROOT);
      } else if (args[i].equals("--ttl") && i + 1 < args.length) {
        ttl = org.apache.flink.util.TimeUtils.parseDuration(args[++i]);
      } else {
        rest.add(args[i]);
      }
    }
    if (peer == null || !Arrays.asList("identity", "exact").contains(peer)) {
      throw new IllegalArgumentException("--peer: accepted: identity, exact; got " + peer);
    }
    JobConfig c = JobConfig.parse(rest.toArray(String[]::new), System.getenv());
    Configuration conf = JobEnvironment.configuration(c);
    // as in JobBench: the peer keeps RocksDB's defaults (the filter pages' options are urldedup's)
    conf.removeConfig(RocksDBOptions.OPTIONS_FACTORY);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    if (c.parallelism > 0) {
      env.setParallelism(c.parallelism);
    }
    DataStream<RawRecord> source =
        env.fromSource(KafkaIO.source(c), WatermarkStrategy.noWatermarks(), "kafka source")
            .uid(DedupPipeline.UID_SOURCE);
    if (peer.equals("identity")) {
      source
          .sinkTo(KafkaIO.exactlyOnceSink(c, "-out", new RawSerializer(c.outputTopic)))
          .uid("identity-sink")
          .name("kafka sink");
    } else {
      source
          .process(new DecodeFunction(c.decodeConfig()), TypeInformation.of(UrlRecord.class))
          .uid("decode")
          .name("decode")
          .keyBy(new JobBench.UrlKey(), Types.STRING)
          .process(new ExactDedup(ttl), TypeInformation.of(UrlRecord.class))
          .uid("exact")
          .name("exact")
          .sinkTo(KafkaIO.outputSink(c))
          .uid("exact-sink")
          .name("kafka sink");
    }
    env.execute("kafka-peer-" + peer);
  }

  /** The record as read: key, value and headers to the output topic. */
  static final class RawSerializer implements KafkaRecordSerializationSchema<RawRecord> {
    private final String topic;

    RawSerializer(String topic) {
      this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
        RawRecord r, KafkaSinkContext ctx, Long timestamp) {
      return new ProducerRecord<>(
          topic, null, timestamp, r.key, r.value, KafkaIO.toKafka(r.headers));
    }
  }
}
