package io.urldedup.operators;

import java.util.Arrays;
import java.util.Objects;
import org.apache.flink.api.common.typeinfo.TypeInfo;

/** A rejected input record: its original bytes, key, headers and origin, with why. */
@TypeInfo(DeadLetterSerializer.Factory.class)
public final class DeadLetter {

  /** The original input value, byte-exact (may be null). */
  public byte[] value;

  /** The original input key (may be null). */
  public byte[] key;

  public RecordHeaders headers = RecordHeaders.EMPTY;
  public RejectReason reason;

  /** What exactly was wrong, for a human. */
  public String detail;

  public String origin;

  public DeadLetter() {}

  public DeadLetter(
      byte[] value,
      byte[] key,
      RecordHeaders headers,
      RejectReason reason,
      String detail,
      String origin) {
    this.value = value;
    this.key = key;
    this.headers = headers == null ? RecordHeaders.EMPTY : headers;
    this.reason = reason;
    this.detail = detail;
    this.origin = origin;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof DeadLetter)) {
      return false;
    }
    DeadLetter d = (DeadLetter) o;
    return Arrays.equals(value, d.value)
        && Arrays.equals(key, d.key)
        && Objects.equals(headers, d.headers)
        && reason == d.reason
        && Objects.equals(detail, d.detail)
        && Objects.equals(origin, d.origin);
  }

  @Override
  public int hashCode() {
    return Objects.hash(Arrays.hashCode(value), reason, detail, origin);
  }

  @Override
  public String toString() {
    return "DeadLetter{reason=" + reason + ", detail=" + detail + ", origin=" + origin + "}";
  }
}
