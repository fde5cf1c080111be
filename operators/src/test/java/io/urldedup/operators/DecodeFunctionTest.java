package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.urldedup.state.UrlHasher;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.flink.api.common.accumulators.Accumulator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

class DecodeFunctionTest {

  private static final long SEED = 0x5EED_1234_ABCD_9876L;

  private static DecodeConfig.Builder cfg(String format) {
    return DecodeConfig.builder().format(format).hashSeed(SEED).shards(128);
  }

  /** Runs records through a fresh DecodeFunction in a test harness. */
  private static final class Run {
    final DecodeFunction fn;
    final List<UrlRecord> out;
    final List<DeadLetter> dead = new ArrayList<>();

    Run(DecodeConfig config, List<RawRecord> in) throws Exception {
      fn = new DecodeFunction(config);
      try (OneInputStreamOperatorTestHarness<RawRecord, UrlRecord> h =
          ProcessFunctionTestHarnesses.forProcessFunction(fn)) {
        for (RawRecord r : in) {
          h.processElement(r, 0L);
        }
        out = h.extractOutputValues();
        if (h.getSideOutput(DecodeFunction.DEAD_LETTERS) != null) {
          for (StreamRecord<DeadLetter> d : h.getSideOutput(DecodeFunction.DEAD_LETTERS)) {
            dead.add(d.getValue());
          }
        }
        assertEquals((long) in.size(), accumulator("recordsIn"));
        assertEquals((long) dead.size(), accumulator("invalid"));
        assertEquals((long) in.size(), fn.counterValue("recordsIn"));
        assertEquals((long) dead.size(), fn.counterValue("invalid"));
        assertEquals(in.size(), out.size() + dead.size(), "in = valid + invalid");
        Map<RejectReason, Long> byReason = new EnumMap<>(RejectReason.class);
        for (DeadLetter d : dead) {
          byReason.merge(d.reason, 1L, Long::sum);
          assertFalse(d.detail.startsWith("decoder failure"), d.detail);
        }
        for (RejectReason r : RejectReason.values()) {
          long expected = byReason.getOrDefault(r, 0L);
          assertEquals(expected, accumulator("invalid_" + r.label()), r.label());
          assertEquals(expected, fn.counterValue("invalid_" + r.label()), r.label());
        }
      }
    }

    long accumulator(String name) {
      Accumulator<Long, Long> a = fn.getRuntimeContext().getAccumulator("urldedup." + name);
      return a.getLocalValue();
    }
  }

  /** Reasons the WHATWG parser never gives (UNPARSEABLE only for a decoder bug). */
  /**
   * Not produced by the decoder: no longer given, a bug, or only with event time from JSON (tested
   * below).
   */
  private static final EnumSet<RejectReason> NOT_PRODUCED =
      EnumSet.of(RejectReason.CONTROL_CHARS, RejectReason.UNPARSEABLE, RejectReason.BAD_TIMESTAMP);

  /**
   * Event time from JSON: records come stamped by {@link JsonTimestampAssigner}; one without a
   * valid ts is a dead letter bad_timestamp naming the problem, after the URL checks (a record that
   * is not JSON is not_json); stamped records pass with their timestamp.
   */
  @Test
  void eventTimeFromJsonRejectsRecordsWithoutTs() throws Exception {
    DecodeFunction fn = new DecodeFunction(cfg("json").build(), true);
    JsonTimestampAssigner assigner = new JsonTimestampAssigner();
    String[] values = {
      "{\"url\":\"http://a.example/\",\"ts\":1000}",
      "{\"url\":\"http://b.example/\"}",
      "{\"url\":\"http://c.example/\",\"ts\":\"noon\"}",
      "not json"
    };
    try (OneInputStreamOperatorTestHarness<RawRecord, UrlRecord> h =
        ProcessFunctionTestHarnesses.forProcessFunction(fn)) {
      for (String v : values) {
        RawRecord r = raw(v);
        h.processElement(r, assigner.extractTimestamp(r, Long.MIN_VALUE));
      }
      List<StreamRecord<? extends UrlRecord>> out = new ArrayList<>();
      h.getOutput()
          .forEach(
              o -> {
                if (o instanceof StreamRecord<?> sr) {
                  out.add((StreamRecord<? extends UrlRecord>) sr);
                }
              });
      assertEquals(1, out.size());
      assertEquals(1000, out.get(0).getTimestamp());
      List<DeadLetter> dead = new ArrayList<>();
      h.getSideOutput(DecodeFunction.DEAD_LETTERS).forEach(d -> dead.add(d.getValue()));
      assertEquals(
          List.of(RejectReason.BAD_TIMESTAMP, RejectReason.BAD_TIMESTAMP, RejectReason.NOT_JSON),
          dead.stream().map(d -> d.reason).toList());
      assertTrue(dead.get(0).detail.contains("no top-level field 'ts'"), dead.get(0).detail);
      assertTrue(dead.get(1).detail.contains("ISO-8601"), dead.get(1).detail);
      assertEquals(2, fn.counterValue("invalid_bad_timestamp"));
    }
  }

  private static RawRecord raw(String value) {
    return new RawRecord(null, value == null ? null : value.getBytes(UTF_8), null, "t-0@1");
  }

  private static UrlRecord one(DecodeConfig c, RawRecord r) throws Exception {
    Run run = new Run(c, List.of(r));
    if (!run.dead.isEmpty()) {
      fail("rejected: " + run.dead.get(0).reason + " " + run.dead.get(0).detail);
    }
    return run.out.get(0);
  }

  private static DeadLetter rejected(DecodeConfig c, RawRecord r) throws Exception {
    Run run = new Run(c, List.of(r));
    assertEquals(1, run.dead.size(), "expected a dead letter");
    return run.dead.get(0);
  }

  private static long[] hash(String canonical) {
    long[] h = new long[2];
    byte[] b = canonical.getBytes(UTF_8);
    new UrlHasher(SEED).hash(b, 0, b.length, h);
    return h;
  }

  @Test
  void textRecord() throws Exception {
    RecordHeaders headers = RecordHeaders.of("trace", "abc".getBytes(UTF_8));
    RawRecord in =
        new RawRecord(
            "in-key".getBytes(UTF_8),
            " HTTP://Example.COM:80/a/./b#x\r\n".getBytes(UTF_8),
            headers,
            "urls-2@17");
    UrlRecord r = one(cfg("text").build(), in);
    String canon = "http://example.com/a/b";
    assertEquals(canon, r.url());
    assertArrayEquals(canon.getBytes(UTF_8), r.value);
    assertArrayEquals("example.com".getBytes(UTF_8), r.key());
    assertEquals(headers, r.headers);
    long[] h = hash(canon);
    assertEquals(h[0], r.h1);
    assertEquals(h[1], r.h2);
    assertEquals(UrlHasher.shard(h[0], h[1], 128), r.shard);
    assertTrue(r.shard >= 0 && r.shard < 128);
    assertFalse(r.force);
  }

  @Test
  void textByteOrderMarkIsSkipped() throws Exception {
    byte[] v = "\uFEFFhttp://example.com/a\r\n".getBytes(UTF_8);
    UrlRecord r = one(cfg("text").build(), new RawRecord(null, v, null, "f:1"));
    assertEquals("http://example.com/a", r.url());
    assertArrayEquals("http://example.com/a".getBytes(UTF_8), r.value);
  }

  @Test
  void canonicalInputIsNotCopied() throws Exception {
    RecordDecoder d = new RecordDecoder(cfg("text").build());
    RawRecord in = raw("http://example.com/a");
    UrlRecord r = d.decode(in);
    assertSame(in.value, r.value);
    // URL and key are ranges of the input: the record is the only object made
    assertSame(in.value, r.urlBytes());
    assertEquals(0, r.urlOffset());
    assertEquals(in.value.length, r.urlLength());
    assertSame(in.value, r.keyBytes());
    assertEquals("http://".length(), r.keyOffset());
    assertEquals("example.com".length(), r.keyLength());
    RecordDecoder j = new RecordDecoder(cfg("json").build());
    RawRecord jin = raw("{\"url\":\"http://example.com/a\",\"force\":true}");
    UrlRecord jr = j.decode(jin);
    assertSame(jin.value, jr.value);
    assertSame(jin.value, jr.urlBytes());
    assertEquals("{\"url\":\"".length(), jr.urlOffset());
    assertEquals("http://example.com/a", jr.url());
    assertSame(jin.value, jr.keyBytes());
    assertTrue(jr.force);
    assertEquals(hash("http://example.com/a")[0], jr.h1);
  }

  @Test
  void jsonPassesEveryOtherByteThrough() throws Exception {
    String before =
        "{ \"id\" : 7,\"nested\":{\"url\":\"not me\",\"a\":[1,2.50e3,null,true]},"
            + "\"txt\":\"caf\u00e9 \\u00e9 \\\" \\\\\",\"dup\":1,\"dup\":2,  \"url\" :  \"";
    String after = "\" , \"force\":false ,\"tail\":\"\ud83d\ude00\"}  \n";
    String in = before + "HTTP://Example.com/a/../b?z=1&a=2" + after;
    UrlRecord r = one(cfg("json").build(), raw(in));
    String canon = "http://example.com/b?z=1&a=2";
    assertEquals(canon, r.url());
    assertArrayEquals((before + canon + after).getBytes(UTF_8), r.value);
    assertSame(r.value, r.urlBytes(), "the spliced value holds the canonical URL");
    assertFalse(r.force);
    assertEquals(hash(canon)[1], r.h2);
  }

  @Test
  void jsonEscapesInTheUrlAreReplacedByTheCanonicalText() throws Exception {
    String in = "{\"url\":\"http:\\/\\/example.com\\/\\u00e4\"}";
    UrlRecord r = one(cfg("json").build(), raw(in));
    assertEquals("http://example.com/%C3%A4", r.url());
    assertArrayEquals("{\"url\":\"http://example.com/%C3%A4\"}".getBytes(UTF_8), r.value);
  }

  @Test
  void forceFlag() throws Exception {
    DecodeConfig c = cfg("json").build();
    assertTrue(one(c, raw("{\"force\":true,\"url\":\"http://a.com/\"}")).force);
    assertFalse(one(c, raw("{\"force\":false,\"url\":\"http://a.com/\"}")).force);
    assertFalse(one(c, raw("{\"url\":\"http://a.com/\"}")).force);
    assertFalse(one(cfg("text").build(), raw("http://a.com/")).force);
  }

  @Test
  void keyModes() throws Exception {
    String url = "http://www.sub.example.co.uk/x";
    assertArrayEquals(
        "www.sub.example.co.uk".getBytes(UTF_8),
        one(cfg("text").keyMode("host").build(), raw(url)).key());
    UrlRecord d = one(cfg("text").keyMode("domain").build(), raw(url));
    assertArrayEquals("example.co.uk".getBytes(UTF_8), d.key());
    assertSame(d.value, d.keyBytes(), "the registrable domain is a range of the host");
    assertNull(one(cfg("text").keyMode("none").build(), raw(url)).key());
    DecodeConfig domain = cfg("text").keyMode("DOMAIN").build();
    assertArrayEquals("10.1.2.3".getBytes(UTF_8), one(domain, raw("http://10.1.2.3:8080/")).key());
    assertArrayEquals(
        "a.b.unknowntld".getBytes(UTF_8), one(domain, raw("http://a.b.unknowntld/")).key());
    assertArrayEquals("[::1]".getBytes(UTF_8), one(domain, raw("http://[::1]/")).key());
    assertArrayEquals(
        "x.blogspot.com".getBytes(UTF_8), one(domain, raw("http://x.blogspot.com/")).key());
  }

  @Test
  void rulesFromConfig() throws Exception {
    DecodeConfig c = cfg("text").stripParams("default").stripWww(true).build();
    assertEquals(
        "http://example.com/a?x=1",
        one(c, raw("http://www.example.com/a;jsessionid=1?SID=2&x=1")).url());
  }

  @Test
  void everyRejectReason() throws Exception {
    DecodeConfig text = cfg("text").maxUrlBytes(64).build();
    DecodeConfig json = cfg("json").maxUrlBytes(64).build();
    Object[][] cases = {
      {text, null, RejectReason.EMPTY},
      {text, " \r\n", RejectReason.EMPTY},
      {json, "", RejectReason.EMPTY},
      {text, "http://a\u0000.com/x", RejectReason.BAD_HOST},
      {text, "http://a.com/" + "x".repeat(60), RejectReason.TOO_LONG},
      {json, "{\"url\":\"http://a.com/" + "x".repeat(60) + "\"}", RejectReason.TOO_LONG},
      {json, "{\"url\":", RejectReason.NOT_JSON},
      {json, "[\"http://a.com/\"]", RejectReason.NOT_OBJECT},
      {json, "{\"href\":\"http://a.com/\"}", RejectReason.MISSING_URL},
      {json, "{\"url\":42}", RejectReason.URL_NOT_STRING},
      {json, "{\"url\":\"http://a.com/\",\"force\":\"yes\"}", RejectReason.FORCE_NOT_BOOLEAN},
      {json, "{\"url\":\"http://a.com/\",\"url\":\"http://b.com/\"}", RejectReason.DUPLICATE_FIELD},
      {text, "/relative", RejectReason.RELATIVE_URL},
      {json, "{\"url\":\"ftp://a.com/\"}", RejectReason.UNSUPPORTED_SCHEME},
      {text, "http://a.com%2F/", RejectReason.BAD_HOST},
      {text, "http://a.com:70000/", RejectReason.BAD_PORT},
    };
    EnumSet<RejectReason> seen = EnumSet.noneOf(RejectReason.class);
    for (Object[] c : cases) {
      RawRecord in = raw((String) c[1]);
      in.key = "k".getBytes(UTF_8);
      in.headers = RecordHeaders.of("h", new byte[] {1});
      DeadLetter d = rejected((DecodeConfig) c[0], in);
      assertEquals(c[2], d.reason, c[1] + ": " + d.detail);
      assertArrayEquals(in.value, d.value);
      assertArrayEquals(in.key, d.key);
      assertEquals(in.headers, d.headers);
      assertEquals("t-0@1", d.origin);
      assertTrue(d.detail != null && !d.detail.isEmpty());
      seen.add(d.reason);
    }
    DeadLetter bad =
        rejected(text, new RawRecord(null, new byte[] {'h', (byte) 0xC0, (byte) 0xAF}, null, "x"));
    assertEquals(RejectReason.BAD_UTF8, bad.reason);
    seen.add(bad.reason);
    assertEquals(EnumSet.complementOf(NOT_PRODUCED), seen);
  }

  /**
   * Issue 21 item 8: a JSON url with a surrogate escape that has no other half encodes no
   * character, as the bytes ED A0 80 encode none in text: both are bad_utf8, with a detail naming
   * the escape and its byte. Read as U+FFFD, {@code \\ud800} and {@code \\udbff} were one URL.
   */
  @Test
  void jsonLoneSurrogateIsBadUtf8AsInText() throws Exception {
    DecodeConfig json = cfg("json").build();
    String[][] cases = {
      {"{\"url\":\"http://a.com/\\ud800\"}", "\\ud800", "21"},
      {"{\"url\":\"http://a.com/\\udbff\"}", "\\udbff", "21"},
      {"{\"url\":\"http://a.com/\\uDC00x\"}", "\\uDC00", "21"},
      {"{\"a\":\"\\u00e9\", \"url\":\"http://a.com/\\ud83d\\ude00\\ud83d\"}", "\\ud83d", "47"},
      {"{\"url\":\"http://a.com/\\ud800\\ud800\\udc00\"}", "\\ud800", "21"},
      {"{\"url\":\"http://\\ud800.com/\"}", "\\ud800", "15"},
    };
    for (String[] c : cases) {
      DeadLetter d = rejected(json, raw(c[0]));
      assertEquals(RejectReason.BAD_UTF8, d.reason, c[0] + ": " + d.detail);
      assertEquals(
          "field 'url' has an unpaired surrogate escape "
              + c[1]
              + " at byte "
              + c[2]
              + " (no Unicode character)",
          d.detail,
          c[0]);
      assertEquals(
          c[1],
          c[0].substring(Integer.parseInt(c[2]), Integer.parseInt(c[2]) + 6),
          "the byte is the escape's");
    }
    // the same code unit as bytes in text (CESU-8): bad_utf8 too
    byte[] text = {
      'h',
      't',
      't',
      'p',
      ':',
      '/',
      '/',
      'a',
      '.',
      'c',
      'o',
      'm',
      '/',
      (byte) 0xED,
      (byte) 0xA0,
      (byte) 0x80
    };
    assertEquals(
        RejectReason.BAD_UTF8,
        rejected(cfg("text").build(), new RawRecord(null, text, null, "x")).reason);
    // a pair is one character, as its UTF-8 in text is
    assertEquals(
        "http://a.com/%F0%9F%98%80",
        one(json, raw("{\"url\":\"http://a.com/\\ud83d\\ude00\"}")).url());
    assertEquals(
        "http://a.com/%F0%9F%98%80",
        one(cfg("text").build(), raw("http://a.com/\ud83d\ude00")).url());
  }

  /**
   * Issue 21: a not_json detail says what is wrong and at which byte in words of our own, never the
   * parser's (its token names, limit classes and advice change with its versions).
   */
  @Test
  void notJsonDetailsAreShortAndStable() throws Exception {
    DecodeConfig json = cfg("json").build();
    String[][] cases = {
      {"{\"url\":", "unexpected end of input at byte 7"},
      {"{\"url\":\"http://a.com/\"", "unexpected end of input at byte 22"},
      {"{url:\"http://a.com/\"}", "unexpected character 'u' at byte 1"},
      {"{\"url\":\"http://a.com/\",}", "unexpected character '}' at byte 23"},
      {"{\"a\":01}", "unexpected character '1' at byte 6"},
      {"{\"a\":tru}", "unexpected character 't' at byte 5"},
      {"{\"url\":\"http://a.com/\u0001\"}", "unexpected character 0x01 at byte 21"},
      {"{\"url\":\"http://a.com/\"} x", "unexpected character 'x' at byte 24"},
      {"{\"a\":".repeat(1001) + "1" + "}".repeat(1001), "nested deeper than 1000 levels"},
    };
    for (String[] c : cases) {
      DeadLetter d = rejected(json, raw(c[0]));
      assertEquals(RejectReason.NOT_JSON, d.reason, c[0]);
      assertEquals(c[1], d.detail, c[0].length() > 80 ? c[0].substring(0, 80) : c[0]);
    }
  }

  @Test
  void badInputCorpusText() throws Exception {
    corpus(cfg("text").build(), 1);
  }

  @Test
  void badInputCorpusJson() throws Exception {
    corpus(cfg("json").build(), 2);
  }

  /** Every corpus record gets exactly its reason; valid records mixed in all pass. */
  private static void corpus(DecodeConfig c, long seed) throws Exception {
    List<BadInputCorpus.Case> cases = BadInputCorpus.generate(c, seed, 12_000);
    Map<String, Integer> categories = new HashMap<>();
    List<RawRecord> in = new ArrayList<>();
    for (BadInputCorpus.Case k : cases) {
      in.add(k.record);
      categories.merge(k.category, 1, Integer::sum);
    }
    int valid = 500;
    for (int i = 0; i < valid; i++) {
      String u = "http://h" + i + ".example.com/p?i=" + i;
      in.add(raw(c.format() == DecodeConfig.Format.JSON ? "{\"url\":\"" + u + "\"}" : u));
    }
    Run run = new Run(c, in);
    assertEquals(valid, run.out.size());
    assertEquals(cases.size(), run.dead.size());
    Map<String, String> wrong = new HashMap<>();
    for (int i = 0; i < cases.size(); i++) {
      BadInputCorpus.Case k = cases.get(i);
      DeadLetter d = run.dead.get(i);
      assertEquals(k.record.origin(), d.origin);
      assertArrayEquals(k.record.value, d.value);
      if (k.expected != d.reason) {
        wrong.putIfAbsent(
            k.category,
            k.expected
                + " expected, got "
                + d.reason
                + " ("
                + d.detail
                + ") for "
                + preview(k.record.value));
      }
    }
    assertTrue(wrong.isEmpty(), () -> String.join("\n", wrong.values()));
    assertTrue(categories.containsKey("1mib"), "corpus has 1 MiB values");
    EnumSet<RejectReason> expected = EnumSet.noneOf(RejectReason.class);
    cases.forEach(k -> expected.add(k.expected));
    EnumSet<RejectReason> all = EnumSet.complementOf(NOT_PRODUCED);
    if (c.format() == DecodeConfig.Format.TEXT) {
      all.removeAll(
          EnumSet.of(
              RejectReason.NOT_JSON,
              RejectReason.NOT_OBJECT,
              RejectReason.MISSING_URL,
              RejectReason.URL_NOT_STRING,
              RejectReason.FORCE_NOT_BOOLEAN,
              RejectReason.DUPLICATE_FIELD));
    }
    assertEquals(all, expected, "corpus covers every reason of the format");
  }

  private static String preview(byte[] v) {
    if (v == null) {
      return "null";
    }
    String s = new String(v, 0, Math.min(v.length, 120), UTF_8);
    return "'" + s + "'" + (v.length > 120 ? "... (" + v.length + " bytes)" : "");
  }

  @Test
  void corpusIsDeterministic() {
    DecodeConfig c = cfg("json").build();
    List<BadInputCorpus.Case> a = BadInputCorpus.generate(c, 9, 300);
    List<BadInputCorpus.Case> b = BadInputCorpus.generate(c, 9, 300);
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).record, b.get(i).record);
      assertEquals(a.get(i).expected, b.get(i).expected);
    }
    for (BadInputCorpus.Case k : BadInputCorpus.generate(c, 9, 2_000, 100_000)) {
      assertTrue(k.record.value == null || k.record.value.length <= 100_000);
    }
  }

  /** Random bytes and mutated JSON: nothing throws, nothing fails inside the decoder. */
  @Test
  void fuzz() throws Exception {
    SplittableRandom r = new SplittableRandom(7);
    String[] seeds = {
      "{\"url\":\"http://a.com/x?b=1&a=2\",\"force\":true,\"m\":[1,{\"k\":null}]}",
      "http://www.example.com/a/../b;jsessionid=1?x=%2d",
      "{\"url\":\"http://[::1]:8/\"}"
    };
    for (String format : new String[] {"text", "json"}) {
      List<RawRecord> in = new ArrayList<>();
      for (int i = 0; i < 4_000; i++) {
        byte[] v;
        if (i % 4 == 0) {
          v = new byte[r.nextInt(300)];
          r.nextBytes(v);
        } else {
          v = seeds[r.nextInt(seeds.length)].getBytes(UTF_8);
          int flips = 1 + r.nextInt(4);
          for (int f = 0; f < flips; f++) {
            v[r.nextInt(v.length)] = (byte) (r.nextBoolean() ? r.nextInt(128) : r.nextInt(256));
          }
        }
        in.add(new RawRecord(null, v, null, "fuzz:" + i));
      }
      new Run(cfg(format).stripParams("default").stripWww(true).keyMode("domain").build(), in);
    }
  }

  @Test
  void seedIsNeverShown() {
    DecodeConfig c = cfg("json").build();
    String s = c.toString();
    assertFalse(s.contains(Long.toString(SEED)), s);
    assertFalse(s.contains(Long.toHexString(SEED)), s);
    assertFalse(s.contains(Long.toUnsignedString(SEED)), s);
    assertFalse(s.toLowerCase().contains("5eed"), s);
    assertTrue(s.contains("hidden"), s);
  }
}
