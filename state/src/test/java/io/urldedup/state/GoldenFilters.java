package io.urldedup.state;

import java.nio.charset.StandardCharsets;

/** The tiny, fully deterministic filters pinned by the golden files. */
final class GoldenFilters {

  static final long SEED = 0x0123456789abcdefL;
  static final int URLS = 200;

  /** What the v2 and later files record: shard count and canonicalization as a job would. */
  static final UrlMapping MAPPING =
      new UrlMapping(
          new UrlHasher(SEED).seedFingerprint(),
          16,
          0x0fedcba987654321L,
          "canonicalization-version=1\n--strip-params=none\n--strip-www=true\n");

  /** What the v1 files hold: the seed fingerprint only. */
  static final UrlMapping V1_MAPPING = UrlMapping.seedOnly(new UrlHasher(SEED).seedFingerprint());

  private GoldenFilters() {}

  static byte[] url(int i) {
    return ("https://golden.example/" + i).getBytes(StandardCharsets.UTF_8);
  }

  /** Stable, 8 KiB (2 pages), d = 2, 200 URLs. */
  static FilterFormat.Loaded stable() {
    return stable(MAPPING);
  }

  static FilterFormat.Loaded stable(UrlMapping mapping) {
    return build(FilterSpec.stable(0.01, 8 << 10, 2), mapping);
  }

  /** Scalable, first slice 64 URLs: 200 URLs make 3 slices of one page each. */
  static FilterFormat.Loaded scalable() {
    return scalable(MAPPING);
  }

  static FilterFormat.Loaded scalable(UrlMapping mapping) {
    return build(FilterSpec.scalable(0.01, 64, 2, 0.5, 1 << 20), mapping);
  }

  /** The aged golden's spec: a count window of 100 new URLs in 4 generations at 1%. */
  static final AgedSpec AGED_SPEC = FilterSpec.agedCount(0.01, 100, 4);

  /**
   * The layout the v3 golden was written with (k = 5, l = 4, 5 rows, g = 25), literal: sizing may
   * change, the state it wrote may not.
   */
  static final AgedMath.Geometry AGED_V3_GEOMETRY = new AgedMath.Geometry(5, 4, 5, 25);

  /**
   * Aged, header layout 3 (row of one word per slice, page stamps): the 200 URLs turn the ring 7
   * times, so the pages hold stale columns that a reader must treat as empty.
   */
  static FilterFormat.Loaded aged() {
    return build(FilterHeader.aged(AGED_SPEC, MAPPING, AGED_V3_GEOMETRY, 0));
  }

  /**
   * The layout the v4 golden was written with: layout 2, rows of one cache line (k = 5, l = 4, 7
   * rows, g = 25; 51-bit segments), literal.
   */
  static final AgedMath.Geometry AGED_V4_GEOMETRY = AgedMath.Geometry.lineRows(1, 5, 4, 7, 25);

  /** Aged, header layout 4 (layout 2): the same 200 URLs, the ring turned 7 times. */
  static FilterFormat.Loaded agedV4() {
    return build(FilterHeader.aged(AGED_SPEC, MAPPING, AGED_V4_GEOMETRY, 0));
  }

  static FilterFormat.Loaded build(FilterSpec spec, UrlMapping mapping) {
    return build(spec.newHeader(mapping));
  }

  static FilterFormat.Loaded build(FilterHeader h) {
    UrlHasher hasher = new UrlHasher(SEED);
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
