package io.urldedup.state;

/**
 * Where a filter's 64-bit words live: fixed 4 KiB pages addressed by a 64-bit page id, fetched on
 * demand. The operator backs this with a bounded write-back cache over a Flink {@code MapState}, so
 * a record touches one small state entry instead of (de)serializing a whole filter; tests and
 * benchmarks use {@link HeapPageStore}.
 *
 * <p>A filter never touches more than one page per element: blocks never straddle pages.
 */
public interface PageStore {

  int PAGE_WORDS = 512;
  int PAGE_BYTES = PAGE_WORDS * Long.BYTES;

  /**
   * The words of page {@code pageId}; a page never written reads as zeros. The returned array stays
   * valid until the next call to {@code page}; a caller that modifies it calls {@link
   * #markDirty(long)} before that.
   */
  long[] page(long pageId);

  /** Records that the last page returned for {@code pageId} was modified. */
  void markDirty(long pageId);
}
