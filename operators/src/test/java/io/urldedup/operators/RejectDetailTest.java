package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.OneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

/**
 * Issue 21 ("Also"): a dead letter's detail says what is true about the record. A value cut by a
 * line reader ({@link RecordDecoder#CUT_BYTES}) is "more than 1048576 bytes", not the cut's length;
 * a value that looks like UTF-16 says so.
 */
class RejectDetailTest {

  static DecodeConfig config(String format) {
    return DecodeConfig.builder()
        .format(format)
        .hashSeed(0x5EED_1234_ABCD_9876L)
        .shards(16)
        .build();
  }

  static List<DeadLetter> dead(DecodeConfig c, byte[]... values) throws Exception {
    List<DeadLetter> out = new ArrayList<>();
    try (OneInputStreamOperatorTestHarness<RawRecord, UrlRecord> h =
        ProcessFunctionTestHarnesses.forProcessFunction(new DecodeFunction(c))) {
      for (int i = 0; i < values.length; i++) {
        h.processElement(new RawRecord(null, values[i], null, "f:" + (i + 1)), 0L);
      }
      assertTrue(h.extractOutputValues().isEmpty(), "all rejected");
      for (StreamRecord<DeadLetter> d : h.getSideOutput(DecodeFunction.DEAD_LETTERS)) {
        out.add(d.getValue());
      }
    }
    assertEquals(values.length, out.size());
    return out;
  }

  static byte[] url(int bytes) {
    byte[] v = new byte[bytes];
    Arrays.fill(v, (byte) 'x');
    System.arraycopy("http://a.com/".getBytes(UTF_8), 0, v, 0, 13);
    return v;
  }

  @Test
  void aCutValueIsMoreThanTheLimitAndOthersTheirLength() throws Exception {
    List<DeadLetter> d =
        dead(config("text"), url(RecordDecoder.CUT_BYTES), url(2 << 20), url(9000));
    assertEquals("URL is more than 1048576 bytes (--max-url-bytes 8192)", d.get(0).detail);
    assertEquals("URL is 2097152 bytes (--max-url-bytes 8192)", d.get(1).detail);
    assertEquals("URL is 9000 bytes (--max-url-bytes 8192)", d.get(2).detail);
    for (DeadLetter l : d) {
      assertEquals(RejectReason.TOO_LONG, l.reason);
    }
    byte[] json = new byte[RecordDecoder.CUT_BYTES];
    Arrays.fill(json, (byte) ' ');
    json[0] = '{';
    byte[] big = new byte[(2 << 20) + 3];
    Arrays.fill(big, (byte) ' ');
    d = dead(config("json"), json, big);
    assertEquals("JSON value is more than 1048576 bytes (limit 1048576)", d.get(0).detail);
    assertEquals("JSON value is 2097155 bytes (limit 1048576)", d.get(1).detail);
  }

  /**
   * {@code printf 'http://a.com/1\nhttp://a.com/2\n' | iconv -t UTF-16} read as lines: the first
   * holds the byte order mark, the next starts with the NUL of its line end. UTF-16LE and BE.
   */
  @Test
  void utf16LinesSayTheyLookLikeUtf16() throws Exception {
    for (java.nio.charset.Charset cs :
        List.of(StandardCharsets.UTF_16LE, StandardCharsets.UTF_16BE)) {
      byte[] bom =
          cs == StandardCharsets.UTF_16LE
              ? new byte[] {(byte) 0xFF, (byte) 0xFE}
              : new byte[] {(byte) 0xFE, (byte) 0xFF};
      byte[] file = concat(bom, "http://a.com/1\nhttp://a.com/2\n".getBytes(cs));
      List<byte[]> lines = new ArrayList<>();
      int start = 0;
      for (int i = 0; i < file.length; i++) {
        if (file[i] == '\n') {
          lines.add(Arrays.copyOfRange(file, start, i));
          start = i + 1;
        }
      }
      List<DeadLetter> d = dead(config("text"), lines.get(0), lines.get(1));
      for (DeadLetter l : d) {
        assertTrue(
            l.detail.endsWith(
                "; looks like UTF-16: urldedup reads UTF-8 (convert it: iconv -f UTF-16 -t"
                    + " UTF-8)"),
            cs + ": " + l.reason + " " + l.detail);
      }
      assertEquals(RejectReason.BAD_UTF8, d.get(0).reason);
      assertEquals(
          2L,
          dead(config("json"), lines.get(0), lines.get(1)).stream()
              .filter(l -> l.detail.contains("looks like UTF-16"))
              .count(),
          cs + " json");
    }
    // UTF-8 that is bad, or has a NUL or two, and zeroed bytes get no such hint
    List<DeadLetter> d =
        dead(
            config("text"),
            new byte[] {'h', (byte) 0xC0, (byte) 0xAF},
            "/relative\0path".getBytes(UTF_8),
            new byte[] {0},
            new byte[4096]);
    for (DeadLetter l : d) {
      assertFalse(l.detail.contains("UTF-16"), l.detail);
    }
  }

  static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
