package io.urldedup.operators;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/** One input record as read: Kafka (or file) bytes, untouched. Mutable for object reuse. */
@TypeInfo(RawRecordSerializer.Factory.class)
public final class RawRecord {

  /** The input record key, or null. */
  public byte[] key;
  /** The input record value, or null (a Kafka tombstone). */
  public byte[] value;
  public RecordHeaders headers = RecordHeaders.EMPTY;
  /** Where the record came from: {@code topic-partition@offset} or {@code file:line}. */
  public String origin;

  public RawRecord() {}

  public RawRecord(byte[] key, byte[] value, RecordHeaders headers, String origin) {
    this.key = key;
    this.value = value;
    this.headers = headers == null ? RecordHeaders.EMPTY : headers;
    this.origin = origin;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RawRecord)) {
      return false;
    }
    RawRecord r = (RawRecord) o;
    return Arrays.equals(key, r.key)
        && Arrays.equals(value, r.value)
        && Objects.equals(headers, r.headers)
        && Objects.equals(origin, r.origin);
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(key), Arrays.hashCode(value), headers, origin);
  }

  @Override
  public String toString() {
    return "RawRecord{origin=" + origin + ", valueBytes=" + (value == null ? -1 : value.length) + "}";
  }
}
