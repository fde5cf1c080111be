package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A decoded, canonicalized URL with its hash, shard and output bytes. Mutable for object reuse.
 *
 * <p>The canonical URL and the output key are ranges, not copies: the URL is a range of the value
 * when the value contains it (a text record's value is the URL; a JSON value whose url string is
 * already canonical contains it verbatim), otherwise of an array of its own; the key (host or
 * registrable domain) is a range of the URL when it is a substring of it, as it always is for the
 * decoder's output (the host is part of the canonical URL, a registrable domain a suffix of the
 * host). So the decoder's fast path allocates one object per URL, this record (issue 10), and a
 * record crossing the network carries the URL and key as a few offsets. {@link #url()} builds the
 * URL string on demand for the few callers that want one.
 */
@TypeInfo(UrlRecordSerializer.Factory.class)
public final class UrlRecord {

  /** The output record value: the canonical URL line, or the input JSON with the URL replaced. */
  public byte[] value;

  public RecordHeaders headers = RecordHeaders.EMPTY;

  /** XXH3-128 of the canonical URL's UTF-8 bytes. */
  public long h1;

  public long h2;

  /** {@code UrlHasher.shard(h1, h2, shards)}. */
  public int shard;

  /** Emit even if seen (Heritrix addForce, Scrapy dont_filter). */
  public boolean force;

  /** The canonical URL's UTF-8 bytes: {@code urlBytes[urlOffset, urlOffset + urlLength)}. */
  private byte[] urlBytes;

  private int urlOffset;
  private int urlLength;

  /** The key bytes {@code keyBytes[keyOffset, keyOffset + keyLength)}; null: no key. */
  private byte[] keyBytes;

  private int keyOffset;
  private int keyLength;

  /** {@link #url()}, built on first use. */
  private String url;

  public UrlRecord() {}

  /**
   * A record of the URL {@code url} (null: none), whose bytes are located in {@code value} when
   * they occur there, and of the key {@code key} (null: none), located in the URL when it occurs
   * there. For callers holding strings (tests, tools); the decoder sets ranges directly.
   */
  public UrlRecord(
      String url,
      byte[] value,
      byte[] key,
      RecordHeaders headers,
      long h1,
      long h2,
      int shard,
      boolean force) {
    this.value = value;
    this.headers = headers == null ? RecordHeaders.EMPTY : headers;
    this.h1 = h1;
    this.h2 = h2;
    this.shard = shard;
    this.force = force;
    if (url != null) {
      byte[] u = url.getBytes(UTF_8);
      int at = indexOf(value, u, 0, value == null ? 0 : value.length);
      if (at >= 0) {
        setUrl(value, at, u.length);
      } else {
        setUrl(u, 0, u.length);
      }
    }
    if (key != null) {
      int at = indexOf(urlBytes, key, urlOffset, urlOffset + urlLength);
      if (at >= 0) {
        setKey(urlBytes, at, key.length);
      } else {
        setKey(key, 0, key.length);
      }
    }
  }

  /** Sets the canonical URL to {@code b[off, off + len)} (not copied; null {@code b}: none). */
  public void setUrl(byte[] b, int off, int len) {
    urlBytes = b;
    urlOffset = off;
    urlLength = b == null ? 0 : len;
    url = null;
  }

  /** Sets the key to {@code b[off, off + len)} (not copied; null {@code b}: no key). */
  public void setKey(byte[] b, int off, int len) {
    keyBytes = b;
    keyOffset = off;
    keyLength = b == null ? 0 : len;
  }

  /** The array holding the canonical URL's bytes (shared, do not modify), or null. */
  public byte[] urlBytes() {
    return urlBytes;
  }

  public int urlOffset() {
    return urlOffset;
  }

  public int urlLength() {
    return urlLength;
  }

  /** The canonical URL, or null; built from its bytes on first use. */
  public String url() {
    if (url == null && urlBytes != null) {
      url = new String(urlBytes, urlOffset, urlLength, UTF_8);
    }
    return url;
  }

  /** The array holding the key's bytes (shared, do not modify), or null for no key. */
  public byte[] keyBytes() {
    return keyBytes;
  }

  public int keyOffset() {
    return keyOffset;
  }

  public int keyLength() {
    return keyLength;
  }

  /**
   * The key as an array of its own (a Kafka record key), or null: the shared array when the key is
   * all of it, else a copy of the range.
   */
  public byte[] key() {
    if (keyBytes == null) {
      return null;
    }
    if (keyOffset == 0 && keyLength == keyBytes.length) {
      return keyBytes;
    }
    return Arrays.copyOfRange(keyBytes, keyOffset, keyOffset + keyLength);
  }

  /** Whether the URL's bytes are a range of {@link #value}. */
  boolean urlInValue() {
    return urlBytes != null && urlBytes == value;
  }

  /** Whether the key's bytes are a range of the URL's. */
  boolean keyInUrl() {
    return keyBytes != null
        && keyBytes == urlBytes
        && keyOffset >= urlOffset
        && keyOffset + keyLength <= urlOffset + urlLength;
  }

  /** The first index of {@code part} in {@code b[from, to)}, or -1. */
  private static int indexOf(byte[] b, byte[] part, int from, int to) {
    if (b == null) {
      return -1;
    }
    for (int i = from; i + part.length <= to; i++) {
      if (Arrays.equals(b, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean rangeEquals(byte[] a, int ao, int al, byte[] b, int bo, int bl) {
    if (a == null || b == null) {
      return a == b;
    }
    return Arrays.equals(a, ao, ao + al, b, bo, bo + bl);
  }

  /** Equal content: URL and key compared as bytes, wherever they are held. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof UrlRecord)) {
      return false;
    }
    UrlRecord r = (UrlRecord) o;
    return h1 == r.h1
        && h2 == r.h2
        && shard == r.shard
        && force == r.force
        && rangeEquals(urlBytes, urlOffset, urlLength, r.urlBytes, r.urlOffset, r.urlLength)
        && Arrays.equals(value, r.value)
        && rangeEquals(keyBytes, keyOffset, keyLength, r.keyBytes, r.keyOffset, r.keyLength)
        && Objects.equals(headers, r.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(h1, h2, shard, force);
  }

  @Override
  public String toString() {
    return "UrlRecord{url=" + url() + ", shard=" + shard + ", force=" + force + "}";
  }
}
