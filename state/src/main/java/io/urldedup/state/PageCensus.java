package io.urldedup.state;

/**
 * A filter's census of its stored pages ({@link Filters#census}): decodes one page (given, not
 * fetched) into {@link CensusSink} counts. Pages may come in any order; a page never written is
 * absent and holds nothing. Changes nothing.
 */
@FunctionalInterface
public interface PageCensus {

  /**
   * Reports page {@code pageId}'s units to {@code to}; returns whether the page is one of the
   * filter's (scalable: a page of a slice the header does not have is not, and reports nothing).
   */
  boolean count(long pageId, long[] words, CensusSink to);
}
