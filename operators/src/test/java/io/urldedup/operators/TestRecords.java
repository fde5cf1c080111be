package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Arrays;

/** Fixed sample records shared by the serializer tests and their golden files. */
final class TestRecords {

  private TestRecords() {}

  static RecordHeaders headers() {
    return RecordHeaders.of(
        new String[] {"trace", "empty", "nullv", "trace"},
        new byte[][] {"t-1".getBytes(UTF_8), new byte[0], null, {(byte) 0xff, 0, 1}});
  }

  static RawRecord[] raw() {
    return new RawRecord[] {
      new RawRecord(null, null, null, null),
      new RawRecord(new byte[0], new byte[0], RecordHeaders.EMPTY, ""),
      new RawRecord(
          "k".getBytes(UTF_8), "https://example.com/a".getBytes(UTF_8), headers(), "urls-3@42"),
      new RawRecord(null, new byte[] {(byte) 0xc3, 0x28, 0, (byte) 0xff}, null, "file:7"),
      new RawRecord(
          null,
          "{\"url\":\"http://b\u00fccher.de/\"}".getBytes(UTF_8),
          RecordHeaders.of("h", null),
          "urls-0@0"),
    };
  }

  static UrlRecord[] url() {
    return new UrlRecord[] {
      new UrlRecord(null, null, null, null, 0, 0, 0, false),
      new UrlRecord(
          "https://example.com/a",
          "https://example.com/a".getBytes(UTF_8),
          "example.com".getBytes(UTF_8),
          headers(),
          0x0123456789abcdefL,
          -1L,
          127,
          true),
      new UrlRecord(
          "http://xn--bcher-kva.de/",
          "{\"url\":\"http://xn--bcher-kva.de/\"}".getBytes(UTF_8),
          null,
          RecordHeaders.EMPTY,
          Long.MIN_VALUE,
          Long.MAX_VALUE,
          0,
          false),
      new UrlRecord(
          "", new byte[0], new byte[0], RecordHeaders.of("x", new byte[0]), 1, 2, 3, false),
    };
  }

  /**
   * {@link #url()} (the v1 and v2 fixtures) and records that exercise format v3's other forms: a
   * URL that is not in the value with a key that is not in the URL, and a JSON value holding the
   * URL (a range of it) with the host key (a range of that).
   */
  static UrlRecord[] urlV3() {
    UrlRecord[] v12 = url();
    UrlRecord[] all = Arrays.copyOf(v12, v12.length + 2);
    all[v12.length] =
        new UrlRecord(
            "http://a.example/x",
            "{\"u\":\"other\"}".getBytes(UTF_8),
            "zz-key".getBytes(UTF_8),
            headers(),
            5,
            6,
            7,
            true);
    all[v12.length + 1] =
        new UrlRecord(
            "http://xn--bcher-kva.de/",
            "{\"id\":1,\"url\":\"http://xn--bcher-kva.de/\"}".getBytes(UTF_8),
            "xn--bcher-kva.de".getBytes(UTF_8),
            RecordHeaders.EMPTY,
            -5,
            -6,
            1,
            false);
    return all;
  }

  static DeadLetter[] dead() {
    return new DeadLetter[] {
      new DeadLetter(null, null, null, null, null, null),
      new DeadLetter(null, null, RecordHeaders.EMPTY, RejectReason.EMPTY, "null value", "urls-1@9"),
      new DeadLetter(
          new byte[] {(byte) 0xc3, 0x28},
          "k".getBytes(UTF_8),
          headers(),
          RejectReason.BAD_UTF8,
          "malformed UTF-8 at byte 0",
          "file:12"),
      new DeadLetter(
          "ftp://x/".getBytes(UTF_8),
          null,
          null,
          RejectReason.UNSUPPORTED_SCHEME,
          "scheme ftp (only http, https)",
          ""),
    };
  }
}
