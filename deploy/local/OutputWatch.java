import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * When committed output becomes visible: a read_committed consumer of the output topic that
 * writes one line {@code <epoch ms> <records>} for every poll that returned records, until it is
 * killed or its deadline passes. faults.sh reads it for "output flowing again" after a fault
 * (records of an aborted transaction are never returned, so a line after a recovery is output
 * committed after it).
 *
 * <p>Run as a single-file program with the Kafka client jars:
 * {@code java -cp 'lib/kafka/*' OutputWatch.java BOOTSTRAP TOPIC FILE SECONDS}.
 */
public final class OutputWatch {

  public static void main(String[] a) throws IOException {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", a[0]);
    p.setProperty("isolation.level", "read_committed");
    p.setProperty("enable.auto.commit", "false");
    p.setProperty("key.deserializer", ByteArrayDeserializer.class.getName());
    p.setProperty("value.deserializer", ByteArrayDeserializer.class.getName());
    long deadline = System.currentTimeMillis() + Long.parseLong(a[3]) * 1000;
    try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
        PrintWriter w = new PrintWriter(Files.newBufferedWriter(Path.of(a[2]), StandardCharsets.UTF_8))) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo i : c.partitionsFor(a[1], Duration.ofSeconds(60))) {
        parts.add(new TopicPartition(a[1], i.partition()));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      while (System.currentTimeMillis() < deadline) {
        ConsumerRecords<byte[], byte[]> r = c.poll(Duration.ofMillis(200));
        if (!r.isEmpty()) {
          w.println(System.currentTimeMillis() + " " + r.count());
          w.flush();
        }
      }
    }
  }
}
