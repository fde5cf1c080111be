package io.urldedup.samples;

import java.io.FileWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The load and the latency probe of {@code deploy/local/soak.sh}: produces {@link
 * CrawlStreamGenerator} lines into the input topic at a fixed rate for a fixed time, and reads the
 * output topic with {@code isolation.level=read_committed}, measuring each record's end-to-end
 * latency as the time it became visible minus its Kafka timestamp (the producer's create time,
 * which the job's sink passes through).
 *
 * <p>Every {@code --window-s} it appends a CSV line {@code epoch_s,produced_total,produced_per_s,
 * consumed_total,consumed_per_s,lat_p50_ms,lat_p99_ms,lat_max_ms}; at the end it prints {@code
 * soak-driver: ...} with the latency percentiles over every record produced after the warm-up, from
 * a 1 ms histogram (exact to 1 ms; latencies above {@link #MAX_MS} count as {@link #MAX_MS}).
 *
 * <pre>
 * java -cp samples/target/classes:KAFKA_CLIENTS_JARS io.urldedup.samples.SoakDriver \
 *     --bootstrap-servers 127.0.0.1:50092 --input-topic in --output-topic out \
 *     --rate 20000 --seconds 1800 --warmup-s 300 --csv driver.csv
 * </pre>
 */
public final class SoakDriver {

  static final int MAX_MS = 600_000;

  private SoakDriver() {}

  /** Latency histogram in 1 ms buckets; the percentiles are exact to the bucket. */
  static final class Histogram {
    private final long[] counts = new long[MAX_MS + 1];
    private long total;
    private long max;

    void add(long ms) {
      int b = (int) Math.max(0, Math.min(MAX_MS, ms));
      counts[b]++;
      total++;
      max = Math.max(max, b);
    }

    long total() {
      return total;
    }

    long max() {
      return max;
    }

    /** The smallest latency L with at least q of the records at or below L; -1 when empty. */
    long quantile(double q) {
      if (total == 0) {
        return -1;
      }
      long rank = (long) Math.ceil(q * total);
      long seen = 0;
      for (int i = 0; i <= MAX_MS; i++) {
        seen += counts[i];
        if (seen >= rank) {
          return i;
        }
      }
      return MAX_MS;
    }
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = null;
    String input = null;
    String output = null;
    String csv = null;
    long rate = 20_000;
    long seconds = 60;
    long warmupS = 0;
    long windowS = 10;
    long drainS = 60;
    long seed = 1;
    try {
      for (int i = 0; i < args.length; i++) {
        String v = i + 1 < args.length ? args[i + 1] : null;
        switch (args[i]) {
          case "--bootstrap-servers" -> bootstrap = need(v, args[i++]);
          case "--input-topic" -> input = need(v, args[i++]);
          case "--output-topic" -> output = need(v, args[i++]);
          case "--csv" -> csv = need(v, args[i++]);
          case "--rate" -> rate = positive(v, args[i++]);
          case "--seconds" -> seconds = positive(v, args[i++]);
          case "--warmup-s" -> warmupS = Long.parseLong(need(v, args[i++]));
          case "--window-s" -> windowS = positive(v, args[i++]);
          case "--drain-s" -> drainS = Long.parseLong(need(v, args[i++]));
          case "--seed" -> seed = Long.parseLong(need(v, args[i++]));
          default -> throw new IllegalArgumentException("unknown flag " + args[i]);
        }
      }
      if (bootstrap == null || input == null || output == null || csv == null) {
        throw new IllegalArgumentException(
            "--bootstrap-servers, --input-topic, --output-topic and --csv are required");
      }
    } catch (IllegalArgumentException e) {
      System.err.println("SoakDriver: " + e.getMessage());
      System.err.println(
          "usage: SoakDriver --bootstrap-servers HOST:PORT --input-topic T --output-topic T"
              + " --csv FILE [--rate N/s] [--seconds N] [--warmup-s N] [--window-s N] [--drain-s N] [--seed S]");
      System.exit(2);
      return;
    }

    AtomicLong produced = new AtomicLong();
    long startMs = System.currentTimeMillis();
    long warmupEndMs = startMs + warmupS * 1000;
    long produceEndMs = startMs + seconds * 1000;
    Producer producer = new Producer(bootstrap, input, rate, seconds, seed, produced);
    Thread pt = new Thread(producer, "soak-producer");
    pt.setDaemon(true);

    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");

    Histogram afterWarmup = new Histogram();
    long[] window = new long[1 << 16];
    int windowN = 0;
    long consumed = 0;
    long lastProduced = 0;
    long lastConsumed = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp);
        PrintWriter out =
            new PrintWriter(new FileWriter(csv, StandardCharsets.UTF_8, true), true)) {
      List<TopicPartition> parts = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(output, Duration.ofSeconds(30))) {
        parts.add(new TopicPartition(output, p.partition()));
      }
      consumer.assign(parts);
      consumer.seekToEnd(parts);
      parts.forEach(consumer::position);
      pt.start();
      long nextWindowMs = startMs + windowS * 1000;
      long lastVisibleMs = System.currentTimeMillis();
      while (true) {
        long now = System.currentTimeMillis();
        if (now >= produceEndMs
            && (now - lastVisibleMs > drainS * 1000 || now >= produceEndMs + drainS * 1000)) {
          break;
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          long seen = System.currentTimeMillis();
          long lat = seen - r.timestamp();
          if (windowN == window.length) {
            window = Arrays.copyOf(window, window.length * 2);
          }
          window[windowN++] = lat;
          if (r.timestamp() >= warmupEndMs) {
            afterWarmup.add(lat);
          }
          consumed++;
          lastVisibleMs = seen;
        }
        now = System.currentTimeMillis();
        if (now >= nextWindowMs) {
          long p = produced.get();
          Arrays.sort(window, 0, windowN);
          out.printf(
              Locale.ROOT,
              "%d,%d,%.1f,%d,%.1f,%s,%s,%s%n",
              now / 1000,
              p,
              (p - lastProduced) / (double) windowS,
              consumed,
              (consumed - lastConsumed) / (double) windowS,
              pct(window, windowN, 0.50),
              pct(window, windowN, 0.99),
              windowN == 0 ? "" : window[windowN - 1]);
          lastProduced = p;
          lastConsumed = consumed;
          windowN = 0;
          nextWindowMs += windowS * 1000;
        }
      }
    }
    producer.stop();
    pt.join(10_000);
    System.out.printf(
        Locale.ROOT,
        "soak-driver: produced=%d consumed=%d producer_errors=%d after_warmup=%d lat_p50_ms=%d lat_p99_ms=%d lat_p999_ms=%d lat_max_ms=%d%n",
        produced.get(),
        consumed,
        producer.errors.get(),
        afterWarmup.total(),
        afterWarmup.quantile(0.5),
        afterWarmup.quantile(0.99),
        afterWarmup.quantile(0.999),
        afterWarmup.max());
  }

  /** Nearest-rank percentile of the first n sorted values; empty field when there are none. */
  private static String pct(long[] sorted, int n, double q) {
    if (n == 0) {
      return "";
    }
    int rank = (int) Math.ceil(q * n);
    return Long.toString(sorted[Math.max(0, rank - 1)]);
  }

  /**
   * Paces {@link CrawlStreamGenerator} lines into Kafka: after t seconds, rate * t records sent.
   */
  private static final class Producer implements Runnable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final long rate;
    private final long seconds;
    private final CrawlStreamGenerator gen;
    private final AtomicLong produced;
    final AtomicLong errors = new AtomicLong();
    private volatile boolean stopped;

    Producer(
        String bootstrap, String topic, long rate, long seconds, long seed, AtomicLong produced) {
      Properties pp = new Properties();
      pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
      pp.put(ProducerConfig.BATCH_SIZE_CONFIG, "131072");
      pp.put(ProducerConfig.ACKS_CONFIG, "all");
      this.producer = new KafkaProducer<>(pp);
      this.topic = topic;
      this.rate = rate;
      this.seconds = seconds;
      this.gen =
          new CrawlStreamGenerator(CrawlStreamGenerator.Settings.defaults(rate * seconds, seed));
      this.produced = produced;
    }

    void stop() {
      stopped = true;
    }

    @Override
    public void run() {
      StringBuilder line = new StringBuilder(256);
      StringBuilder canonical = new StringBuilder(256);
      long total = rate * seconds;
      long t0 = System.nanoTime();
      long sent = 0;
      try {
        while (!stopped && sent < total) {
          long due = Math.min(total, (System.nanoTime() - t0) / 1000 * rate / 1_000_000);
          while (sent < due) {
            line.setLength(0);
            canonical.setLength(0);
            gen.next(line, canonical);
            producer.send(
                new ProducerRecord<>(topic, line.toString().getBytes(StandardCharsets.UTF_8)),
                (md, e) -> {
                  if (e != null) {
                    errors.incrementAndGet();
                  }
                });
            sent++;
            produced.set(sent);
          }
          Thread.sleep(2);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        producer.close(Duration.ofSeconds(10));
      }
    }
  }

  private static String need(String v, String flag) {
    if (v == null) {
      throw new IllegalArgumentException(flag + " needs a value");
    }
    return v;
  }

  private static long positive(String v, String flag) {
    long n;
    try {
      n = Long.parseLong(need(v, flag));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": '" + v + "' is not an integer");
    }
    if (n <= 0) {
      throw new IllegalArgumentException(flag + ": expected an integer > 0, got " + n);
    }
    return n;
  }
}
