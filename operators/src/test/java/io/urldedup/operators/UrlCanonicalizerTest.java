package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UrlCanonicalizerTest {

  private final UrlCanonicalizer plain = new UrlCanonicalizer(List.of(), false);
  private final UrlCanonicalizer rules =
      new UrlCanonicalizer(DecodeConfig.DEFAULT_STRIP_PARAMS, true);

  private static void check(UrlCanonicalizer c, String in, String expected) {
    try {
      assertEquals(expected, c.canonicalize(in), in);
    } catch (UrlRejectedException e) {
      fail(in + " rejected: " + e.reason() + " " + e.detail());
    }
  }

  private static void rejects(UrlCanonicalizer c, String in, RejectReason reason) {
    UrlRejectedException e = assertThrows(UrlRejectedException.class, () -> c.canonicalize(in), in);
    assertEquals(reason, e.reason(), in + ": " + e.detail());
  }

  @Test
  void crawlerCommonsBehaviour() {
    String[][] cases = {
      // fragment removed
      {"http://example.com/a#frag", "http://example.com/a"},
      {"http://example.com/a?b=c#d?e", "http://example.com/a?b=c"},
      // scheme and host lower-cased, path case kept
      {"HTTP://Example.COM/Path", "http://example.com/Path"},
      // IDN to Punycode
      {"http://bücher.de/", "http://xn--bcher-kva.de/"},
      {"http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah/"},
      // default ports dropped, others kept
      {"http://example.com:80/", "http://example.com/"},
      {"https://example.com:443/", "https://example.com/"},
      {"http://example.com:443/", "http://example.com:443/"},
      {"http://example.com:8080", "http://example.com:8080/"},
      // dot segments removed
      {"http://example.com/a/./b/../c", "http://example.com/a/c"},
      {"http://example.com/../../a", "http://example.com/a"},
      {"http://example.com/a/%2E%2E/b", "http://example.com/b"},
      // percent-encoding normalized: unreserved decoded, hex upper-cased, unsafe encoded
      {"http://example.com/%7euser/%41%42", "http://example.com/~user/AB"},
      {"http://example.com/a%2fb", "http://example.com/a%2Fb"},
      {"http://example.com/a b", "http://example.com/a%20b"},
      {"http://example.com/ä?x=ü", "http://example.com/%C3%A4?x=%C3%BC"},
      {"http://example.com/%", "http://example.com/%25"},
      // query parameters sorted by name (stable for equal names), empty query dropped
      {"http://example.com/?b=2&a=1", "http://example.com/?a=1&b=2"},
      {"http://example.com/a?b=2&a=1&b=1", "http://example.com/a?a=1&b=2&b=1"},
      {"http://example.com/a?", "http://example.com/a"},
      {"http://example.com", "http://example.com/"},
      // host escapes decoded, trailing dot and userinfo dropped
      {"http://example%2Ecom/", "http://example.com/"},
      {"http://exa%C3%BCmple.com/", "http://xn--example-p2a.com/"},
      {"http://example.com./x", "http://example.com/x"},
      {"http://user:pw@example.com/", "http://example.com/"},
      // surrounding whitespace
      {"  http://example.com/x \r\n", "http://example.com/x"},
      // IPs
      {"http://1.2.3.4:8080/", "http://1.2.3.4:8080/"},
      {"http://[::1]:8080/x", "http://[0:0:0:0:0:0:0:1]:8080/x"},
      {"http://[2001:DB8::1]:80/x?b&a", "http://[2001:db8:0:0:0:0:0:1]/x?a&b"},
    };
    for (String[] c : cases) {
      check(plain, c[0], c[1]);
    }
  }

  /** crawler-commons #559: decoded escapes in the path used to shift the path/query split. */
  @Test
  void issue559QuerySplitAfterDecodedPathEscapes() {
    check(plain, "https://example.org/p%2d1/p%2d2/?q=f", "https://example.org/p-1/p-2/?q=f");
    check(plain, "https://example.org/p%2d1/?zz=1&aa=2", "https://example.org/p-1/?aa=2&zz=1");
    check(plain, "https://example.org/%41%42%43/x?c=%2d&b=%7e", "https://example.org/ABC/x?b=~&c=-");
  }

  /** crawler-commons 1.6 cuts a segment after a leading "/.." into the host. */
  @Test
  void leadingDotDotSegmentsStayInThePath() {
    check(plain, "http://example.com/../..x", "http://example.com/..x");
    check(plain, "http://example.com/../..x/y", "http://example.com/..x/y");
    check(plain, "http://example.com/a/../../..x/y", "http://example.com/..x/y");
    check(plain, "http://www.co.uk/../.../B", "http://www.co.uk/.../B");
    check(plain, "http://1.2.3.4/../..;x", "http://1.2.3.4/..;x");
    check(plain, "http://[::1]/../..~", "http://[0:0:0:0:0:0:0:1]/..~");
    check(plain, "http://example.com/a/.?x=/../", "http://example.com/a/?x=/../");
    // a stripped path parameter can leave a ".." segment behind
    check(rules, "http://example.com/..;jsessionid=1/..x", "http://example.com/..x");
    check(rules, "http://example.com/a/..;sid=1/b", "http://example.com/b");
  }

  @Test
  void removeDotSegmentsFollowsRfc3986() {
    String[][] cases = {{"", ""}, {"/", "/"}, {"/a/b/c/./../../g", "/a/g"}, {"/mid/content=5/../6",
        "/mid/6"}, {"/..", "/"}, {"/.", "/"}, {"/a/.", "/a/"}, {"/a/..", "/"}, {"/../a", "/a"},
        {"/..//a", "//a"}, {"/a/..b/.c", "/a/..b/.c"}, {"/a//../b", "/a/b"}};
    for (String[] c : cases) {
      assertEquals(c[1], UrlCanonicalizer.removeDotSegments(c[0]), c[0]);
    }
  }

  /** Escapes in hosts are decoded by the normalizer: a decoded '/' would make another host. */
  @Test
  void hostEscapesThatChangeTheHostAreRejected() {
    rejects(plain, "http://ex%2Fample.com/x", RejectReason.BAD_HOST);
    rejects(plain, "http://ex%40ample.com/x", RejectReason.BAD_HOST);
    rejects(plain, "http://ex%3Aample.com/x", RejectReason.BAD_HOST);
    rejects(plain, "http://exa%zzmple.com/x", RejectReason.BAD_HOST);
    rejects(plain, "http://exa%C3mple.com/", RejectReason.BAD_HOST);
    rejects(plain, "http://%2525.com/", RejectReason.BAD_HOST);
  }

  @Test
  void rejections() {
    rejects(plain, "", RejectReason.EMPTY);
    rejects(plain, " \t ", RejectReason.EMPTY);
    rejects(plain, "foo.html", RejectReason.RELATIVE_URL);
    rejects(plain, "/path", RejectReason.RELATIVE_URL);
    rejects(plain, "//host/path", RejectReason.RELATIVE_URL);
    rejects(plain, "example.com/x", RejectReason.RELATIVE_URL);
    rejects(plain, "#frag", RejectReason.RELATIVE_URL);
    rejects(plain, "ftp://x.com/", RejectReason.UNSUPPORTED_SCHEME);
    rejects(plain, "mailto:a@b.c", RejectReason.UNSUPPORTED_SCHEME);
    rejects(plain, "javascript:alert(1)", RejectReason.UNSUPPORTED_SCHEME);
    rejects(plain, "http:foo", RejectReason.BAD_HOST);
    rejects(plain, "http://", RejectReason.BAD_HOST);
    rejects(plain, "http:///x", RejectReason.BAD_HOST);
    rejects(plain, "http://:80/", RejectReason.BAD_HOST);
    rejects(plain, "http://a..b/", RejectReason.BAD_HOST);
    rejects(plain, "http://a+b.com/", RejectReason.BAD_HOST);
    rejects(plain, "http://" + "a".repeat(64) + ".com/", RejectReason.BAD_HOST);
    rejects(plain, "http://[::zz]/", RejectReason.BAD_HOST);
    rejects(plain, "http://example.com:99999/", RejectReason.BAD_PORT);
    rejects(plain, "http://example.com:0/", RejectReason.BAD_PORT);
    rejects(plain, "http://example.com:8a/", RejectReason.BAD_PORT);
    rejects(plain, "http://example.com/a\u0000b", RejectReason.CONTROL_CHARS);
    rejects(plain, "http://example.com/a\nb", RejectReason.CONTROL_CHARS);
    rejects(plain, "http://example.com/a\u0085b", RejectReason.CONTROL_CHARS);
    rejects(plain, "http://example.com/a\u007f", RejectReason.CONTROL_CHARS);
    rejects(plain, "http://example.com/\ud800", RejectReason.BAD_UTF8);
    rejects(plain, "http://example.com/a\\b", RejectReason.UNPARSEABLE);
  }

  @Test
  void stripParamsIsOptInAndCaseInsensitive() {
    String in = "http://example.com/a;jsessionid=ABC?x=1&PHPSESSID=2&Sid=3&z=0";
    check(plain, in, "http://example.com/a;jsessionid=ABC?PHPSESSID=2&Sid=3&x=1&z=0");
    check(rules, in, "http://example.com/a?x=1&z=0");
    check(rules, "http://example.com/a;JSESSIONID=A;foo=bar/b;sid=1", "http://example.com/a;foo=bar/b");
    check(rules, "http://example.com/?sid=1", "http://example.com/");
    check(rules, "http://example.com/?%4Asessionid=1&a=b", "http://example.com/?a=b");
    check(rules, "http://example.com/?sidx=1&xsid=2", "http://example.com/?sidx=1&xsid=2");
    UrlCanonicalizer custom = new UrlCanonicalizer(List.of("utm_source"), false);
    check(custom, "http://example.com/?UTM_Source=x&sid=1", "http://example.com/?sid=1");
  }

  @Test
  void stripWwwIsOptInAndKeepsBareSuffixes() {
    check(plain, "http://www.example.com/", "http://www.example.com/");
    check(rules, "http://www.example.com/", "http://example.com/");
    check(rules, "http://WWW.Example.CO.UK:8080/", "http://example.co.uk:8080/");
    check(rules, "http://www.co.uk/", "http://www.co.uk/");
    check(rules, "http://www.com/", "http://www.com/");
    check(rules, "http://www.localhost/", "http://www.localhost/");
    check(rules, "http://www2.example.com/", "http://www2.example.com/");
    check(rules, "http://www.www.example.com/", "http://example.com/");
    check(rules, "http://www.www.co.uk/", "http://www.co.uk/");
  }

  @Test
  void idempotent() throws Exception {
    SplittableRandom r = new SplittableRandom(42);
    String[] parts = {"a", "B", "%2d", "%41", "%zz", "%", "/", "//", "./", "../", "?", "&", "=",
        ";", "sid=1", ";jsessionid=x", "ü", "%C3%BC", " ", "~", "%7E", "+", "#", ".", "%2E"};
    String[] hosts = {"example.com", "WWW.Example.com", "bücher.de", "[::1]", "1.2.3.4",
        "www.co.uk", "exa%2Emple.org", "www.www.example.net", "EXAMPLE.com.", "xn--bcher-kva.de"};
    List<String> inputs = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      StringBuilder b = new StringBuilder(r.nextBoolean() ? "http://" : "HTTPS://");
      b.append(hosts[r.nextInt(hosts.length)]);
      if (r.nextInt(4) == 0) {
        b.append(':').append(1 + r.nextInt(65535));
      }
      b.append('/');
      int n = r.nextInt(12);
      for (int k = 0; k < n; k++) {
        b.append(parts[r.nextInt(parts.length)]);
      }
      inputs.add(b.toString());
    }
    int accepted = 0;
    List<String> rejected = new ArrayList<>();
    for (UrlCanonicalizer c : List.of(plain, rules)) {
      for (String in : inputs) {
        String once;
        try {
          once = c.canonicalize(in);
        } catch (UrlRejectedException e) {
          rejected.add(in + " -> " + e.reason() + ": " + e.detail());
          continue;
        }
        accepted++;
        assertEquals(once, c.canonicalize(once), "not idempotent for " + in);
      }
    }
    // all hosts and parts are valid: nearly every input is accepted (backslash-free, control-free)
    assertEquals(2 * inputs.size(), accepted, () -> String.join("\n", rejected));
  }
}
