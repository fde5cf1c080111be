package io.urldedup.operators.url;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Each canonicalization rule of docs/canonicalization.md as the pure function it is. */
class RulesTest {

  @Test
  void hostTrailingDot() {
    assertEquals("example.com", HostTrailingDot.apply("example.com."));
    assertEquals("example.com", HostTrailingDot.apply("example.com"));
    assertEquals("example.com..", HostTrailingDot.apply("example.com.."));
    assertEquals(".", HostTrailingDot.apply("."));
    assertEquals("a", HostTrailingDot.apply("a."));
  }

  @Test
  void sortParams() {
    assertEquals("a=1&b=2", SortParams.apply("b=2&a=1"));
    assertEquals("a=2&a=1&b", SortParams.apply("b&a=2&a=1"));
    assertEquals("x", SortParams.apply("x"));
    assertEquals("&a", SortParams.apply("a&"));
    String same = "a=1&b=2";
    assertTrue(same == SortParams.apply(same));
  }

  @Test
  void dropEmptyParams() {
    assertEquals("b=1", DropEmptyParams.apply("a=&b=1"));
    assertEquals("a&b=1", DropEmptyParams.apply("&a&&b=1&"));
    assertEquals("a==", DropEmptyParams.apply("a=="));
    assertEquals("", DropEmptyParams.apply("a="));
    assertEquals("print", DropEmptyParams.apply("print"));
  }

  @Test
  void stripParams() {
    StripParams s = new StripParams(List.of("jsessionid", "utm_*", "*_ga"));
    assertEquals("x=1", s.query("utm_source=a&x=1&UTM_MEDIUM=b&_ga"));
    assertEquals("utm=1&x_gax=2", s.query("utm=1&x_gax=2&x_ga=3"));
    assertEquals("/a;foo=bar/b", s.path("/a;JSESSIONID=A;foo=bar/b;utm_x=1"));
    assertEquals("/a;b", s.path("/a;b"));
    assertTrue(s.matches("utm_"));
    assertFalse(s.matches(""));
    assertFalse(new StripParams(List.of("a.b")).matches("aXb"));
  }

  @Test
  void globMatchesLikeAnchoredWildcards() {
    assertTrue(StripParams.glob("utm_*", "utm_"));
    assertTrue(StripParams.glob("utm_*", "UTM_Source"));
    assertFalse(StripParams.glob("utm_*", "xutm_a"));
    assertTrue(StripParams.glob("*_ga", "_ga"));
    assertFalse(StripParams.glob("*_ga", "_gax"));
    assertTrue(StripParams.glob("a*b*c", "aXXbYbZc"));
    assertFalse(StripParams.glob("a*b*c", "aXXbYbZ"));
    assertTrue(StripParams.glob("a**", "a"));
    assertTrue(StripParams.glob("*", "anything"));
    assertFalse(StripParams.glob("ab", "a"));
    assertFalse(StripParams.glob("a", "ab"));
    assertTrue(StripParams.glob("*a*a*a*", "xaxaxa"));
    assertFalse(StripParams.glob("*a*a*a*", "xaxax"));
    // ASCII-only case folding, as the regex it replaces (CASE_INSENSITIVE without UNICODE_CASE)
    assertFalse(StripParams.glob("\u00e9", "\u00c9"));
  }

  /**
   * A long name that almost matches a pattern of many stars: a regex of {@code .*} per star
   * backtracks in O(n^stars); the glob is O(pattern x name) = 10^6 character steps here, well under
   * a second on any machine (the bound is 10 s only to be immune to a loaded CI host).
   */
  @Test
  void globIsNotPolynomialInStars() {
    String pattern = "*a*a*a*a*a*a*a*a*b";
    String name = "a".repeat(50_000);
    long t0 = System.nanoTime();
    assertFalse(new StripParams(List.of(pattern)).matches(name));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms < 10_000, "glob took " + ms + " ms");
  }

  @Test
  void stripWww() {
    assertEquals("example.com", StripWww.apply("www.example.com"));
    assertEquals("example.co.uk", StripWww.apply("www.www.example.co.uk"));
    assertEquals("www.co.uk", StripWww.apply("www.co.uk"));
    assertEquals("www.com", StripWww.apply("www.com"));
    assertEquals("www2.example.com", StripWww.apply("www2.example.com"));
  }

  @Test
  void collapseSlashes() {
    assertEquals("/a/b/", CollapseSlashes.apply("//a///b//"));
    assertEquals("/", CollapseSlashes.apply("/"));
  }

  @Test
  void rulesDescribeThemselvesInAFixedOrder() {
    assertEquals("", CanonicalizationRules.NONE.describe());
    assertTrue(CanonicalizationRules.NONE.isEmpty());
    CanonicalizationRules all =
        new CanonicalizationRules(true, true, List.of("sid", "utm_*"), true, true);
    assertEquals(
        "sort-params,drop-empty-params,strip-params=sid|utm_*,strip-www,collapse-slashes",
        all.describe());
  }
}
