package io.urldedup.samples;

import java.io.FileReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The crawler's side of the output topic, reduced to what matters for the frontier: read only
 * committed records ({@code isolation.level=read_committed}: the job writes in Kafka transactions
 * committed at checkpoints) and check host affinity. With {@code --key host} every host lands in
 * one partition, so one fetcher owns a host and can enforce its politeness delay without
 * coordination.
 *
 * <p>Reads all partitions from the beginning up to their end as of the start (assign, no consumer
 * group, nothing committed; with read_committed the end is the last stable offset, so open
 * transactions are not waited for), or {@code --follow} until no record arrives for {@code
 * --idle-ms}; then prints per partition the record count, distinct hosts and top hosts, and the
 * hosts seen in more than one partition. {@code --print} writes each record to stdout first ({@code
 * partition<TAB>key<TAB>value}, with {@code --print-headers} the headers as a fourth column {@code
 * name:value,...}) and the report to stderr. Exit code 0 when affinity holds, 1 when it does not, 2
 * on bad flags.
 *
 * <pre>
 * java -cp samples/target/classes:KAFKA_CLIENTS_JARS io.urldedup.samples.FrontierConsumer \
 *     --bootstrap-servers 127.0.0.1:19092 --topic urldedup.out [--follow --idle-ms 5000] [--print]
 * </pre>
 */
public final class FrontierConsumer {

  private FrontierConsumer() {}

  public static void main(String[] args) throws IOException {
    String bootstrap = null;
    String topic = null;
    String propsFile = null;
    long idleMs = 10_000;
    long max = Long.MAX_VALUE;
    boolean print = false;
    boolean printHeaders = false;
    boolean follow = false;
    long timeoutMs = 120_000;
    try {
      for (int i = 0; i < args.length; i++) {
        switch (args[i]) {
          case "--bootstrap-servers" -> bootstrap = value(args, ++i, "--bootstrap-servers");
          case "--topic" -> topic = value(args, ++i, "--topic");
          case "--kafka-properties" -> propsFile = value(args, ++i, "--kafka-properties");
          case "--idle-ms" -> idleMs = Long.parseLong(value(args, ++i, "--idle-ms"));
          case "--max-records" -> max = Long.parseLong(value(args, ++i, "--max-records"));
          case "--timeout-ms" -> timeoutMs = Long.parseLong(value(args, ++i, "--timeout-ms"));
          case "--print" -> print = true;
          case "--print-headers" -> printHeaders = true;
          case "--follow" -> follow = true;
          default -> throw new IllegalArgumentException("unknown flag " + args[i]);
        }
      }
      if (bootstrap == null || topic == null) {
        throw new IllegalArgumentException("--bootstrap-servers and --topic are required");
      }
    } catch (IllegalArgumentException e) {
      System.err.println("FrontierConsumer: " + e.getMessage());
      System.err.println(
          "usage: FrontierConsumer --bootstrap-servers HOST:PORT --topic TOPIC"
              + " [--kafka-properties FILE] [--follow] [--idle-ms MS] [--timeout-ms MS] [--max-records N]"
              + " [--print [--print-headers]]");
      System.exit(2);
      return;
    }

    Properties props = new Properties();
    if (propsFile != null) {
      try (Reader r = new FileReader(propsFile, StandardCharsets.UTF_8)) {
        props.load(r);
      }
    }
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());

    // with --print the records own stdout and the report goes to stderr
    PrintStream out = System.out;
    PrintStream report = print ? System.err : System.out;
    Map<Integer, Map<String, Long>> hostsByPartition = new TreeMap<>();
    Map<String, TreeSet<Integer>> partitionsByHost = new HashMap<>();
    long records = 0;
    long unkeyed = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
        partitions.add(new TopicPartition(topic, p.partition()));
        hostsByPartition.put(p.partition(), new HashMap<>());
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long start = System.currentTimeMillis();
      long lastRecord = start;
      while (records < max
          && System.currentTimeMillis() - start < timeoutMs
          && (follow ? System.currentTimeMillis() - lastRecord < idleMs : !atEnd(consumer, end))) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          lastRecord = System.currentTimeMillis();
          String url = r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8);
          String host;
          if (r.key() != null) {
            host = new String(r.key(), StandardCharsets.UTF_8);
          } else {
            unkeyed++;
            host = hostOf(url);
          }
          hostsByPartition.get(r.partition()).merge(host, 1L, Long::sum);
          partitionsByHost.computeIfAbsent(host, h -> new TreeSet<>()).add(r.partition());
          if (print) {
            StringBuilder line =
                new StringBuilder()
                    .append(r.partition())
                    .append('\t')
                    .append(r.key() == null ? "" : host)
                    .append('\t')
                    .append(url);
            if (printHeaders) {
              line.append('\t');
              String sep = "";
              for (Header h : r.headers()) {
                line.append(sep)
                    .append(h.key())
                    .append(':')
                    .append(h.value() == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
                sep = ",";
              }
            }
            out.println(line);
          }
          if (++records >= max) {
            break;
          }
        }
      }
    }

    report.printf(
        Locale.ROOT,
        "%s: %d committed records, %d hosts%s%n",
        topic,
        records,
        partitionsByHost.size(),
        unkeyed > 0 ? " (" + unkeyed + " without key: host parsed from the URL)" : "");
    report.println("partition  records  hosts  top hosts");
    for (Map.Entry<Integer, Map<String, Long>> e : hostsByPartition.entrySet()) {
      Map<String, Long> hosts = e.getValue();
      long n = hosts.values().stream().mapToLong(Long::longValue).sum();
      StringBuilder top = new StringBuilder();
      hosts.entrySet().stream()
          .sorted(
              Map.Entry.<String, Long>comparingByValue()
                  .reversed()
                  .thenComparing(Map.Entry.comparingByKey()))
          .limit(3)
          .forEach(
              h ->
                  top.append(top.length() == 0 ? "" : ", ")
                      .append(h.getKey())
                      .append(" (")
                      .append(h.getValue())
                      .append(')'));
      report.printf(Locale.ROOT, "%9d %8d %6d  %s%n", e.getKey(), n, hosts.size(), top);
    }
    long split = partitionsByHost.values().stream().filter(s -> s.size() > 1).count();
    if (split == 0) {
      report.println("host affinity: every host is in exactly one partition");
      return;
    }
    report.println("host affinity BROKEN: " + split + " hosts in more than one partition, e.g.:");
    partitionsByHost.entrySet().stream()
        .filter(e -> e.getValue().size() > 1)
        .limit(5)
        .forEach(e -> report.println("  " + e.getKey() + " -> partitions " + e.getValue()));
    System.exit(1);
  }

  private static boolean atEnd(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return args[i];
  }

  static String hostOf(String url) {
    try {
      String h = URI.create(url).getHost();
      return h == null ? "(no host)" : h;
    } catch (IllegalArgumentException e) {
      return "(unparseable)";
    }
  }
}
