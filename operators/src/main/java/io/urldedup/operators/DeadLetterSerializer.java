package io.urldedup.operators;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Format v1: bytes value, bytes key, headers, string reason (enum name, null-capable), string
 * detail, string origin (see {@link RecordIO}). The reason is written by name so that adding
 * reasons never shifts stored ones.
 */
public final class DeadLetterSerializer extends RecordSerializer<DeadLetter> {

  private static final long serialVersionUID = 1L;

  public static final DeadLetterSerializer INSTANCE = new DeadLetterSerializer();

  @Override
  public DeadLetter createInstance() {
    return new DeadLetter();
  }

  @Override
  public DeadLetter copy(DeadLetter from, DeadLetter reuse) {
    reuse.value = RecordIO.clone(from.value);
    reuse.key = RecordIO.clone(from.key);
    reuse.headers = from.headers;
    reuse.reason = from.reason;
    reuse.detail = from.detail;
    reuse.origin = from.origin;
    return reuse;
  }

  @Override
  public void serialize(DeadLetter d, DataOutputView out) throws IOException {
    RecordIO.writeBytes(d.value, out);
    RecordIO.writeBytes(d.key, out);
    RecordIO.writeHeaders(d.headers, out);
    RecordIO.writeString(d.reason == null ? null : d.reason.name(), out);
    RecordIO.writeString(d.detail, out);
    RecordIO.writeString(d.origin, out);
  }

  @Override
  public DeadLetter deserialize(DeadLetter reuse, DataInputView in) throws IOException {
    reuse.value = RecordIO.readBytes(in);
    reuse.key = RecordIO.readBytes(in);
    reuse.headers = RecordIO.readHeaders(in);
    String reason = RecordIO.readString(in);
    try {
      reuse.reason = reason == null ? null : RejectReason.valueOf(reason);
    } catch (IllegalArgumentException e) {
      throw new IOException("dead letter with unknown reject reason " + reason, e);
    }
    reuse.detail = RecordIO.readString(in);
    reuse.origin = RecordIO.readString(in);
    return reuse;
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    RecordIO.copyBytes(in, out);
    RecordIO.copyBytes(in, out);
    RecordIO.copyHeaders(in, out);
    RecordIO.copyString(in, out);
    RecordIO.copyString(in, out);
    RecordIO.copyString(in, out);
  }

  @Override
  public TypeSerializerSnapshot<DeadLetter> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Versioned snapshot; public no-arg constructor for restore. */
  public static final class Snapshot extends RecordSerializerSnapshot<DeadLetter> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }

  /** Binds {@link DeadLetter} to this serializer through {@code @TypeInfo}. */
  public static final class Factory extends RecordTypeInfo.Factory<DeadLetter> {
    public Factory() {
      super(DeadLetter.class, INSTANCE);
    }
  }
}
