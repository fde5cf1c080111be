package io.urldedup.job;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The Kafka client settings urldedup sets where the client's own default costs throughput. Each is
 * a default only: {@code --kafka-properties} overrides it (README, "Kafka client defaults").
 *
 * <p>Why these: the job reads a backlog in bulk and its sinks are transactional. Output becomes
 * visible only at a checkpoint commit (read_committed), so a producer that waits to fill larger
 * batches adds no latency a consumer can see, as long as {@code linger.ms} stays well below the
 * checkpoint interval; the consumer likewise gains nothing from small, frequent fetches.
 */
final class KafkaClientDefaults {

  /** Source consumer. Kafka client defaults in brackets. */
  static final Map<String, String> CONSUMER =
      ordered(
          // [1 byte] a fetch answers once 64 KiB are there (or fetch.max.wait.ms passed): fewer,
          // fuller fetch round trips per record when the topic is being read behind its head
          "fetch.min.bytes", "65536",
          // [500 ms] bounds the wait fetch.min.bytes may cause on a quiet topic to 0.1 s
          "fetch.max.wait.ms", "100",
          // [500] records handed over per poll(): 10x fewer polls, each a lock hand-off between the
          // connector's fetcher thread and the task thread
          "max.poll.records", "5000");

  /** Exactly-once sinks' producers (output and dead letters). */
  static final Map<String, String> PRODUCER =
      ordered(
          // [5 ms] waits up to 0.1 s to fill a batch; invisible downstream, as output is only
          // visible
          // at the next checkpoint (seconds later)
          "linger.ms", "100",
          // [16 KiB] 256 KiB batches per partition: fewer produce requests and broker appends per
          // record
          "batch.size", "262144");

  private KafkaClientDefaults() {}

  /** The defaults, then {@code overrides} (the {@code --kafka-properties} file) over them. */
  static Properties with(Map<String, String> defaults, Properties overrides) {
    Properties p = new Properties();
    defaults.forEach(p::setProperty);
    overrides.forEach(p::put);
    return p;
  }

  private static Map<String, String> ordered(String... kv) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put(kv[i], kv[i + 1]);
    }
    return Collections.unmodifiableMap(m);
  }
}
