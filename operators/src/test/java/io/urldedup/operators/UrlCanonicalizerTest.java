package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import io.urldedup.operators.url.CanonicalizationRules;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UrlCanonicalizerTest {

  private final UrlCanonicalizer plain = UrlCanonicalizer.defaults();
  private final UrlCanonicalizer rules =
      new UrlCanonicalizer(
          new CanonicalizationRules(true, true, List.of("jsessionid", "sid", "utm_*"), true, true));

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

  /** The cases of issue 10, as the WHATWG URL Standard (and a browser) reads them. */
  @Test
  void hostConfusionIsImpossible() {
    check(plain, "http://evil.com\\@example.com/", "http://evil.com/@example.com/");
    check(plain, "http://example.com\\@evil.com/", "http://example.com/@evil.com/");
    check(plain, "http://a@b@evil.com/", "http://evil.com/");
    check(plain, "http://evil.com?@example.com/", "http://evil.com/?@example.com/");
    check(plain, "http://evil.com#@example.com/", "http://evil.com/");
  }

  @Test
  void idnaIsUts46Nontransitional() {
    check(plain, "http://straße.de/", "http://xn--strae-oqa.de/");
    check(plain, "http://faß.de/", "http://xn--fa-hia.de/");
    check(plain, "http://👍.ws/", "http://xn--yp8h.ws/");
    check(plain, "http://bücher.de/", "http://xn--bcher-kva.de/");
    check(plain, "http://BÜCHER.de/", "http://xn--bcher-kva.de/");
    check(plain, "http://例え.テスト/", "http://xn--r8jz45g.xn--zckzah/");
    check(plain, "http://exa%C3%BCmple.com/", "http://xn--example-p2a.com/");
    check(plain, "http://ＥＸＡＭＰＬＥ．com/", "http://example.com/");
    rejects(plain, "http://a\u200Db.com/", RejectReason.BAD_HOST);
    rejects(plain, "http://xn--a.ß/", RejectReason.BAD_HOST);
  }

  @Test
  void emptySegmentsAreKept() {
    check(
        plain,
        "https://web.archive.org/web/2020/https://example.org/",
        "https://web.archive.org/web/2020/https://example.org/");
    check(
        plain, "https://s3.example.com/bucket//key.txt", "https://s3.example.com/bucket//key.txt");
  }

  @Test
  void ipHosts() {
    for (String h :
        new String[] {
          "127.1", "0x7f.1", "2130706433", "0177.0.0.1", "127.0.0.1.", "0x7F.0.0.1", "127.0.1"
        }) {
      String expected = h.equals("127.0.1") ? "http://127.0.0.1/" : "http://127.0.0.1/";
      check(plain, "http://" + h + "/", expected);
    }
    rejects(plain, "http://256.0.0.1/", RejectReason.BAD_HOST);
    rejects(plain, "http://1.2.3.4.5/", RejectReason.BAD_HOST);
    rejects(plain, "http://example.09/", RejectReason.BAD_HOST);
    check(plain, "http://[0:0:0:0:0:0:0:1]/", "http://[::1]/");
    check(plain, "http://[2001:DB8:0:0:1:0:0:1]:8080/x", "http://[2001:db8::1:0:0:1]:8080/x");
    check(plain, "http://[::ffff:192.168.0.1]/", "http://[::ffff:c0a8:1]/");
    rejects(plain, "http://[1::2::3]/", RejectReason.BAD_HOST);
  }

  @Test
  void whitespaceAndSlashes() {
    check(plain, "http://exa\tmple.com/a\nb\r", "http://example.com/ab");
    check(plain, "  http://example.com/x \r\n", "http://example.com/x");
    check(plain, "\u0000http://example.com/\u001f", "http://example.com/");
    check(plain, "http:x.com/", "http://x.com/");
    check(plain, "http:/x.com/", "http://x.com/");
    check(plain, "http:///x.com/", "http://x.com/");
    check(plain, "http:\\\\x.com\\a\\b", "http://x.com/a/b");
    check(plain, "http://example.com/a b\u0001c", "http://example.com/a%20b%01c");
  }

  @Test
  void defaultRules() {
    String[][] cases = {
      {"http://example.com/a#frag", "http://example.com/a"},
      {"HTTP://Example.COM/Path", "http://example.com/Path"},
      {"http://example.com:80/", "http://example.com/"},
      {"https://example.com:443/", "https://example.com/"},
      {"http://example.com:443/", "http://example.com:443/"},
      {"http://example.com:0080/", "http://example.com/"},
      {"http://example.com:0/", "http://example.com:0/"},
      {"http://example.com:/", "http://example.com/"},
      {"http://example.com/a/./b/../c", "http://example.com/a/c"},
      {"http://example.com/../../a", "http://example.com/a"},
      {"http://example.com/a/%2E%2e/b", "http://example.com/b"},
      {"http://example.com/%7euser/%41%42%2d", "http://example.com/~user/AB-"},
      {"http://example.com/a%2fb?c=%3d%3D", "http://example.com/a%2Fb?c=%3D%3D"},
      {"http://example.com/ä?x=ü", "http://example.com/%C3%A4?x=%C3%BC"},
      {"http://example.com/%zz%", "http://example.com/%zz%"},
      {"http://example.com/%%41a%A%42", "http://example.com/%%41a%A%42"},
      {"http://example.com/?b=2&a=1&a=", "http://example.com/?b=2&a=1&a="},
      {"http://example.com/a?", "http://example.com/a"},
      {"http://example.com/a?#x", "http://example.com/a"},
      {"http://example.com", "http://example.com/"},
      {"http://example.com?q", "http://example.com/?q"},
      {"http://example%2Ecom/", "http://example.com/"},
      {"http://example.com./x", "http://example.com/x"},
      {"http://example.com../x", "http://example.com../x"},
      {"http://user:pw@example.com/", "http://example.com/"},
      {"http://example.com/{a}^`|", "http://example.com/%7Ba%7D%5E%60|"},
      {"http://example.com/?'\"<>{}", "http://example.com/?%27%22%3C%3E{}"},
    };
    for (String[] c : cases) {
      check(plain, c[0], c[1]);
    }
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
    rejects(plain, "localhost:8080", RejectReason.UNSUPPORTED_SCHEME);
    rejects(plain, "http://", RejectReason.BAD_HOST);
    rejects(plain, "http://:80/", RejectReason.BAD_HOST);
    rejects(plain, "http://user@/", RejectReason.BAD_HOST);
    rejects(plain, "http://ex%2Fample.com/x", RejectReason.BAD_HOST);
    rejects(plain, "http://ex%40ample.com/x", RejectReason.BAD_HOST);
    rejects(plain, "http://exa%zzmple.com/x", RejectReason.BAD_HOST);
    rejects(plain, "http://exa%C3mple.com/", RejectReason.BAD_HOST);
    rejects(plain, "http://a b/", RejectReason.BAD_HOST);
    rejects(plain, "http://a\u0000b/", RejectReason.BAD_HOST);
    rejects(plain, "http://\u00AD/", RejectReason.BAD_HOST);
    rejects(plain, "http://[::zz]/", RejectReason.BAD_HOST);
    rejects(plain, "http://example.com:99999/", RejectReason.BAD_PORT);
    rejects(plain, "http://example.com:65536/", RejectReason.BAD_PORT);
    rejects(plain, "http://example.com:8a/", RejectReason.BAD_PORT);
    rejects(plain, "http://example.com:80:80/", RejectReason.BAD_PORT);
  }

  @Test
  void optInRules() {
    String in = "http://www.example.com//a//b;jsessionid=ABC?x=1&SID=2&utm_source=3&b=&&a";
    check(plain, in, in);
    check(rules, in, "http://example.com/a/b?a&x=1");
    // a stripped path parameter can leave a dot segment: resolved
    check(rules, "http://example.com/a/..;sid=1/b", "http://example.com/b");
    check(rules, "http://example.com/.;sid=1/b", "http://example.com/b");
    check(rules, "http://example.com/?sid=1", "http://example.com/");
    check(rules, "http://www.co.uk/", "http://www.co.uk/");
  }

  @Test
  void idempotent() throws Exception {
    SplittableRandom r = new SplittableRandom(42);
    String[] parts = {
      "a",
      "B",
      "%2d",
      "%41",
      "%zz",
      "%",
      "/",
      "//",
      "./",
      "../",
      "?",
      "&",
      "=",
      ";",
      "sid=1",
      ";jsessionid=x",
      "ü",
      "%C3%BC",
      " ",
      "~",
      "%7E",
      "+",
      "#",
      ".",
      "%2E",
      "\\",
      "\t",
      "{",
      "'",
      "utm_x=1&"
    };
    String[] hosts = {
      "example.com",
      "WWW.Example.com",
      "bücher.de",
      "[::1]",
      "1.2.3.4",
      "www.co.uk",
      "exa%2Emple.org",
      "www.www.example.net",
      "EXAMPLE.com.",
      "xn--bcher-kva.de",
      "0x7f.1",
      "u:p@h.com",
      "[0:0::1:0]"
    };
    List<String> inputs = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      StringBuilder b = new StringBuilder(r.nextBoolean() ? "http://" : "HTTPS://");
      b.append(hosts[r.nextInt(hosts.length)]);
      if (r.nextInt(4) == 0) {
        b.append(':').append(r.nextInt(65536));
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
    // every host and part is valid: every input is accepted
    assertEquals(2 * inputs.size(), accepted, () -> String.join("\n", rejected));
  }
}
