package io.urldedup.operators.url;

import java.util.Arrays;

/**
 * Opt-in rule {@code --sort-params}: query parameters sorted by name (stable: parameters of one
 * name keep their order). Merges {@code ?b=2&a=1} with {@code ?a=1&b=2}, which most servers treat
 * alike but nothing guarantees (order-sensitive APIs, repeated names). Pure.
 */
public final class SortParams {

  private SortParams() {}

  /**
   * @param query the query without '?'
   */
  public static String apply(String query) {
    if (query.indexOf('&') < 0) {
      return query;
    }
    String[] pairs = query.split("&", -1);
    String[] sorted = pairs.clone();
    Arrays.sort(sorted, (a, b) -> name(a).compareTo(name(b))); // merge sort: stable
    return Arrays.equals(pairs, sorted) ? query : String.join("&", sorted);
  }

  static String name(String pair) {
    int eq = pair.indexOf('=');
    return eq < 0 ? pair : pair.substring(0, eq);
  }
}
