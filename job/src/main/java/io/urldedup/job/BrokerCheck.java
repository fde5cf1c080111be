package io.urldedup.job;

import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.KafkaException;

/**
 * Before a Kafka-mode job starts in this JVM ({@code ./urldedup run --bootstrap-servers ...}): is a
 * broker there? Without one the job does not fail: its Kafka clients retry forever, warning every
 * second, and the run never exits. One {@code describeCluster} with the job's client properties
 * ({@code --kafka-properties}: a broker that requires SASL is asked with SASL) answers it within
 * {@link #TIMEOUT}; no answer exits 2 naming {@code --bootstrap-servers}.
 *
 * <p>Only "no answer" is refused: a broker that answers with an error (a wrong password, an
 * unauthorized client) is there, and the job reports that itself, as it does on a cluster. A job
 * submitted to a cluster ({@code flink run}) is not checked: its TaskManagers, not the client, must
 * reach the brokers, and the cluster's restart strategy decides how long to wait for them. The
 * properties' values are never printed: only the servers, which are not secret.
 */
final class BrokerCheck {

  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private BrokerCheck() {}

  /**
   * Returns once a broker answered; throws a {@link ConfigException} if none did within {@code
   * timeout}.
   */
  static void require(JobConfig c, Duration timeout) {
    Properties p = KafkaIO.clientProperties(c);
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, c.bootstrapServers);
    p.put(AdminClientConfig.CLIENT_ID_CONFIG, "urldedup-broker-check");
    int ms = (int) timeout.toMillis();
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, Integer.toString(ms));
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, Integer.toString(ms));
    Admin admin;
    try {
      admin = Admin.create(p);
    } catch (KafkaException e) {
      // e.g. "No resolvable bootstrap urls given in bootstrap.servers": about the servers only
      throw new ConfigException(
          KafkaFlags.BOOTSTRAP_SERVERS.flag()
              + " "
              + c.bootstrapServers
              + ": the Kafka client"
              + " cannot use it ("
              + (e.getMessage() != null && e.getMessage().contains("bootstrap")
                  ? e.getMessage()
                  : e.getClass().getSimpleName() + "; check --kafka-properties")
              + "); accepted: HOST:PORT[,...] of reachable brokers");
    }
    try {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs(ms))
          .nodes()
          .get(ms + 5_000L, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
        throw unreachable(c, timeout);
      }
      // a broker answered (with an error the job will report itself)
    } catch (TimeoutException e) {
      throw unreachable(c, timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConfigException(
          KafkaFlags.BOOTSTRAP_SERVERS.flag() + ": interrupted while checking the brokers");
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  private static ConfigException unreachable(JobConfig c, Duration timeout) {
    return new ConfigException(
        KafkaFlags.BOOTSTRAP_SERVERS.flag()
            + " "
            + c.bootstrapServers
            + ": no Kafka broker"
            + " answered within "
            + timeout.toSeconds()
            + " s (not running, or not reachable from here); accepted:"
            + " HOST:PORT[,...] of running brokers");
  }
}
