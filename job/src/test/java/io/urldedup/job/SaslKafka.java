package io.urldedup.job;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * One in-process KRaft broker whose client listener ({@code EXTERNAL}) only speaks SASL_PLAINTEXT
 * with PLAIN and SCRAM-SHA-512, for a known user {@link #USER} and a password chosen by the test.
 *
 * <p>KafkaClusterTestKit 4.2 supports PLAINTEXT and SASL_PLAINTEXT only (TestKitNodes refuses
 * others), so SASL_SSL is tested on the real stack (deploy/local/security-check.sh). With
 * SASL_PLAINTEXT the kit writes a JAAS file for PLAIN (user plain-admin); the
 * listener-and-mechanism prefixed {@code sasl.jaas.config} below takes precedence over that file,
 * so the test's user and password are the ones the broker checks. The authorizer is switched off:
 * authentication is under test, not ACLs. SCRAM credentials live in the cluster metadata and are
 * created through the Admin API as plain-admin.
 */
final class SaslKafka extends TestKafkaBroker {

  static final String USER = "urldedup";
  static final String ADMIN = "plain-admin";
  static final String ADMIN_PASSWORD = "plain-admin-secret";
  static final String PLAIN = "PLAIN";
  static final String SCRAM = "SCRAM-SHA-512";

  private final String password;

  SaslKafka(String password) {
    this.password = password;
  }

  @Override
  KafkaClusterTestKit.Builder cluster() {
    String plainJaas =
        "org.apache.kafka.common.security.plain.PlainLoginModule required"
            + " username=\""
            + ADMIN
            + "\" password=\""
            + ADMIN_PASSWORD
            + "\""
            + " user_"
            + ADMIN
            + "=\""
            + ADMIN_PASSWORD
            + "\""
            + " user_"
            + USER
            + "=\""
            + password
            + "\";";
    return singleNode(
            new TestKitNodes.Builder().setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT))
        .setConfigProp("sasl.enabled.mechanisms", PLAIN + "," + SCRAM)
        .setConfigProp("sasl.mechanism.inter.broker.protocol", PLAIN)
        .setConfigProp("listener.name.external.plain.sasl.jaas.config", plainJaas)
        .setConfigProp(
            "listener.name.external.scram-sha-512.sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required;")
        // authentication is what is tested, not ACLs: the kit's StandardAuthorizer would also
        // refuse the (PLAINTEXT, ANONYMOUS) controller listener's broker registration
        .setConfigProp("authorizer.class.name", "");
  }

  @Override
  void started() throws Exception {
    try (Admin admin = Admin.create(adminProperties())) {
      admin
          .alterUserScramCredentials(
              List.of(
                  new UserScramCredentialUpsertion(
                      USER, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
          .all()
          .get();
    }
    awaitScram();
  }

  /** What a user puts into the {@code --kafka-properties} file for this mechanism. */
  Properties userProperties(String mechanism) {
    return credentials(mechanism, USER, password);
  }

  static Properties credentials(String mechanism, String user, String password) {
    String module =
        mechanism.equals(PLAIN)
            ? "org.apache.kafka.common.security.plain.PlainLoginModule"
            : "org.apache.kafka.common.security.scram.ScramLoginModule";
    Properties p = new Properties();
    p.setProperty("security.protocol", "SASL_PLAINTEXT");
    p.setProperty("sasl.mechanism", mechanism);
    p.setProperty(
        "sasl.jaas.config",
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

  @Override
  Properties clientProperties() {
    return adminProperties();
  }

  Properties adminProperties() {
    Properties p = credentials(PLAIN, ADMIN, ADMIN_PASSWORD);
    p.setProperty("bootstrap.servers", bootstrapServers());
    return p;
  }

  /** A read_committed consumer authenticated as the user with {@code mechanism}. */
  KafkaConsumer<byte[], byte[]> committedReader(String mechanism, String topic, int partitions) {
    return committedReader(userProperties(mechanism), topic, partitions);
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
    Map<String, Object> m = new HashMap<>();
    p.forEach((k, v) -> m.put((String) k, v));
    return m;
  }
}
