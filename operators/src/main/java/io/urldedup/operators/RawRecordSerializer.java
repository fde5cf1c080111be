package io.urldedup.operators;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/** Format v1: bytes key, bytes value, headers, string origin (see {@link RecordIO}). */
public final class RawRecordSerializer extends RecordSerializer<RawRecord> {

  private static final long serialVersionUID = 1L;

  public static final RawRecordSerializer INSTANCE = new RawRecordSerializer();

  @Override
  public RawRecord createInstance() {
    return new RawRecord();
  }

  @Override
  public RawRecord copy(RawRecord from, RawRecord reuse) {
    reuse.key = RecordIO.clone(from.key);
    reuse.value = RecordIO.clone(from.value);
    reuse.headers = from.headers;
    reuse.copyOrigin(from);
    return reuse;
  }

  @Override
  public void serialize(RawRecord r, DataOutputView out) throws IOException {
    RecordIO.writeBytes(r.key, out);
    RecordIO.writeBytes(r.value, out);
    RecordIO.writeHeaders(r.headers, out);
    RecordIO.writeString(r.origin(), out);
  }

  @Override
  public RawRecord deserialize(RawRecord reuse, DataInputView in) throws IOException {
    reuse.key = RecordIO.readBytes(in);
    reuse.value = RecordIO.readBytes(in);
    reuse.headers = RecordIO.readHeaders(in);
    reuse.origin(RecordIO.readString(in));
    return reuse;
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    RecordIO.copyBytes(in, out);
    RecordIO.copyBytes(in, out);
    RecordIO.copyHeaders(in, out);
    RecordIO.copyString(in, out);
  }

  @Override
  public TypeSerializerSnapshot<RawRecord> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Versioned snapshot; public no-arg constructor for restore. */
  public static final class Snapshot extends RecordSerializerSnapshot<RawRecord> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }

  /** Binds {@link RawRecord} to this serializer through {@code @TypeInfo}. */
  public static final class Factory extends RecordTypeInfo.Factory<RawRecord> {
    public Factory() {
      super(RawRecord.class, INSTANCE);
    }
  }
}
