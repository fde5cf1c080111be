package io.urldedup.state;

/** Opens the filter a header describes over a page store, or its census of stored pages. */
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

  /**
   * The census of the filter of {@code header}: its stored pages read as its lookups read them. The
   * filter is opened over a store it never reads (a census is given its pages) and changes nothing,
   * the header included.
   */
  public static PageCensus census(FilterHeader header) {
    PageStore unread = new HeapPageStore();
    return switch (header.kind()) {
      case STABLE -> new StableBloomFilter(header, unread)::census;
      case SCALABLE -> new ScalableBloomFilter(header, unread)::census;
      case AGED -> AgedBloomFilter.open(header, unread)::census;
    };
  }
}
