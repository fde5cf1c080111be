package io.urldedup.operators.url;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Opt-in rule {@code --strip-params}: query parameters ({@code name=value}) and path parameters
 * ({@code ;name=value}, e.g. {@code ;jsessionid=}) whose name matches one of the patterns are
 * removed. Names match case-insensitively as written in the canonical URL; '*' in a pattern
 * matches any run of characters ({@code utm_*}). Session ids and tracking parameters name no
 * other resource, but a pattern that matches a real parameter merges pages. Pure.
 */
public final class StripParams implements Serializable {

  private static final long serialVersionUID = 1L;

  private final List<String> patterns;
  private transient Pattern regex;

  /** @param patterns lower-case names, '*' as a wildcard */
  public StripParams(List<String> patterns) {
    this.patterns = List.copyOf(patterns);
  }

  public List<String> patterns() {
    return patterns;
  }

  /** Whether {@code name} matches a pattern. */
  public boolean matches(String name) {
    if (regex == null) {
      List<String> alts = new ArrayList<>();
      for (String p : patterns) {
        alts.add(Arrays.stream(p.split("\\*", -1)).map(Pattern::quote)
            .collect(Collectors.joining(".*")));
      }
      regex = Pattern.compile(String.join("|", alts), Pattern.CASE_INSENSITIVE);
    }
    return !name.isEmpty() && regex.matcher(name).matches();
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
