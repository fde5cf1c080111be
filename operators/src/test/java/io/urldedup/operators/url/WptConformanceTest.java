package io.urldedup.operators.url;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.urldedup.operators.RejectReason;
import io.urldedup.operators.UrlCanonicalizer;
import io.urldedup.operators.UrlRejectedException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The WHATWG URL Standard's own test data (web-platform-tests, see resources wpt/NOTICE.md). A case
 * applies when its base is null or its input is an absolute {@code http(s)://} URL (the base then
 * plays no part). A failure case must be rejected; a success case with an http(s) result must give
 * the expected host exactly and the expected href after only the documented default rules
 * (docs/canonicalization.md), computed here independently from the expected components. Success
 * cases of other schemes must be rejected as unsupported_scheme. The counts are pinned: a case that
 * stops applying or passing fails the test.
 */
class WptConformanceTest {

  private final UrlCanonicalizer canonicalizer = UrlCanonicalizer.defaults();
  private final CanonicalUrl result = new CanonicalUrl();

  @Test
  @SuppressWarnings("unchecked")
  void urlTestData() {
    List<Object> data = (List<Object>) Json.resource("/wpt/urltestdata.json");
    int applicable = 0;
    int failures = 0;
    int successes = 0;
    int otherSchemes = 0;
    List<String> wrong = new ArrayList<>();
    for (Object o : data) {
      if (!(o instanceof Map)) {
        continue; // a comment
      }
      Map<String, Object> c = (Map<String, Object>) o;
      String input = (String) c.get("input");
      if (c.get("base") != null && !isAbsoluteHttp(input)) {
        continue;
      }
      applicable++;
      String got;
      RejectReason reason = null;
      String host = null;
      try {
        canonicalizer.canonicalize(UsvString.utf8(input), 0, UsvString.utf8(input).length, result);
        got = result.toString();
        host = result.host();
      } catch (UrlRejectedException e) {
        got = null;
        reason = e.reason();
      }
      if (Boolean.TRUE.equals(c.get("failure"))) {
        failures++;
        if (got != null) {
          wrong.add("accepted failure case " + q(input) + " as " + got);
        }
        continue;
      }
      String protocol = (String) c.get("protocol");
      if (!protocol.equals("http:") && !protocol.equals("https:")) {
        otherSchemes++;
        if (reason != RejectReason.UNSUPPORTED_SCHEME) {
          wrong.add(q(input) + " (" + protocol + "): " + (got != null ? got : reason));
        }
        continue;
      }
      successes++;
      String expectedHost = HostTrailingDot.apply((String) c.get("hostname"));
      String port = (String) c.get("port");
      String search = (String) c.get("search");
      String expected =
          protocol
              + "//"
              + expectedHost
              + (port.isEmpty() ? "" : ":" + port)
              + normalizeEscapes((String) c.get("pathname"))
              + (search.isEmpty() ? "" : normalizeEscapes(search));
      if (got == null) {
        wrong.add("rejected " + q(input) + " (" + reason + "), expected " + expected);
      } else if (!expected.equals(got) || !expectedHost.equals(host)) {
        wrong.add(q(input) + ": got " + got + " host " + host + ", expected " + expected);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "urltestdata.json: %d applicable: %d failure cases, %d http(s)"
            + " success cases, %d success cases of other schemes; %d wrong%n",
        applicable,
        failures,
        successes,
        otherSchemes,
        wrong.size());
    assertEquals(List.of(), wrong);
    assertEquals(
        List.of(653, 255, 181, 217), List.of(applicable, failures, successes, otherSchemes));
  }

  @Test
  @SuppressWarnings("unchecked")
  void toAscii() {
    List<Object> data = (List<Object>) Json.resource("/wpt/toascii.json");
    int cases = 0;
    List<String> wrong = new ArrayList<>();
    for (Object o : data) {
      if (!(o instanceof Map)) {
        continue;
      }
      Map<String, Object> c = (Map<String, Object>) o;
      cases++;
      String input = "https://" + c.get("input") + "/x";
      String output = (String) c.get("output");
      String got;
      try {
        byte[] b = UsvString.utf8(input);
        canonicalizer.canonicalize(b, 0, b.length, result);
        got = result.toString();
      } catch (UrlRejectedException e) {
        got = null;
      }
      String expected = output == null ? null : "https://" + HostTrailingDot.apply(output) + "/x";
      if (!Objects.equals(expected, got)) {
        wrong.add(q((String) c.get("input")) + ": got " + got + ", expected " + expected);
      }
    }
    System.out.printf(Locale.ROOT, "toascii.json: %d cases, %d wrong%n", cases, wrong.size());
    assertEquals(List.of(), wrong);
    assertEquals(87, cases);
  }

  /** Input, as the parser sees it after trimming and tab/newline removal, starts http(s)://. */
  private static boolean isAbsoluteHttp(String input) {
    String s =
        input
            .replaceAll("^[\\x00-\\x20]+|[\\x00-\\x20]+$", "")
            .replaceAll("[\\t\\n\\r]", "")
            .toLowerCase(Locale.ROOT);
    return s.startsWith("http://") || s.startsWith("https://");
  }

  /** RFC 3986 6.2.2.1 and 6.2.2.2 on a serialized component, written independently of the rule. */
  static String normalizeEscapes(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%' && i + 2 < s.length() && isHex(s.charAt(i + 1)) && isHex(s.charAt(i + 2))) {
        char d = (char) Integer.parseInt(s.substring(i + 1, i + 3), 16);
        if (Character.isLetterOrDigit(d) && d < 0x80 || "-._~".indexOf(d) >= 0) {
          b.append(d);
        } else {
          b.append('%').append(s.substring(i + 1, i + 3).toUpperCase(Locale.ROOT));
        }
        i += 2;
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  private static boolean isHex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static String q(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      b.append(c < 0x20 || c > 0x7e ? String.format(Locale.ROOT, "\\u%04x", (int) c) : c);
    }
    return b.append('"').toString();
  }
}
