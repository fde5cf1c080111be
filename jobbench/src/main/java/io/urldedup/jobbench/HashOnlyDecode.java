package io.urldedup.jobbench;

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
    hasher.hash(v, 0, v.length, hash);
    UrlRecord r = new UrlRecord();
    r.value = v;
    r.setUrl(v, 0, v.length);
    key(r, v);
    r.headers = in.headers;
    r.h1 = hash[0];
    r.h2 = hash[1];
    r.shard = UrlHasher.shard(hash[0], hash[1], shards);
    out.collect(r);
  }

  /** The host's key: the bytes after {@code ://} up to the port, path, query or fragment. */
  private void key(UrlRecord r, byte[] v) {
    int s = 0;
    while (s + 2 < v.length && !(v[s] == ':' && v[s + 1] == '/' && v[s + 2] == '/')) {
      s++;
    }
    s = Math.min(v.length, s + 3);
    int e = s;
    while (e < v.length && v[e] != ':' && v[e] != '/' && v[e] != '?' && v[e] != '#') {
      e++;
    }
    outputKey.set(r, v, s, e);
  }
}
