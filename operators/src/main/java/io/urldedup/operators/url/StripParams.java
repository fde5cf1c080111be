package io.urldedup.operators.url;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Opt-in rule {@code --strip-params}: query parameters ({@code name=value}) and path parameters
 * ({@code ;name=value}, e.g. {@code ;jsessionid=}) whose name matches one of the patterns are
 * removed. Names match case-insensitively as written in the canonical URL; '*' in a pattern matches
 * any run of characters ({@code utm_*}). Session ids and tracking parameters name no other
 * resource, but a pattern that matches a real parameter merges pages. Pure.
 */
public final class StripParams implements Serializable {

  private static final long serialVersionUID = 1L;

  private final List<String> patterns;

  /**
   * @param patterns lower-case names, '*' as a wildcard
   */
  public StripParams(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
  }

  public List<String> patterns() {
    return patterns;
  }

  /** Whether {@code name} matches a pattern. */
  public boolean matches(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (String p : patterns) {
      if (glob(p, name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code s} matches {@code pattern}, '*' matching any run of characters, ASCII letters
   * case-insensitively. Greedy with a return to the last '*' only: O(|pattern| x |s|) at worst,
   * where the regex this replaces ({@code .*} per '*') backtracks polynomially in the number of
   * stars on a long parameter name that almost matches.
   */
  static boolean glob(String pattern, String s) {
    int p = 0;
    int i = 0;
    int star = -1; // the last '*' seen in the pattern
    int resume = 0; // where in s that '*' stopped matching
    while (i < s.length()) {
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        star = p++;
        resume = i;
      } else if (p < pattern.length() && lower(pattern.charAt(p)) == lower(s.charAt(i))) {
        p++;
        i++;
      } else if (star >= 0) {
        p = star + 1; // let the last '*' take one more character
        i = ++resume;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }

  private static char lower(char c) {
    return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
  }

  /** The query (without '?') without matching parameters; may become empty. */
  public String query(String query) {
    String[] pairs = query.split("&", -1);
    List<String> kept = new ArrayList<>(pairs.length);
    for (String p : pairs) {
      if (!matches(SortParams.name(p))) {
        kept.add(p);
      }
    }
    return kept.size() == pairs.length ? query : String.join("&", kept);
  }

  /** The path without matching {@code ;name=value} parameters of its segments. */
  public String path(String path) {
    if (path.indexOf(';') < 0) {
      return path;
    }
    StringBuilder b = new StringBuilder(path.length());
    int i = 0;
    while (i < path.length()) {
      char c = path.charAt(i);
      if (c != ';') {
        b.append(c);
        i++;
        continue;
      }
      int j = i + 1;
      while (j < path.length() && path.charAt(j) != ';' && path.charAt(j) != '/') {
        j++;
      }
      if (!matches(SortParams.name(path.substring(i + 1, j)))) {
        b.append(path, i, j);
      }
      i = j;
    }
    return b.length() == path.length() ? path : b.toString();
  }

  @Override
  public String toString() {
    return String.join(",", patterns).toLowerCase(Locale.ROOT);
  }
}
