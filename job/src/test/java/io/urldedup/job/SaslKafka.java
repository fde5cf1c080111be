package io.urldedup.job;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One in-process KRaft broker whose client listener ({@code EXTERNAL}) only speaks SASL_PLAINTEXT
 * with PLAIN and SCRAM-SHA-512, for a known user {@link #USER} and a password chosen by the test.
 *
 * <p>KafkaClusterTestKit 4.2 supports PLAINTEXT and SASL_PLAINTEXT only (TestKitNodes refuses
 * others), so SASL_SSL is tested on the real stack (deploy/local/security-check.sh). With
 * SASL_PLAINTEXT the kit writes a JAAS file for PLAIN (user plain-admin); the listener-and-mechanism prefixed {@code sasl.jaas.config} below takes
 * precedence over that file, so the test's user and password are the ones the broker checks. The
 * authorizer is switched off: authentication is under test, not ACLs.
 * SCRAM credentials live in the cluster metadata and are created through the Admin API as
 * plain-admin.
 */
final class SaslKafka implements AutoCloseable {

  static final String USER = "urldedup";
  static final String ADMIN = "plain-admin";
  static final String ADMIN_PASSWORD = "plain-admin-secret";
  static final String PLAIN = "PLAIN";
  static final String SCRAM = "SCRAM-SHA-512";

  private final KafkaClusterTestKit cluster;
  private final String password;

  SaslKafka(String password) throws Exception {
    this.password = password;
    String plainJaas = "org.apache.kafka.common.security.plain.PlainLoginModule required"
        + " username=\"" + ADMIN + "\" password=\"" + ADMIN_PASSWORD + "\""
        + " user_" + ADMIN + "=\"" + ADMIN_PASSWORD + "\""
        + " user_" + USER + "=\"" + password + "\";";
    cluster = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
        .setCombined(true)
        .setNumBrokerNodes(1)
        .setNumControllerNodes(1)
        .setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
        .setBootstrapMetadataVersion(MetadataVersion.latestProduction())
        .build())
        .setConfigProp("sasl.enabled.mechanisms", PLAIN + "," + SCRAM)
        .setConfigProp("sasl.mechanism.inter.broker.protocol", PLAIN)
        .setConfigProp("listener.name.external.plain.sasl.jaas.config", plainJaas)
        .setConfigProp("listener.name.external.scram-sha-512.sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required;")
        // authentication is what is tested, not ACLs: the kit's StandardAuthorizer would also
        // refuse the (PLAINTEXT, ANONYMOUS) controller listener's broker registration
        .setConfigProp("authorizer.class.name", "")
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
    try (Admin admin = Admin.create(adminProperties())) {
      admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
          USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
          .all().get();
    }
    awaitScram();
  }

  String bootstrapServers() {
    return cluster.bootstrapServers();
  }

  /** What a user puts into the {@code --kafka-properties} file for this mechanism. */
  Properties userProperties(String mechanism) {
    return credentials(mechanism, USER, password);
  }

  static Properties credentials(String mechanism, String user, String password) {
    String module = mechanism.equals(PLAIN)
        ? "org.apache.kafka.common.security.plain.PlainLoginModule"
        : "org.apache.kafka.common.security.scram.ScramLoginModule";
    Properties p = new Properties();
    p.setProperty("security.protocol", "SASL_PLAINTEXT");
    p.setProperty("sasl.mechanism", mechanism);
    p.setProperty("sasl.jaas.config",
        module + " required username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }

  /** Writes the user's properties for {@code mechanism} to {@code file}, as an operator would. */
  Path writeProperties(Path file, String mechanism) throws IOException {
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      userProperties(mechanism).store(w, "urldedup --kafka-properties (" + mechanism + ")");
    }
    return file;
  }

  Properties adminProperties() {
    Properties p = credentials(PLAIN, ADMIN, ADMIN_PASSWORD);
    p.setProperty("bootstrap.servers", bootstrapServers());
    return p;
  }

  void createTopics(int partitions, String... topics) throws Exception {
    try (Admin admin = Admin.create(adminProperties())) {
      List<NewTopic> t = new ArrayList<>();
      for (String name : topics) {
        t.add(new NewTopic(name, partitions, (short) 1));
      }
      admin.createTopics(t).all().get();
      // producing before the partitions have a leader ends in NOT_LEADER_OR_FOLLOWER, then an
      // idempotent producer can stall on OUT_OF_ORDER_SEQUENCE_NUMBER: wait for the leaders
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!admin.describeTopics(List.of(topics)).allTopicNames().get().values().stream()
          .allMatch(d -> d.partitions().stream().allMatch(pi -> pi.leader() != null && !pi.leader().isEmpty()))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("no partition leaders after 30 s for " + List.of(topics));
        }
        Thread.sleep(100);
      }
    }
  }

  void produce(List<ProducerRecord<byte[], byte[]>> records) {
    Properties p = adminProperties();
    p.put("key.serializer", ByteArraySerializer.class.getName());
    p.put("value.serializer", ByteArraySerializer.class.getName());
    p.put("acks", "all");
    p.put("linger.ms", "5");
    // the input only needs to arrive (order and exactly-once are the job's side)
    p.put("enable.idempotence", "false");
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      for (ProducerRecord<byte[], byte[]> r : records) {
        producer.send(r);
      }
      producer.flush();
    }
  }

  /** A read_committed consumer authenticated as the user with {@code mechanism}. */
  KafkaConsumer<byte[], byte[]> committedReader(String mechanism, String topic, int partitions) {
    Properties p = userProperties(mechanism);
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

  /** SCRAM credentials reach the broker through the metadata log: wait until a login works. */
  private void awaitScram() throws Exception {
    Properties p = userProperties(SCRAM);
    p.setProperty("bootstrap.servers", bootstrapServers());
    p.setProperty("default.api.timeout.ms", "3000");
    p.setProperty("request.timeout.ms", "2000");
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      try (Admin admin = Admin.create(p)) {
        admin.describeCluster().clusterId().get();
        return;
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("SCRAM login still refused after 30 s", e);
        }
        Thread.sleep(200);
      }
    }
  }

  static Map<String, Object> asMap(Properties p) {
    Map<String, Object> m = new java.util.HashMap<>();
    p.forEach((k, v) -> m.put((String) k, v));
    return m;
  }

  @Override
  public void close() throws Exception {
    cluster.close();
  }
}
