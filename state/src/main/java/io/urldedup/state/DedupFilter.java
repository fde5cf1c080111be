package io.urldedup.state;

/**
 * What the dedup operator needs of a filter: one shard's filter, its small mutable {@link
 * FilterHeader} plus pages in a {@link PageStore}. Inputs are the two halves of the URL's {@link
 * UrlHasher} hash; no method allocates.
 */
public interface DedupFilter {

  /**
   * Answers whether the element was (probably) present and inserts it if it was not; a {@code true}
   * changes nothing. A {@code true} is a duplicate, possibly a false positive; for the stable
   * filter a {@code false} may be a forgotten element (false negative).
   */
  boolean testAndAdd(long h1, long h2);

  /**
   * {@code seen[i] = testAndAdd(h1[i], h2[i])} for i = 0..n-1 in order: the same answers and the
   * same pages and header as the n single calls. Implementations may first touch the n elements'
   * cache lines so that their memory misses overlap (see {@link
   * BlockedBloomFilter#testAndAdd(long[], long[], int, boolean[])}); this default is the plain
   * loop. With a bounded page cache, keep n well below its capacity in pages: the touch pass
   * fetches n pages before the calls use them.
   */
  default void testAndAdd(long[] h1, long[] h2, int n, boolean[] seen) {
    for (int i = 0; i < n; i++) {
      seen[i] = testAndAdd(h1[i], h2[i]);
    }
  }

  /** Whether the element is (probably) present; changes nothing. */
  boolean mightContain(long h1, long h2);

  /** Inserts without asking (forced re-emission still records the URL). */
  void add(long h1, long h2);

  /** The persisted small part (parameters, counters, slices); inserts mutate it in place. */
  FilterHeader header();

  /**
   * Fraction of non-zero bits (blocked/scalable) or cells (stable); may be an estimate from
   * counters.
   */
  double fillRatio();

  /**
   * The false-positive rate the filter has now (model from counters; for a capped scalable filter
   * it rises).
   */
  double estimatedFpr();

  /**
   * Bytes of pages this filter addresses (allocated memory, not the compressed checkpoint size).
   */
  long sizeBytes();

  /** Number of slices (scalable) or 1. */
  int sliceCount();

  /**
   * From now on, reports every change of pages or header to {@code log} ({@code null}: to none), so
   * that {@link InsertLog#replay} onto the same starting pages and header redoes them exactly.
   */
  void logTo(InsertLog log);

  /**
   * Redoes one logged change ({@link InsertLog#INSERT}, {@link InsertLog#PRESENT} or {@link
   * InsertLog#ADVANCE} with its two words) exactly as it was first made; reports nothing to the
   * log.
   */
  void redo(int op, long a, long b);
}
