package io.urldedup.stateops;

import io.urldedup.operators.RecordHeaders;
import io.urldedup.operators.UrlRecord;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Filters;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.UrlHasher;
import io.urldedup.state.UrlMapping;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Synthetic hashed URLs and the reference decisions (the filters over heap pages) for the stateops
 * tests.
 */
final class TestUrls {

  static final long SEED = 0x5EED_5747_E0B5_0001L;
  static final UrlHasher HASHER = new UrlHasher(SEED);
  static final long FINGERPRINT = HASHER.seedFingerprint();
  static final int SHARDS_ = 8;
  static final UrlMapping MAPPING =
      new UrlMapping(FINGERPRINT, SHARDS_, 0x7E57_CA70_0000_0001L, "--test=1");
  static final int SHARDS = SHARDS_;
  static final int MAX_PARALLELISM = 128;

  private TestUrls() {}

  static UrlRecord record(String url) {
    byte[] bytes = url.getBytes(StandardCharsets.UTF_8);
    long[] h = new long[2];
    HASHER.hash(bytes, 0, bytes.length, h);
    return new UrlRecord(
        url,
        bytes,
        null,
        RecordHeaders.EMPTY,
        h[0],
        h[1],
        UrlHasher.shard(h[0], h[1], SHARDS),
        false);
  }

  /** {@code n} distinct URLs, every tenth line followed by a repeat of an earlier one. */
  static List<UrlRecord> urls(String prefix, int n) {
    List<UrlRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(record("https://host" + (i % 17) + ".example/" + prefix + "/" + i));
      if (i % 10 == 9) {
        out.add(record("https://host" + (i / 2 % 17) + ".example/" + prefix + "/" + (i / 2)));
      }
    }
    return out;
  }

  static <T> List<T> concat(List<T> a, List<T> b) {
    List<T> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /** The filters over heap pages, fed in order: what the operator must leave in state and emit. */
  static final class Reference {
    private final FilterSpec spec;
    final Map<Integer, DedupFilter> filters = new HashMap<>();

    Reference(FilterSpec spec) {
      this.spec = spec;
    }

    /** The URLs emitted (answered unseen). */
    List<String> feed(List<UrlRecord> records) {
      List<String> emitted = new ArrayList<>();
      for (UrlRecord r : records) {
        DedupFilter f =
            filters.computeIfAbsent(
                r.shard, s -> Filters.open(spec.newHeader(MAPPING), new HeapPageStore()));
        if (!f.testAndAdd(r.h1, r.h2)) {
          emitted.add(r.url());
        }
      }
      return emitted;
    }

    Map<Integer, FilterHeader> headers() {
      Map<Integer, FilterHeader> out = new TreeMap<>();
      filters.forEach((shard, f) -> out.put(shard, f.header().copy()));
      return out;
    }
  }
}
