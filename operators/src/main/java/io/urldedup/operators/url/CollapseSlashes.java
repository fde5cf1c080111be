package io.urldedup.operators.url;

/**
 * Opt-in rule {@code --collapse-slashes}: runs of '/' in the path become one. Not an RFC 3986
 * equivalence: {@code /web/2020/https://example.org/} (web archives) and {@code bucket//key}
 * (object stores) name other resources than their collapsed forms. Pure.
 */
public final class CollapseSlashes {

  private CollapseSlashes() {}

  /**
   * @param path a canonical path (starts with '/')
   */
  public static String apply(String path) {
    if (!path.contains("//")) {
      return path;
    }
    StringBuilder b = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c != '/' || b.length() == 0 || b.charAt(b.length() - 1) != '/') {
        b.append(c);
      }
    }
    return b.toString();
  }
}
