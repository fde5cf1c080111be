package io.urldedup.operators;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A decoded, canonicalized URL with its hash, shard and output bytes. Mutable for object reuse.
 */
@TypeInfo(UrlRecordSerializer.Factory.class)
public final class UrlRecord {

  /** The canonical URL. */
  public String url;
  /** The output record value: the canonical URL line, or the input JSON with the URL replaced. */
  public byte[] value;
  /** The output record key (host, registrable domain), or null. */
  public byte[] key;
  public RecordHeaders headers = RecordHeaders.EMPTY;
  /** XXH3-128 of the canonical URL's UTF-8 bytes. */
  public long h1;
  public long h2;
  /** {@code UrlHasher.shard(h1, h2, shards)}. */
  public int shard;
  /** Emit even if seen (Heritrix addForce, Scrapy dont_filter). */
  public boolean force;

  public UrlRecord() {}

  public UrlRecord(
      String url, byte[] value, byte[] key, RecordHeaders headers,
      long h1, long h2, int shard, boolean force) {
    this.url = url;
    this.value = value;
    this.key = key;
    this.headers = headers == null ? RecordHeaders.EMPTY : headers;
    this.h1 = h1;
    this.h2 = h2;
    this.shard = shard;
    this.force = force;
  }

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
        && Objects.equals(url, r.url)
        && Arrays.equals(value, r.value)
        && Arrays.equals(key, r.key)
        && Objects.equals(headers, r.headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(url, h1, h2, shard, force);
  }

  @Override
  public String toString() {
    return "UrlRecord{url=" + url + ", shard=" + shard + ", force=" + force + "}";
  }
}
