package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A deterministic generator of malformed input records, each with the {@link RejectReason} that
 * {@link DecodeFunction} must give it: random bytes, invalid UTF-8, over-long lines (up to 1 MiB
 * and more), empty and null values, control characters in hosts, unsupported schemes, relative and
 * host-less URLs, hosts and ports the WHATWG URL Standard fails, and for JSON input every kind of
 * wrong type, missing, duplicated or malformed field. Categories take turns, so any {@code count}
 * of at least the number of categories covers them all. Nothing is stored: the same seed gives the
 * same cases.
 */
public final class BadInputCorpus {

  /** One malformed record and the reason it must be rejected with. */
  public static final class Case {
    public final RawRecord record;
    public final RejectReason expected;

    /** A short name of the generator that made it, for failure messages. */
    public final String category;

    Case(RawRecord record, RejectReason expected, String category) {
      this.record = record;
      this.expected = expected;
      this.category = category;
    }
  }

  private static final int MIB = 1 << 20;
  private static final String[] SCHEMES = {
    "ftp",
    "mailto",
    "javascript",
    "file",
    "data",
    "ws",
    "gopher",
    "urn",
    "tel",
    "chrome-extension",
    "HTTPX",
    "h.t+t-p"
  };
  private static final String[] RELATIVE = {
    "/",
    "/a/b?c=d",
    "a.html",
    "../up",
    "./x",
    "?q=1",
    "#top",
    "//cdn.example.com/x.js",
    "example.com/path",
    "www.example.com",
    "  /x  ",
    "%20"
  };

  /** Hosts the WHATWG host parser fails (forbidden code points, IPv4, IPv6, IDNA, empty). */
  private static final String[] BAD_HOSTS = {
    "http://",
    "http://ex%2Fample.com/",
    "http://ex%40ample.com/",
    "http://a b.com/",
    "http://ex%zzample.com/",
    "http://ex%C3ample.com/",
    "http://[::1/",
    "http://[1:2:3:zz]/",
    "http://[::1]x/",
    "http://:80/",
    "http://@/x",
    "https://user:pass@/",
    "http://256.0.0.1/",
    "http://1.2.3.4.5/",
    "http://foo.09/",
    "http://0x100000000/",
    "http://[1::2::3]/",
    "http://a<b/",
    "http://a^b/",
    "http://a|b/",
    "http://exa%00mple.com/",
    "http://xn--a.\u00df/",
    "http://\u00ad/",
    "http://a\u200db.com/"
  };

  private static final String[] BAD_PORTS = {
    ":65536", ":99999", ":123456", ":8o", ":-1", ":+80", ":8080x", ":80:80"
  };

  /** Controls in a host (tab, LF and CR are removed by the standard, so not among them). */
  private static final String[] CONTROL_JSON = {
    "\\u0000", "\\u0001", "\\u0008", "\\u001f", "\\u007f", "\\u0085", "\\u009f"
  };

  /**
   * Surrogate escapes without their other half: no character, so bad_utf8 as the same bytes in
   * text.
   */
  private static final String[] LONE_SURROGATES = {
    "\\ud800", "\\udbff", "\\udc00", "\\uDFFF", "\\ud800\\ud800", "\\udc00\\ud800", "\\ud83d"
  };

  private static final String[] NOT_JSON = {
    "{",
    "{\"url\":",
    "{\"url\":\"http://a.com/\"",
    "{\"url\":\"http://a.com/\",}",
    "{url:\"http://a.com/\"}",
    "{'url':'http://a.com/'}",
    "tru",
    "nul",
    "{\"url\":\"http://a.com/\"} x",
    "{} {}",
    "{}{}",
    "[1,2",
    "{\"a\":1 /* c */}",
    "{\"url\":\"http://a.com/\u0001\"}",
    "{\"a\":01}",
    "{\"a\":NaN}",
    "{\"url\":\"\\x41\"}",
    "\"unterminated",
    "{\"a\":[}",
    "<html>",
    "http://a.com/",
    "#"
  };
  private static final String[] NOT_OBJECT = {
    "[]",
    "[{\"url\":\"http://a.com/\"}]",
    "1",
    "-2.5e3",
    "\"http://a.com/\"",
    "true",
    "false",
    "null",
    "  [1, {\"a\": [2]}]  "
  };
  private static final String[] NOT_STRING = {
    "1",
    "-0.5",
    "true",
    "false",
    "null",
    "[]",
    "[\"http://a.com/\"]",
    "{}",
    "{\"url\":\"http://a.com/\"}"
  };
  private static final String[] NOT_BOOLEAN = {"\"true\"", "1", "0", "null", "[]", "{}", "\"\""};

  private interface Gen {
    Case make(SplittableRandom r, Params p);
  }

  private static final class Params {
    final boolean json;
    final int maxUrlBytes;
    final int maxValueBytes;
    int longCount;

    Params(DecodeConfig c, int maxValueBytes) {
      this.json = c.format() == DecodeConfig.Format.JSON;
      this.maxUrlBytes = c.maxUrlBytes();
      this.maxValueBytes = maxValueBytes;
    }

    /** The record value carrying {@code url}: the line itself, or a JSON object around it. */
    byte[] wrap(String url, SplittableRandom r) {
      if (!json) {
        return url.getBytes(UTF_8);
      }
      return ("{\"id\":" + r.nextInt(1000) + ",\"url\":\"" + url + "\"}").getBytes(UTF_8);
    }
  }

  private BadInputCorpus() {}

  /** {@code count} cases for {@code config}'s format and URL limit; values up to 1 MiB + 64. */
  public static List<Case> generate(DecodeConfig config, long seed, int count) {
    return generate(config, seed, count, MIB + 64);
  }

  /**
   * As {@link #generate(DecodeConfig, long, int)} with values of at most {@code maxValueBytes} (for
   * transports with a message size limit, e.g. Kafka's 1 MB default).
   */
  public static List<Case> generate(DecodeConfig config, long seed, int count, int maxValueBytes) {
    Params p = new Params(config, maxValueBytes);
    List<Gen> gens = new ArrayList<>(p.json ? JSON_GENS : TEXT_GENS);
    gens.addAll(COMMON_GENS);
    SplittableRandom r = new SplittableRandom(seed);
    List<Case> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Case c = gens.get(i % gens.size()).make(r, p);
      RawRecord rec = c.record;
      rec.origin("corpus:" + i);
      if (r.nextInt(4) == 0) {
        rec.key = ("k" + i).getBytes(UTF_8);
      }
      if (r.nextInt(8) == 0) {
        rec.headers = RecordHeaders.of("corpus-case", c.category.getBytes(UTF_8));
      }
      out.add(c);
    }
    return out;
  }

  private static Case c(byte[] value, RejectReason reason, String category) {
    return new Case(new RawRecord(null, value, null, null), reason, category);
  }

  private static String pick(SplittableRandom r, String[] a) {
    return a[r.nextInt(a.length)];
  }

  private static String word(SplittableRandom r, int max) {
    int n = 1 + r.nextInt(max);
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append((char) ('a' + r.nextInt(26)));
    }
    return b.toString();
  }

  private static String goodUrl(SplittableRandom r) {
    return "http://" + word(r, 10) + ".example.com/" + word(r, 12);
  }

  /** Random bytes with at least one byte that is never valid UTF-8 (0xF8..0xFF). */
  private static Case randomBytes(SplittableRandom r, Params p) {
    int limit = p.json ? Math.min(p.maxValueBytes, RecordDecoder.MAX_JSON_BYTES) : p.maxUrlBytes;
    int n = 1 + r.nextInt(Math.min(limit, 4096));
    byte[] b = new byte[n];
    r.nextBytes(b);
    b[r.nextInt(n)] = (byte) (0xF8 + r.nextInt(8));
    return c(b, RejectReason.BAD_UTF8, "random-bytes");
  }

  /** A URL with one malformed UTF-8 sequence inside. */
  private static Case badUtf8(SplittableRandom r, Params p) {
    byte[][] bad = {
      {(byte) 0xC0, (byte) 0xAF},
      {(byte) 0x80},
      {(byte) 0xE2, (byte) 0x82},
      {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
      {(byte) 0xF5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
      {(byte) 0xC3, (byte) 0x28},
      {(byte) 0xFE},
      {(byte) 0xF0, (byte) 0x9F}
    };
    byte[] v = p.wrap(goodUrl(r) + "\u0001", r);
    int at = indexOf(v, (byte) 1);
    byte[] s = bad[r.nextInt(bad.length)];
    ByteArrayOutputStream o = new ByteArrayOutputStream(v.length + 4);
    o.write(v, 0, at);
    o.write(s, 0, s.length);
    o.write(v, at + 1, v.length - at - 1);
    return c(o.toByteArray(), RejectReason.BAD_UTF8, "bad-utf8");
  }

  private static int indexOf(byte[] b, byte x) {
    for (int i = 0; i < b.length; i++) {
      if (b[i] == x) {
        return i;
      }
    }
    return -1;
  }

  /** Over-long: a URL just over the limit, or (every 64th time) a 1 MiB line or value. */
  private static Case tooLong(SplittableRandom r, Params p) {
    boolean huge = p.longCount++ % 64 == 0;
    String head = "http://example.com/";
    int len;
    if (huge) {
      len = Math.min(p.maxValueBytes - 64, p.json ? RecordDecoder.MAX_JSON_BYTES + 1 : MIB);
    } else {
      len = p.maxUrlBytes + 1 + r.nextInt(p.maxUrlBytes);
    }
    len = Math.max(len, p.maxUrlBytes + 1);
    StringBuilder b = new StringBuilder(len).append(head);
    char ch = (char) ('a' + r.nextInt(26));
    while (b.length() < len) {
      b.append(ch);
    }
    return c(p.wrap(b.toString(), r), RejectReason.TOO_LONG, huge ? "1mib" : "too-long");
  }

  private static Case empty(SplittableRandom r, Params p) {
    switch (r.nextInt(3)) {
      case 0:
        return c(null, RejectReason.EMPTY, "null");
      case 1:
        return c(new byte[0], RejectReason.EMPTY, "empty");
      default:
        return c(
            " \t\r\n \r\n".substring(r.nextInt(6)).getBytes(UTF_8),
            RejectReason.EMPTY,
            "whitespace");
    }
  }

  /**
   * A control character inside the host: a forbidden domain code point or a code point UTS #46
   * disallows.
   */
  private static Case control(SplittableRandom r, Params p) {
    String host = word(r, 10) + ".example.com";
    int at = r.nextInt(host.length() + 1);
    String ctl;
    if (p.json) {
      ctl = pick(r, CONTROL_JSON);
    } else {
      int k;
      do {
        k = r.nextInt(34 + 32);
      } while (k == '\t' || k == '\n' || k == '\r');
      ctl = String.valueOf((char) (k < 32 ? k : k < 34 ? 0x7F : 0x80 + (k - 34)));
    }
    return c(
        p.wrap("http://" + host.substring(0, at) + ctl + host.substring(at) + "/", r),
        RejectReason.BAD_HOST,
        "control-in-host");
  }

  private static Case scheme(SplittableRandom r, Params p) {
    String s = r.nextBoolean() ? pick(r, SCHEMES) : word(r, 8) + (r.nextBoolean() ? "s" : "");
    if (s.equalsIgnoreCase("http") || s.equalsIgnoreCase("https")) {
      s = "ftp";
    }
    return c(
        p.wrap(s + "://example.com/" + word(r, 5), r), RejectReason.UNSUPPORTED_SCHEME, "scheme");
  }

  private static Case relative(SplittableRandom r, Params p) {
    String u = r.nextBoolean() ? pick(r, RELATIVE) : "/" + word(r, 8) + "/" + word(r, 8);
    return c(
        p.wrap(u, r), u.isBlank() ? RejectReason.EMPTY : RejectReason.RELATIVE_URL, "relative");
  }

  private static Case badHost(SplittableRandom r, Params p) {
    String h = pick(r, BAD_HOSTS);
    if (!p.json) {
      h = unescapeJava(h);
    }
    return c(p.wrap(h, r), RejectReason.BAD_HOST, "bad-host");
  }

  /** The {@code \\uXXXX} escapes of a BAD_HOSTS entry as characters (text format). */
  private static String unescapeJava(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      if (s.startsWith("\\u", i)) {
        b.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
        i += 5;
      } else {
        b.append(s.charAt(i));
      }
    }
    return b.toString();
  }

  private static Case badPort(SplittableRandom r, Params p) {
    return c(
        p.wrap("http://" + word(r, 8) + ".com" + pick(r, BAD_PORTS) + "/", r),
        RejectReason.BAD_PORT,
        "bad-port");
  }

  private static Case json(String text, RejectReason reason, String category) {
    return c(text.getBytes(UTF_8), reason, category);
  }

  private static String nest(String open, String inner, String close, int depth) {
    return open.repeat(depth) + inner + close.repeat(depth);
  }

  private static final List<Gen> COMMON_GENS =
      List.of(
          BadInputCorpus::randomBytes,
          BadInputCorpus::badUtf8,
          BadInputCorpus::tooLong,
          BadInputCorpus::empty,
          BadInputCorpus::control,
          BadInputCorpus::scheme,
          BadInputCorpus::relative,
          BadInputCorpus::badHost,
          BadInputCorpus::badPort);

  private static final List<Gen> TEXT_GENS = List.of();

  private static final List<Gen> JSON_GENS =
      List.of(
          (r, p) -> json(pick(r, NOT_JSON), RejectReason.NOT_JSON, "not-json"),
          (r, p) ->
              json(
                  nest("{\"a\":", "1", "}", 1001 + r.nextInt(2000)),
                  RejectReason.NOT_JSON,
                  "deep-nesting"),
          (r, p) ->
              json(nest("[", "", "]", 1001 + r.nextInt(2000)), RejectReason.NOT_JSON, "deep-array"),
          (r, p) ->
              json(nest("[", "", "]", 1 + r.nextInt(900)), RejectReason.NOT_OBJECT, "nested-array"),
          (r, p) -> json(pick(r, NOT_OBJECT), RejectReason.NOT_OBJECT, "not-object"),
          (r, p) ->
              json(
                  r.nextBoolean()
                      ? "{}"
                      : "{\"URL\":\"" + goodUrl(r) + "\",\"x\":{\"url\":\"" + goodUrl(r) + "\"}}",
                  RejectReason.MISSING_URL,
                  "missing-url"),
          (r, p) ->
              json(
                  "{\"url\":" + pick(r, NOT_STRING) + "}",
                  RejectReason.URL_NOT_STRING,
                  "url-not-string"),
          (r, p) ->
              json(
                  "{\"url\":\"" + goodUrl(r) + "\",\"force\":" + pick(r, NOT_BOOLEAN) + "}",
                  RejectReason.FORCE_NOT_BOOLEAN,
                  "force-not-boolean"),
          (r, p) ->
              json(
                  r.nextBoolean()
                      ? "{\"url\":\"" + goodUrl(r) + "\",\"a\":1,\"url\":\"" + goodUrl(r) + "\"}"
                      : "{\"force\":true,\"url\":\"" + goodUrl(r) + "\",\"force\":false}",
                  RejectReason.DUPLICATE_FIELD,
                  "duplicate"),
          (r, p) ->
              json(
                  "{\"url\":\"http://"
                      + word(r, 6)
                      + (r.nextBoolean()
                          ? pick(r, LONE_SURROGATES) + ".com/"
                          : ".com/" + word(r, 4) + pick(r, LONE_SURROGATES))
                      + "\"}",
                  RejectReason.BAD_UTF8,
                  "lone-surrogate"),
          (r, p) ->
              json(
                  "{\"url\":\"http://" + word(r, 6) + "\\u0000.com/\"}",
                  RejectReason.BAD_HOST,
                  "escaped-nul-in-host"),
          (r, p) -> json("  \r\n ", RejectReason.EMPTY, "json-whitespace"));
}
