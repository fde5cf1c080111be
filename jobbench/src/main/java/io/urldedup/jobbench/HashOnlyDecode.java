package io.urldedup.jobbench;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.OutputKey;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.UrlRecord;
import io.urldedup.state.UrlHasher;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The decode step without canonicalization: each line is taken as its own canonical URL (the
 * generator's default stream is canonical ASCII), hashed, sharded and keyed as {@code
 * RecordDecoder} does. Measures the job's cost outside the URL parser: source, hash, serialization,
 * shuffle, dedup, sink ({@code --decode hash-only}). Not a decoder: no validation at all.
 */
final class HashOnlyDecode extends ProcessFunction<RawRecord, UrlRecord> {

  private static final long serialVersionUID = 1L;

  private final long seed;
  private final int shards;
  private transient UrlHasher hasher;
  private transient OutputKey outputKey;
  private transient long[] hash;

  HashOnlyDecode(long seed, int shards) {
    this.seed = seed;
    this.shards = shards;
  }

  @Override
  public void open(OpenContext context) {
    hasher = new UrlHasher(seed);
    outputKey = new OutputKey(DecodeConfig.KeyMode.HOST);
    hash = new long[2];
  }

  @Override
  public void processElement(RawRecord in, Context ctx, Collector<UrlRecord> out) {
    byte[] v = in.value;
    String url = new String(v, ISO_8859_1);
    hasher.hash(v, 0, v.length, hash);
    out.collect(new UrlRecord(url, v, key(v), in.headers, hash[0], hash[1],
        UrlHasher.shard(hash[0], hash[1], shards), false));
  }

  /** The host's key: the bytes after {@code ://} up to the port, path, query or fragment. */
  private byte[] key(byte[] v) {
    int s = 0;
    while (s + 2 < v.length && !(v[s] == ':' && v[s + 1] == '/' && v[s + 2] == '/')) {
      s++;
    }
    s = Math.min(v.length, s + 3);
    int e = s;
    while (e < v.length && v[e] != ':' && v[e] != '/' && v[e] != '?' && v[e] != '#') {
      e++;
    }
    return outputKey.of(v, s, e);
  }
}
