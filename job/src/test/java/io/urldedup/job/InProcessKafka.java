package io.urldedup.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/** One in-process KRaft broker (combined controller) for a test class, with small helpers. */
final class InProcessKafka implements AutoCloseable {

  private final KafkaClusterTestKit cluster;

  InProcessKafka() throws Exception {
    cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
        .setCombined(true)
        .setNumBrokerNodes(1)
        .setNumControllerNodes(1)
        // without it the cluster is formatted with an unstable metadata version
        .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
        .build())
        .setConfigProp("offsets.topic.replication.factor", "1")
        .setConfigProp("offsets.topic.num.partitions", "2")
        .setConfigProp("transaction.state.log.replication.factor", "1")
        .setConfigProp("transaction.state.log.min.isr", "1")
        .setConfigProp("transaction.state.log.num.partitions", "2")
        .setConfigProp("group.initial.rebalance.delay.ms", "0")
        .build();
    cluster.format();
    cluster.startup();
    cluster.waitForReadyBrokers();
  }

  String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  void createTopics(int partitions, String... topics) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
      List<NewTopic> t = new ArrayList<>();
      for (String name : topics) {
        t.add(new NewTopic(name, partitions, (short) 1));
      }
      admin.createTopics(t).all().get();
      // producing before every partition has a leader makes the first sends fail over, which
      // on a loaded machine left an idempotent producer stuck in OUT_OF_ORDER_SEQUENCE retries
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (true) {
        boolean ready = true;
        for (TopicDescription d : admin.describeTopics(List.of(topics)).allTopicNames().get().values()) {
          for (TopicPartitionInfo p : d.partitions()) {
            ready &= p.leader() != null && !p.leader().isEmpty();
          }
        }
        if (ready || System.nanoTime() > deadline) {
          break;
        }
        Thread.sleep(100);
      }
    }
  }

  void produce(List<ProducerRecord<byte[], byte[]>> records) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrapServers());
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("acks", "all");
    p.put("linger.ms", "5");
    // test data: plain ordered retries instead of idempotent sequences (see createTopics)
    p.put("enable.idempotence", "false");
    p.put("max.in.flight.requests.per.connection", "1");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (ProducerRecord<byte[], byte[]> r : records) {
        producer.send(r);
      }
      producer.flush();
    }
  }

  /** A read_committed consumer of a whole topic from the beginning (no group). */
  KafkaConsumer<byte[], byte[]> committedReader(String topic, int partitions) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrapServers());
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    p.put("isolation.level", "read_committed");
    p.put("enable.auto.commit", "false");
    KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
    List<TopicPartition> tps = new ArrayList<>();
    for (int i = 0; i < partitions; i++) {
      tps.add(new TopicPartition(topic, i));
    }
    c.assign(tps);
    c.seekToBeginning(tps);
    return c;
  }

  /** Polls until {@code done} holds for what was read so far, or the deadline passes. */
  static List<ConsumerRecord<byte[], byte[]>> readUntil(
      KafkaConsumer<byte[], byte[]> consumer, List<ConsumerRecord<byte[], byte[]>> into,
      Predicate<List<ConsumerRecord<byte[], byte[]>>> done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.test(into) && System.nanoTime() < deadline) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
        into.add(r);
      }
    }
    return into;
  }

  @Override
  public void close() throws Exception {
    cluster.close();
  }
}
