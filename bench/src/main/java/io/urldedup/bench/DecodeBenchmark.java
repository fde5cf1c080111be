package io.urldedup.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import crawlercommons.filters.basic.BasicURLNormalizer;
import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordDecoder;
import io.urldedup.operators.UrlCanonicalizer;
import io.urldedup.operators.UrlRecord;
import io.urldedup.operators.UrlRejectedException;
import io.urldedup.operators.url.CanonicalUrl;
import io.urldedup.samples.CrawlStreamGenerator;
import io.urldedup.state.UrlHasher;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The URL front end per URL, on {@value #N} generated links (CrawlStreamGenerator, seed 1, text):
 * {@code clean} = already-canonical links ({@code --variants 0}), {@code messy} = {@code --messy
 * --variants 0.5} (IDN and IP hosts, ports, userinfo, case, dots, escapes, '//', parameter order,
 * empty parameters, fragments, whitespace). Benchmarks, per URL:
 *
 * <ul>
 *   <li>{@code decode}: {@link RecordDecoder#decode} bytes to {@link UrlRecord} (canonical URL,
 *       XXH3-128 hash, shard, host key): the job's decode step;
 *   <li>{@code canonicalHashKey}: the same work without building the record: canonical bytes
 *       ({@link CanonicalUrl} view), hash, host offsets (the allocation-free core);
 *   <li>{@code basicUrlNormalizer}: crawler-commons 1.6 {@code BasicURLNormalizer.filter} on the
 *       string (baseline: the previous canonicalizer's core, no hash or key);
 *   <li>{@code javaNetUri}: {@code new URI(s).normalize().toASCIIString()} (baseline: no IDNA, no
 *       hash or key; throws on some messy links, counted as done).
 * </ul>
 *
 * Run: {@code java -jar bench/target/benchmarks.jar DecodeBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx1g"})
public class DecodeBenchmark {

  static final int N = 4096;

  @Param({"clean", "messy"})
  public String corpus;

  private RawRecord[] records;
  private byte[][] bytes;
  private String[] strings;
  private RecordDecoder decoder;
  private UrlCanonicalizer canonicalizer;
  private final CanonicalUrl canonical = new CanonicalUrl();
  private final UrlHasher hasher = new UrlHasher(42);
  private final long[] hash = new long[2];
  private final BasicURLNormalizer normalizer =
      BasicURLNormalizer.newBuilder()
          .idnNormalization(BasicURLNormalizer.IdnNormalization.PUNYCODE)
          .build();

  @Setup
  public void setUp() throws Exception {
    String[] flags =
        corpus.equals("clean")
            ? new String[] {"--lines", Integer.toString(N), "--variants", "0"}
            : new String[] {"--lines", Integer.toString(N), "--messy", "--variants", "0.5"};
    CrawlStreamGenerator g = new CrawlStreamGenerator(CrawlStreamGenerator.parse(flags));
    records = new RawRecord[N];
    bytes = new byte[N][];
    strings = new String[N];
    StringBuilder line = new StringBuilder();
    StringBuilder canon = new StringBuilder();
    for (int i = 0; i < N; i++) {
      line.setLength(0);
      canon.setLength(0);
      g.next(line, canon);
      strings[i] = line.toString();
      bytes[i] = strings[i].getBytes(UTF_8);
      records[i] = new RawRecord(null, bytes[i], null, "bench:" + i);
    }
    DecodeConfig config = DecodeConfig.builder().hashSeed(42).build();
    decoder = new RecordDecoder(config);
    canonicalizer = UrlCanonicalizer.of(config);
    for (RawRecord r : records) {
      try {
        decoder.decode(r);
      } catch (UrlRejectedException e) {
        throw new IllegalStateException("corpus link rejected: " + e.detail());
      }
    }
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public void decode(Blackhole bh) throws UrlRejectedException {
    for (RawRecord r : records) {
      bh.consume(decoder.decode(r));
    }
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public void canonicalHashKey(Blackhole bh) throws UrlRejectedException {
    for (byte[] b : bytes) {
      canonicalizer.canonicalize(b, 0, b.length, canonical);
      hasher.hash(canonical.bytes, canonical.start, canonical.length(), hash);
      bh.consume(hash[0] ^ hash[1] ^ canonical.hostStart ^ canonical.hostEnd);
    }
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public void basicUrlNormalizer(Blackhole bh) {
    for (String s : strings) {
      bh.consume(normalizer.filter(s));
    }
  }

  @Benchmark
  @OperationsPerInvocation(N)
  public void javaNetUri(Blackhole bh) {
    for (String s : strings) {
      try {
        bh.consume(new URI(s).normalize().toASCIIString());
      } catch (URISyntaxException e) {
        bh.consume(e);
      }
    }
  }
}
