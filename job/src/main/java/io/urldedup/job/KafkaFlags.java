package io.urldedup.job;

import io.urldedup.job.JobConfig.StartingOffsets;
import java.time.Duration;
import java.util.List;

/**
 * The Kafka-mode flags ({@link Flags} lists them in {@code --help} order; giving any of {@link
 * Flags#KAFKA_OPTIONS} selects Kafka mode). Declared as {@link Flags} explains.
 */
public final class KafkaFlags {

  public static final Option<String> BOOTSTRAP_SERVERS =
      Option.string("bootstrap-servers", "HOST:PORT[,...]")
          .in(Flags.KAFKA)
          .help("Kafka bootstrap servers.");
  public static final Option<List<String>> INPUT_TOPIC =
      Option.list("input-topic", "TOPIC[,...]")
          .in(Flags.KAFKA)
          .help("Topic(s) of discovered URLs.");
  public static final Option<String> OUTPUT_TOPIC =
      Option.string("output-topic", "TOPIC")
          .in(Flags.KAFKA)
          .help("Topic the unseen URLs go to (exactly once).");
  public static final Option<String> DLQ_TOPIC =
      Option.string("dlq-topic", "TOPIC|none")
          .in(Flags.KAFKA)
          .help(
              "Dead-letter topic (exactly once). Required: 'none' must be explicit and only counts"
                  + " dead letters.");
  public static final Option<String> GROUP_ID =
      Option.nonEmpty("group-id", "ID")
          .in(Flags.KAFKA)
          .defaultValue("urldedup")
          .help("Consumer group (offsets are committed at checkpoints).");
  public static final Option<String> KAFKA_PROPERTIES =
      Option.string("kafka-properties", "FILE")
          .in(Flags.KAFKA)
          .help(
              "Java properties applied to source, sink and DLQ clients (security.protocol, sasl.*, ssl.*);"
                  + " they override urldedup's throughput defaults (README, Kafka client defaults). Values are"
                  + " never logged.");
  public static final Option<StartingOffsets> STARTING_OFFSETS =
      Option.choice("starting-offsets", StartingOffsets.class)
          .in(Flags.KAFKA)
          .defaultValue("committed")
          .help(
              "Where a fresh job starts; 'committed' falls back to earliest. A restore from a"
                  + " checkpoint or savepoint always resumes at its offsets.");
  public static final Option<String> TRANSACTIONAL_ID_PREFIX =
      Option.nonEmpty("transactional-id-prefix", "PREFIX")
          .in(Flags.KAFKA)
          .defaultValue("urldedup")
          .help(
              "Prefix of the sinks' Kafka transactional ids (-out, -dlq appended); unique per job.");
  public static final Option<Duration> TRANSACTION_TIMEOUT =
      Option.duration(
              "transaction-timeout",
              Duration.ofSeconds(1),
              Duration.ofMillis(Integer.MAX_VALUE),
              "between 1s and 24d, e.g. 10min")
          .in(Flags.KAFKA)
          .defaultValue("10min")
          .help(
              "transaction.timeout.ms of the sinks; must exceed the checkpoint interval and be at most"
                  + " the broker's transaction.max.timeout.ms (default 15min).");

  private KafkaFlags() {}
}
