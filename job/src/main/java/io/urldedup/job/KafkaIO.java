package io.urldedup.job;

import io.urldedup.operators.DeadLetter;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordHeaders;
import io.urldedup.operators.UrlRecord;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Properties;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;

/**
 * The Kafka side: a read_committed source of raw records and two exactly-once sinks (unseen URLs,
 * dead letters). {@code --kafka-properties} (security settings) apply to all three clients; their
 * values are never logged here (Kafka's own config log masks password types).
 */
public final class KafkaIO {

  public static final String HEADER_REASON = "urldedup.reason";
  public static final String HEADER_DETAIL = "urldedup.detail";
  public static final String HEADER_ORIGIN = "urldedup.origin";

  private KafkaIO() {}

  /** The source builder, so tests can bound it; {@link #source} is what the job uses. */
  public static KafkaSourceBuilder<RawRecord> sourceBuilder(JobConfig c) {
    OffsetsInitializer start =
        switch (c.startingOffsets) {
          case EARLIEST -> OffsetsInitializer.earliest();
          case LATEST -> OffsetsInitializer.latest();
          case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
        };
    return KafkaSource.<RawRecord>builder()
        .setProperties(consumerProperties(c))
        .setBootstrapServers(c.bootstrapServers)
        .setTopics(c.inputTopics)
        .setGroupId(c.groupId)
        .setClientIdPrefix(c.transactionalIdPrefix + "-source")
        .setStartingOffsets(start)
        .setDeserializer(new RawDeserializer())
        // records of aborted upstream transactions must not reach the filter
        .setProperty("isolation.level", "read_committed")
        .setProperty("commit.offsets.on.checkpoint", "true");
  }

  public static KafkaSource<RawRecord> source(JobConfig c) {
    return sourceBuilder(c).build();
  }

  public static KafkaSink<UrlRecord> outputSink(JobConfig c) {
    return exactlyOnceSink(c, "-out", new UrlSerializer(c.outputTopic));
  }

  /** Null when {@code --dlq-topic none}: dead letters are then only counted. */
  public static KafkaSink<DeadLetter> dlqSink(JobConfig c) {
    if (Flags.NONE.equalsIgnoreCase(c.dlqTopic)) {
      return null;
    }
    return exactlyOnceSink(c, "-dlq", new DeadLetterSerializer(c.dlqTopic));
  }

  /**
   * An exactly-once sink with the job's producer settings, transactional ids {@code
   * --transactional-id-prefix} + {@code suffix}. Public for benchmark peers, which must write as
   * the job writes.
   */
  public static <T> KafkaSink<T> exactlyOnceSink(
      JobConfig c, String suffix, KafkaRecordSerializationSchema<T> serializer) {
    return KafkaSink.<T>builder()
        .setKafkaProducerConfig(producerProperties(c))
        .setBootstrapServers(c.bootstrapServers)
        .setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
        .setTransactionalIdPrefix(c.transactionalIdPrefix + suffix)
        .setRecordSerializer(serializer)
        .build();
  }

  /** The {@code --kafka-properties} file, loaded; empty without one. */
  static Properties clientProperties(JobConfig c) {
    Properties p = new Properties();
    if (c.kafkaPropertiesFile != null) {
      try (Reader r = Files.newBufferedReader(c.kafkaPropertiesFile, StandardCharsets.UTF_8)) {
        p.load(r);
      } catch (IOException e) {
        throw new ConfigException(
            "--kafka-properties: cannot read "
                + c.kafkaPropertiesFile
                + " ("
                + e.getClass().getSimpleName()
                + ")");
      }
    }
    for (String reserved : List.of("isolation.level", "enable.idempotence", "transactional.id")) {
      if (p.containsKey(reserved)) {
        throw new ConfigException(
            "--kafka-properties: '"
                + reserved
                + "' is set by urldedup"
                + " (exactly-once needs it); accepted: client settings such as security.protocol, sasl.*, ssl.*");
      }
    }
    return p;
  }

  /** The source's consumer settings: {@link KafkaClientDefaults#CONSUMER}, then the file's. */
  static Properties consumerProperties(JobConfig c) {
    return KafkaClientDefaults.with(KafkaClientDefaults.CONSUMER, clientProperties(c));
  }

  /** The sinks' producer settings: {@link KafkaClientDefaults#PRODUCER}, then the file's. */
  static Properties producerProperties(JobConfig c) {
    Properties p = KafkaClientDefaults.with(KafkaClientDefaults.PRODUCER, clientProperties(c));
    // The builder's default (1 h) exceeds the broker's transaction.max.timeout.ms (15 min):
    // every transaction would be refused and the job would restart forever.
    p.setProperty("transaction.timeout.ms", Long.toString(c.transactionTimeout.toMillis()));
    return p;
  }

  /**
   * The consumed record's headers, not copied: the consumer hands each record over once and keeps
   * no reference ({@link RecordHeaders#wrap}). No header, no allocation.
   */
  static RecordHeaders toRecordHeaders(org.apache.kafka.common.header.Headers headers) {
    Header[] all = headers.toArray();
    if (all.length == 0) {
      return RecordHeaders.EMPTY;
    }
    String[] names = new String[all.length];
    byte[][] values = new byte[all.length][];
    for (int i = 0; i < all.length; i++) {
      names[i] = all[i].key();
      values[i] = all[i].value();
    }
    return RecordHeaders.wrap(names, values);
  }

  /** The output's headers: the input's, in order; null (none written) when there were none. */
  public static org.apache.kafka.common.header.internals.RecordHeaders toKafka(RecordHeaders h) {
    if (h.size() == 0) {
      return null;
    }
    Header[] out = new Header[h.size()];
    for (int i = 0; i < h.size(); i++) {
      out[i] = new RecordHeader(h.name(i), h.value(i));
    }
    return new org.apache.kafka.common.header.internals.RecordHeaders(out);
  }

  /**
   * Keeps key, value and headers as the consumer's deserializer made them (no further copy) and the
   * origin {@code topic-partition@offset} as its parts, formatted only for a dead letter.
   */
  static final class RawDeserializer implements KafkaRecordDeserializationSchema<RawRecord> {
    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> r, Collector<RawRecord> out) {
      out.collect(
          RawRecord.fromKafka(
              r.key(),
              r.value(),
              toRecordHeaders(r.headers()),
              r.topic(),
              r.partition(),
              r.offset()));
    }

    @Override
    public TypeInformation<RawRecord> getProducedType() {
      return TypeInformation.of(RawRecord.class);
    }
  }

  /** Key = the URL's host or domain (partitions by host, as crawlers' fetch queues want). */
  static final class UrlSerializer implements KafkaRecordSerializationSchema<UrlRecord> {
    private final String topic;

    UrlSerializer(String topic) {
      this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
        UrlRecord r, KafkaSinkContext ctx, Long timestamp) {
      return new ProducerRecord<>(topic, null, timestamp, r.key(), r.value, toKafka(r.headers));
    }
  }

  /** The original record, byte-exact, plus why it was rejected, in headers. */
  static final class DeadLetterSerializer implements KafkaRecordSerializationSchema<DeadLetter> {
    private final String topic;

    DeadLetterSerializer(String topic) {
      this.topic = topic;
    }

    @Override
    public ProducerRecord<byte[], byte[]> serialize(
        DeadLetter d, KafkaSinkContext ctx, Long timestamp) {
      org.apache.kafka.common.header.internals.RecordHeaders h = toKafka(d.headers);
      if (h == null) {
        h = new org.apache.kafka.common.header.internals.RecordHeaders();
      }
      h.add(HEADER_REASON, d.reason.label().getBytes(StandardCharsets.UTF_8));
      h.add(HEADER_DETAIL, (d.detail == null ? "" : d.detail).getBytes(StandardCharsets.UTF_8));
      h.add(HEADER_ORIGIN, (d.origin == null ? "" : d.origin).getBytes(StandardCharsets.UTF_8));
      return new ProducerRecord<>(topic, null, timestamp, d.key, d.value, h);
    }
  }
}
