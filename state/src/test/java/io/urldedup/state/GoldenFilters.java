package io.urldedup.state;

import java.nio.charset.StandardCharsets;

/** The tiny, fully deterministic filters pinned by the golden files. */
final class GoldenFilters {

  static final long SEED = 0x0123456789abcdefL;
  static final int URLS = 200;

  private GoldenFilters() {}

  static byte[] url(int i) {
    return ("https://golden.example/" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Stable, 8 KiB (2 pages), d = 2, 200 URLs. */
  static FilterFormat.Loaded stable() {
    return build(FilterSpec.stable(0.01, 8 << 10, 2));
  }

  /** Scalable, first slice 64 URLs: 200 URLs make 3 slices of one page each. */
  static FilterFormat.Loaded scalable() {
    return build(FilterSpec.scalable(0.01, 64, 2, 0.5, 1 << 20));
  }

  static FilterFormat.Loaded build(FilterSpec spec) {
    UrlHasher hasher = new UrlHasher(SEED);
    FilterHeader h = spec.newHeader(hasher.seedFingerprint());
    HeapPageStore pages = new HeapPageStore();
    DedupFilter f = Filters.open(h, pages);
    long[] hash = new long[2];
    for (int i = 0; i < URLS; i++) {
      byte[] u = url(i);
      hasher.hash(u, 0, u.length, hash);
      f.testAndAdd(hash[0], hash[1]);
    }
    return new FilterFormat.Loaded(h, pages);
  }
}
