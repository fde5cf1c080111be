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

  // Where the record came from, as its parts: the text (origin()) is needed only for a dead letter
  // or a log line, so it is not built per record. originText, once set or built, wins.
  private String originText;
  private String originName;
  private int originPartition = -1;
  private long originIndex;

  public RawRecord() {}

  public RawRecord(byte[] key, byte[] value, RecordHeaders headers, String origin) {
    this.key = key;
    this.value = value;
    this.headers = headers == null ? RecordHeaders.EMPTY : headers;
    this.originText = origin;
  }

  /** A Kafka record: origin {@code topic-partition@offset}, formatted when asked for. */
  public static RawRecord fromKafka(
      byte[] key, byte[] value, RecordHeaders headers, String topic, int partition, long offset) {
    RawRecord r = new RawRecord(key, value, headers, null);
    r.originName = topic;
    r.originPartition = partition;
    r.originIndex = offset;
    return r;
  }

  /** A line of a file: origin {@code name:line}, formatted when asked for. */
  public static RawRecord fromLine(byte[] value, String name, long line) {
    RawRecord r = new RawRecord(null, value, RecordHeaders.EMPTY, null);
    r.originName = name;
    r.originIndex = line;
    return r;
  }

  /** Where the record came from: {@code topic-partition@offset}, {@code name:line}, or null. */
  public String origin() {
    if (originText == null && originName != null) {
      originText =
          originPartition >= 0
              ? originName + "-" + originPartition + "@" + originIndex
              : originName + ":" + originIndex;
    }
    return originText;
  }

  /** Sets the origin as text. */
  public void origin(String text) {
    originText = text;
    originName = null;
    originPartition = -1;
  }

  /** Copies {@code from}'s origin, unformatted if it is still so. */
  void copyOrigin(RawRecord from) {
    originText = from.originText;
    originName = from.originName;
    originPartition = from.originPartition;
    originIndex = from.originIndex;
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
        && Objects.equals(origin(), r.origin());
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(key), Arrays.hashCode(value), headers, origin());
  }

  @Override
  public String toString() {
    return "RawRecord{origin="
        + origin()
        + ", valueBytes="
        + (value == null ? -1 : value.length)
        + "}";
  }
}
