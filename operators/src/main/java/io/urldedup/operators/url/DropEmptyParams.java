package io.urldedup.operators.url;

import java.util.ArrayList;
import java.util.List;

/**
 * Opt-in rule {@code --drop-empty-params}: empty pairs ({@code &&}, a leading or trailing {@code
 * &}) and parameters with '=' and an empty value ({@code a=}) are removed. A bare name ({@code
 * ?print}) is a flag and is kept. Merges {@code ?a=&b=1} with {@code ?b=1}, which differ for a
 * server that tests for the name. Pure.
 */
public final class DropEmptyParams {

  private DropEmptyParams() {}

  /**
   * @param query the query without '?'; the result may be empty (then the '?' goes too)
   */
  public static String apply(String query) {
    String[] pairs = query.split("&", -1);
    List<String> kept = new ArrayList<>(pairs.length);
    for (String p : pairs) {
      if (!p.isEmpty() && !(p.endsWith("=") && p.indexOf('=') == p.length() - 1)) {
        kept.add(p);
      }
    }
    return kept.size() == pairs.length ? query : String.join("&", kept);
  }
}
