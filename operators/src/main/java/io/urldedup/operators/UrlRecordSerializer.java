package io.urldedup.operators;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Format v1: string url, bytes value, bytes key, headers, int64 h1, int64 h2, int32 shard,
 * boolean force (see {@link RecordIO}).
 */
public final class UrlRecordSerializer extends RecordSerializer<UrlRecord> {

  private static final long serialVersionUID = 1L;

  public static final UrlRecordSerializer INSTANCE = new UrlRecordSerializer();

  @Override
  public UrlRecord createInstance() {
    return new UrlRecord();
  }

  @Override
  public UrlRecord copy(UrlRecord from, UrlRecord reuse) {
    reuse.url = from.url;
    reuse.value = RecordIO.clone(from.value);
    reuse.key = RecordIO.clone(from.key);
    reuse.headers = from.headers;
    reuse.h1 = from.h1;
    reuse.h2 = from.h2;
    reuse.shard = from.shard;
    reuse.force = from.force;
    return reuse;
  }

  @Override
  public void serialize(UrlRecord r, DataOutputView out) throws IOException {
    RecordIO.writeString(r.url, out);
    RecordIO.writeBytes(r.value, out);
    RecordIO.writeBytes(r.key, out);
    RecordIO.writeHeaders(r.headers, out);
    out.writeLong(r.h1);
    out.writeLong(r.h2);
    out.writeInt(r.shard);
    out.writeBoolean(r.force);
  }

  @Override
  public UrlRecord deserialize(UrlRecord reuse, DataInputView in) throws IOException {
    reuse.url = RecordIO.readString(in);
    reuse.value = RecordIO.readBytes(in);
    reuse.key = RecordIO.readBytes(in);
    reuse.headers = RecordIO.readHeaders(in);
    reuse.h1 = in.readLong();
    reuse.h2 = in.readLong();
    reuse.shard = in.readInt();
    reuse.force = in.readBoolean();
    return reuse;
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    RecordIO.copyString(in, out);
    RecordIO.copyBytes(in, out);
    RecordIO.copyBytes(in, out);
    RecordIO.copyHeaders(in, out);
    out.write(in, 8 + 8 + 4 + 1);
  }

  @Override
  public TypeSerializerSnapshot<UrlRecord> snapshotConfiguration() {
    return new Snapshot();
  }

  /** Versioned snapshot; public no-arg constructor for restore. */
  public static final class Snapshot extends RecordSerializerSnapshot<UrlRecord> {
    public Snapshot() {
      super(() -> INSTANCE);
    }
  }

  /** Binds {@link UrlRecord} to this serializer through {@code @TypeInfo}. */
  public static final class Factory extends RecordTypeInfo.Factory<UrlRecord> {
    public Factory() {
      super(UrlRecord.class, INSTANCE);
    }
  }
}
