package io.urldedup.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One in-process KRaft broker (combined controller) for a test class, registered with
 * {@code @RegisterExtension}: started before the class's tests, closed after them. Subclasses say
 * how clients get in ({@link #clientProperties()}); topic, produce and read helpers are shared.
 */
abstract class TestKafkaBroker implements BeforeAllCallback, AfterAllCallback, AutoCloseable {

  private KafkaClusterTestKit cluster;

  /** The cluster to start; build it on {@link #singleNode}. */
  abstract KafkaClusterTestKit.Builder cluster();

  /** Bootstrap servers plus the security settings an admin or producer needs. */
  abstract Properties clientProperties();

  /** Runs once the broker is ready. */
  void started() throws Exception {}

  /** One combined broker/controller with single-replica internal topics. */
  static KafkaClusterTestKit.Builder singleNode(TestKitNodes.Builder nodes) {
    return new KafkaClusterTestKit.Builder(
            nodes
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
        .setConfigProp("group.initial.rebalance.delay.ms", "0");
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    cluster = cluster().build();
    try {
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      started();
    } catch (Exception e) {
      close();
      throw e;
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    close();
  }

  String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  void createTopics(int partitions, String... topics) throws Exception {
    try (Admin admin = Admin.create(clientProperties())) {
      List<NewTopic> t = new ArrayList<>();
      for (String name : topics) {
        t.add(new NewTopic(name, partitions, (short) 1));
      }
      admin.createTopics(t).all().get();
      // producing before every partition has a leader makes the first sends fail over
      // (NOT_LEADER_OR_FOLLOWER), which on a loaded machine left an idempotent producer stuck in
      // OUT_OF_ORDER_SEQUENCE_NUMBER retries: wait for the leaders
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!leadersElected(admin, topics)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no partition leaders after 30 s for " + List.of(topics));
        }
        Thread.sleep(100);
      }
    }
  }

  /**
   * Whether every partition of the topics has a leader. Right after {@code createTopics} the broker
   * that answers may not know the topic yet ({@code UnknownTopicOrPartitionException}, a {@link
   * RetriableException} like {@code LeaderNotAvailableException}): that is "not yet".
   */
  private static boolean leadersElected(Admin admin, String... topics) throws Exception {
    try {
      return admin.describeTopics(List.of(topics)).allTopicNames().get().values().stream()
          .allMatch(
              d ->
                  d.partitions().stream()
                      .allMatch(pi -> pi.leader() != null && !pi.leader().isEmpty()));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RetriableException) {
        return false;
      }
      throw e;
    }
  }

  void produce(List<ProducerRecord<byte[], byte[]>> records) {
    Properties p = clientProperties();
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("acks", "all");
    p.put("linger.ms", "5");
    // test data: plain ordered retries instead of idempotent sequences (see createTopics);
    // order and exactly-once are the job's side
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
  KafkaConsumer<byte[], byte[]> committedReader(Properties client, String topic, int partitions) {
    Properties p = new Properties();
    p.putAll(client);
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
      KafkaConsumer<byte[], byte[]> consumer,
      List<ConsumerRecord<byte[], byte[]>> into,
      Predicate<List<ConsumerRecord<byte[], byte[]>>> done,
      Duration timeout) {
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
    if (cluster != null) {
      KafkaClusterTestKit c = cluster;
      cluster = null;
      c.close();
    }
  }
}
