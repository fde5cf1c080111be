package io.urldedup.state;

/** Opens the filter a header describes over a page store. */
public final class Filters {

  private Filters() {}

  /** The filter of {@code header} over {@code pages}; inserts update {@code header} in place. */
  public static DedupFilter open(FilterHeader header, PageStore pages) {
    return switch (header.kind()) {
      case STABLE -> new StableBloomFilter(header, pages);
      case SCALABLE -> new ScalableBloomFilter(header, pages);
      case AGED -> AgedBloomFilter.open(header, pages);
    };
  }
}
