package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.ExceptionUtils;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The job end to end against a broker that only accepts SASL (PLAIN, SCRAM-SHA-512), with the
 * credentials given the way an operator gives them: a {@code --kafka-properties} file applied to
 * source, output sink and DLQ sink. Output read read_committed: every unique URL exactly once
 * (scalable filter at fpr 1e-6 over 400 URLs: expected false positives < 400 x 1e-6 = 4e-4, and the
 * fixed seed makes the run deterministic). A wrong password must fail the job, not hang it.
 */
class KafkaSecurityTest {

  static final String PASSWORD = "pw-sec-Test-7Hq2";

  @RegisterExtension static final MiniClusterExtension FLINK = TestMiniCluster.withSlots(2);

  @RegisterExtension static final SaslKafka KAFKA = new SaslKafka(PASSWORD);

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {SaslKafka.PLAIN, SaslKafka.SCRAM})
  @Timeout(120)
  void runsEndToEndWithSaslCredentialsFromThePropertiesFile(String mechanism) throws Exception {
    SaslJobRun run = new SaslJobRun("sec-" + mechanism.toLowerCase().replace("-", ""));
    run.produce(KAFKA);
    Path props = KAFKA.writeProperties(dir.resolve("kafka.properties"), mechanism);
    JobConfig config = JobConfig.parse(run.args(KAFKA, props, "--hash-seed", "1234"), Map.of());
    run.start(config);
    Map<String, Integer> counts;
    try {
      counts = run.readOutput(KAFKA, mechanism, Duration.ofSeconds(90));
    } finally {
      run.cancel();
    }
    List<String> twice = new ArrayList<>();
    counts.forEach(
        (u, n) -> {
          if (n > 1) {
            twice.add(u);
          }
        });
    assertEquals(List.of(), twice, "emitted more than once");
    assertEquals(run.expected, counts.keySet());
  }

  @Test
  @Timeout(30)
  void theListenerRefusesAWrongPassword() {
    Properties p = SaslKafka.credentials(SaslKafka.SCRAM, SaslKafka.USER, PASSWORD + "x");
    p.setProperty("bootstrap.servers", KAFKA.bootstrapServers());
    p.setProperty("default.api.timeout.ms", "10000");
    p.setProperty("request.timeout.ms", "5000");
    try (Admin admin = Admin.create(p)) {
      ExecutionException e =
          assertThrows(
              ExecutionException.class,
              () -> admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS));
      assertTrue(e.getCause() instanceof SaslAuthenticationException, e.toString());
    }
  }

  @Test
  @Timeout(90)
  void aWrongPasswordFailsTheJobWithTheAuthenticationError() throws Exception {
    SaslJobRun run = new SaslJobRun("sec-wrong");
    run.produce(KAFKA);
    Path props = dir.resolve("wrong.properties");
    Properties wrong = SaslKafka.credentials(SaslKafka.PLAIN, SaslKafka.USER, "not-the-password");
    try (var w = Files.newBufferedWriter(props)) {
      wrong.store(w, null);
    }
    run.start(JobConfig.parse(run.args(KAFKA, props), Map.of()));
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> run.job.getJobExecutionResult().get(80, TimeUnit.SECONDS));
    assertTrue(
        ExceptionUtils.findThrowable(e, SaslAuthenticationException.class).isPresent(),
        () ->
            "expected a SaslAuthenticationException in the failure, got "
                + ExceptionUtils.stringifyException(e));
    assertTrue(
        !ExceptionUtils.stringifyException(e).contains("not-the-password"),
        "the failure must not carry the password");
  }
}
