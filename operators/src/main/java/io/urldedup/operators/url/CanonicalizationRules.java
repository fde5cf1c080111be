package io.urldedup.operators.url;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * The opt-in canonicalization rules of a job (docs/canonicalization.md), each of which can merge
 * URLs of different pages and so is off by default. Immutable and serializable. The default rules
 * are the parser's ({@link WhatwgUrlParser}); {@link #describe()} with {@link
 * WhatwgUrlParser#VERSION} names everything that decides a canonical form.
 */
public final class CanonicalizationRules implements Serializable {

  private static final long serialVersionUID = 1L;

  public static final CanonicalizationRules NONE =
      new CanonicalizationRules(false, false, List.of(), false, false);

  private final boolean sortParams;
  private final boolean dropEmptyParams;
  private final StripParams stripParams;
  private final boolean stripWww;
  private final boolean collapseSlashes;

  public CanonicalizationRules(
      boolean sortParams,
      boolean dropEmptyParams,
      List<String> stripParams,
      boolean stripWww,
      boolean collapseSlashes) {
    this.sortParams = sortParams;
    this.dropEmptyParams = dropEmptyParams;
    this.stripParams = stripParams.isEmpty() ? null : new StripParams(stripParams);
    this.stripWww = stripWww;
    this.collapseSlashes = collapseSlashes;
  }

  public boolean isEmpty() {
    return !sortParams && !dropEmptyParams && stripParams == null && !stripWww && !collapseSlashes;
  }

  boolean touchesQuery() {
    return sortParams || dropEmptyParams || stripParams != null;
  }

  boolean touchesPathParams() {
    return stripParams != null;
  }

  boolean stripWww() {
    return stripWww;
  }

  boolean collapseSlashes() {
    return collapseSlashes;
  }

  /**
   * The active rules in a fixed order, e.g. {@code sort-params,strip-params=sid|utm_*}; empty when
   * none is. Part of the canonicalization fingerprint: never change an existing spelling.
   */
  public String describe() {
    List<String> on = new ArrayList<>();
    if (sortParams) {
      on.add("sort-params");
    }
    if (dropEmptyParams) {
      on.add("drop-empty-params");
    }
    if (stripParams != null) {
      on.add("strip-params=" + String.join("|", stripParams.patterns()));
    }
    if (stripWww) {
      on.add("strip-www");
    }
    if (collapseSlashes) {
      on.add("collapse-slashes");
    }
    return String.join(",", on);
  }

  /**
   * The rules applied to a canonical URL {@code url} (offsets as in {@link CanonicalUrl}, relative
   * to the string): strip-params, drop-empty-params, sort-params on the query, strip-params and
   * collapse-slashes on the path, strip-www on the host. Returns {@code url} itself when nothing
   * changed. The result may hold new dot segments (a stripped {@code ;sid=} of {@code /.;sid=1/}):
   * the caller parses it once more.
   */
  String apply(String url, int hostStart, int hostEnd, int pathStart, int queryStart) {
    String host = url.substring(hostStart, hostEnd);
    String path = url.substring(pathStart, queryStart < 0 ? url.length() : queryStart);
    String query = queryStart < 0 ? null : url.substring(queryStart + 1);
    String h = stripWww ? StripWww.apply(host) : host;
    String p = path;
    if (stripParams != null) {
      p = stripParams.path(p);
    }
    if (collapseSlashes) {
      p = CollapseSlashes.apply(p);
    }
    String q = query;
    if (q != null) {
      if (stripParams != null) {
        q = stripParams.query(q);
      }
      if (dropEmptyParams) {
        q = DropEmptyParams.apply(q);
      }
      if (sortParams) {
        q = SortParams.apply(q);
      }
    }
    if (h == host && p == path && q == query) {
      return url;
    }
    return url.substring(0, hostStart)
        + h
        + url.substring(hostEnd, pathStart)
        + p
        + (q == null || q.isEmpty() ? "" : "?" + q);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CanonicalizationRules
        && ((CanonicalizationRules) o).describe().equals(describe());
  }

  @Override
  public int hashCode() {
    return describe().hashCode();
  }

  @Override
  public String toString() {
    return describe().isEmpty() ? "none" : describe();
  }
}
