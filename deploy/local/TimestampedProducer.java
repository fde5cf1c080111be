import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces lines {@code <epoch ms><TAB><value>} from stdin to one partition of a topic, each record
 * with that explicit timestamp (the console producer cannot set one): the record time an event-time
 * job sees, whatever the wall clock does. Idempotent, acks=all, flushed before exit; prints the
 * number of records sent.
 *
 * <p>Run as a single-file program with the Kafka client jars:
 * {@code java -cp 'lib/kafka/*' TimestampedProducer.java BOOTSTRAP TOPIC PARTITION < lines}.
 */
public final class TimestampedProducer {

  public static void main(String[] a) throws Exception {
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", a[0]);
    p.setProperty("acks", "all");
    p.setProperty("enable.idempotence", "true");
    p.setProperty("delivery.timeout.ms", "120000");
    String topic = a[1];
    int partition = Integer.parseInt(a[2]);
    long n = 0;
    try (KafkaProducer<byte[], byte[]> producer =
             new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
         BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        int tab = line.indexOf('\t');
        if (tab < 0) {
          throw new IllegalArgumentException("expected <epoch ms><TAB><value>: " + line);
        }
        long ts = Long.parseLong(line.substring(0, tab));
        byte[] value = line.substring(tab + 1).getBytes(StandardCharsets.UTF_8);
        producer.send(new ProducerRecord<>(topic, partition, ts, null, value)).get();
        n++;
      }
      producer.flush();
    }
    System.out.println(n);
  }
}
