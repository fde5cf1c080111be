package io.urldedup.operators.url;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The fast path against the full parser: whenever {@link CanonicalFastPath} accepts an input, the
 * parser (plus the rules) must give exactly the input's bytes and the same host offsets. Inputs: a
 * corpus of canonical and near-canonical URLs and random single-byte mutations of them (the
 * mutations that matter are one byte away from canonical), for the default rules and for all opt-in
 * rules on. 10^6 cases in all; the parser is run only on cases the fast path accepts plus a sample
 * of the rest (to count), so the test stays at a few seconds.
 */
class FastPathDifferentialTest {

  private static final String[] CORPUS = {
    "http://example.com/",
    "https://www.example.com/a/b.html",
    "http://a.b-c.d_e.org:8080/x?y=1",
    "https://example.com/p%20q/%E2%82%AC?q=%C3%A9&x=%2F",
    "http://example.com/a;b=c/d?e=f&g",
    "https://xn--bcher-kva.de/buch?isbn=3",
    "http://123.example.com/",
    "http://example.com:1/",
    "https://example.com:65535/a?b|c=d^e{f}`",
    "http://sub.example.co.uk/.well-known/x",
    "http://example.com/...",
    "http://example.com/..a/.b/",
    "http://example.com//x//",
    "http://example.com/a?%",
    "http://example.com/~user/-._~!$&'()*+,;=:@",
    "https://s3.example.com/bucket//key.txt?versionId=1",
    "http://example.com/?a=&b=&&c",
    "http://www.example.com/?utm_source=x&sid=2",
    "http://example.com/x;jsessionid=1",
  };

  /**
   * What an edit inserts: ASCII bytes, the UTF-8 of a non-ASCII letter (é, two bytes) and a lone
   * 0x80 (a continuation byte; the decoder rejects malformed UTF-8 before canonicalizing, but the
   * fast path must not take any non-ASCII byte for canonical).
   */
  private static final byte[][] ALPHABET = alphabet();

  private static byte[][] alphabet() {
    byte[] ascii = "aZ09-._~%/\\?#&=;:@[]. \t\"'<>^`{|}AF2e5cx".getBytes(UTF_8);
    byte[][] a = new byte[ascii.length + 2][];
    for (int i = 0; i < ascii.length; i++) {
      a[i] = new byte[] {ascii[i]};
    }
    a[ascii.length] = "\u00e9".getBytes(UTF_8);
    a[ascii.length + 1] = new byte[] {(byte) 0x80};
    return a;
  }

  @Test
  void fastPathEqualsParser() throws Exception {
    SplittableRandom r = new SplittableRandom(20261201);
    List<byte[]> base = new ArrayList<>();
    for (String s : CORPUS) {
      base.add(s.getBytes(UTF_8));
    }
    CanonicalizationRules[] ruleSets = {
      CanonicalizationRules.NONE,
      new CanonicalizationRules(true, true, List.of("sid", "utm_*", "jsessionid"), true, true)
    };
    int cases = 0;
    int accepted = 0;
    CanonicalUrl fast = new CanonicalUrl();
    CanonicalUrl full = new CanonicalUrl();
    for (CanonicalizationRules rules : ruleSets) {
      UrlCanonicalizerCore core = new UrlCanonicalizerCore(rules);
      for (int i = 0; i < 500_000; i++) {
        byte[] b = mutate(base.get(r.nextInt(base.size())), r);
        cases++;
        if (!CanonicalFastPath.matches(b, 0, b.length, rules, fast)) {
          continue;
        }
        accepted++;
        int hs = fast.hostStart;
        int he = fast.hostEnd;
        try {
          core.parseOnly(b, 0, b.length, full);
          if (!rules.isEmpty()) {
            // parseOnly has no rules: with rules on, the fast path must also be a rule fixed point
            String s = full.toString();
            String applied =
                rules.apply(s, full.hostStart, full.hostEnd, full.pathStart, full.queryStart);
            assertEquals(s, applied, "rules change a fast-path URL " + s);
          }
        } catch (InvalidUrlException e) {
          fail(
              "fast path accepted what the parser rejects: "
                  + new String(b, UTF_8)
                  + " ("
                  + e.reason()
                  + ")");
        }
        if (!Arrays.equals(b, 0, b.length, full.bytes, full.start, full.end)
            || hs != full.hostStart - full.start
            || he != full.hostEnd - full.start) {
          fail("fast path and parser differ: " + new String(b, UTF_8) + " vs " + full);
        }
      }
    }
    System.out.printf(
        "fast path differential: %d cases, %d accepted by the fast path%n", cases, accepted);
    assertEquals(1_000_000, cases);
    // the corpus is mostly canonical: a fast path that accepts (nearly) nothing proves nothing
    assertTrue(accepted > cases / 10, "accepted " + accepted);
  }

  /**
   * The URL, or one to three random edits of it: replace a byte by an {@link #ALPHABET} entry,
   * insert one, delete a byte, flip a letter's case.
   */
  private static byte[] mutate(byte[] u, SplittableRandom r) {
    int edits = r.nextInt(4);
    byte[] b = u;
    for (int k = 0; k < edits && b.length > 1; k++) {
      int at = r.nextInt(b.length);
      byte[] c = ALPHABET[r.nextInt(ALPHABET.length)];
      int op = r.nextInt(4);
      switch (op) {
        case 0: // replace
        case 1:
          { // insert
            int removed = op == 0 ? 1 : 0;
            byte[] n = new byte[b.length - removed + c.length];
            System.arraycopy(b, 0, n, 0, at);
            System.arraycopy(c, 0, n, at, c.length);
            System.arraycopy(b, at + removed, n, at + c.length, b.length - at - removed);
            b = n;
            break;
          }
        case 2:
          {
            byte[] n = new byte[b.length - 1];
            System.arraycopy(b, 0, n, 0, at);
            System.arraycopy(b, at + 1, n, at, b.length - at - 1);
            b = n;
            break;
          }
        default:
          b = b.clone();
          b[at] = (byte) (Character.isLetter(b[at]) ? b[at] ^ 0x20 : b[at]);
      }
    }
    return b;
  }
}
