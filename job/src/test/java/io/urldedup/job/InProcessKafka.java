package io.urldedup.job;

import java.util.Properties;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/** A {@link TestKafkaBroker} with a PLAINTEXT client listener. */
final class InProcessKafka extends TestKafkaBroker {

  @Override
  KafkaClusterTestKit.Builder cluster() {
    return singleNode(new TestKitNodes.Builder());
  }

  @Override
  Properties clientProperties() {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrapServers());
    return p;
  }

  /** A read_committed consumer of a whole topic from the beginning (no group). */
  KafkaConsumer<byte[], byte[]> committedReader(String topic, int partitions) {
    return committedReader(new Properties(), topic, partitions);
  }
}
