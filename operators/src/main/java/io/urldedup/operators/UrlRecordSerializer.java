package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Format v2: int8 flags ({@link #FORCE}, {@link #URL_IS_VALUE}), string url unless {@link
 * #URL_IS_VALUE}, bytes value, bytes key, headers, int64 h1, int64 h2, int32 shard (see {@link
 * RecordIO}).
 *
 * <p>{@link #URL_IS_VALUE}: the url is the ASCII text of the value bytes, as for every text-format
 * record (the output line is the canonical URL). The url then crosses the network once, as the
 * value, and is rebuilt from it on the way in with a Latin-1 array copy. In v1 it went as a
 * {@code StringValue} (a varint per char, written and read one char at a time through a thread
 * local buffer): 20% of the source thread's and a third of the keyed thread's CPU outside the
 * decoder (JFR, docs/benchmarks-job.md). Records only cross the network and sit in unaligned
 * checkpoints' in-flight data, never in keyed state; {@link V1} still reads format v1.
 */
public final class UrlRecordSerializer extends RecordSerializer<UrlRecord> {

  private static final long serialVersionUID = 1L;

  public static final UrlRecordSerializer INSTANCE = new UrlRecordSerializer();

  static final int VERSION = 2;
  static final int FORCE = 1;
  static final int URL_IS_VALUE = 2;

  @Override
  public UrlRecord createInstance() {
    return new UrlRecord();
  }

  @Override
  public UrlRecord copy(UrlRecord from, UrlRecord reuse) {
    return copyRecord(from, reuse);
  }

  @Override
  public void serialize(UrlRecord r, DataOutputView out) throws IOException {
    boolean urlIsValue = isAsciiOf(r.url, r.value);
    out.writeByte((r.force ? FORCE : 0) | (urlIsValue ? URL_IS_VALUE : 0));
    if (!urlIsValue) {
      RecordIO.writeString(r.url, out);
    }
    RecordIO.writeBytes(r.value, out);
    RecordIO.writeBytes(r.key, out);
    RecordIO.writeHeaders(r.headers, out);
    out.writeLong(r.h1);
    out.writeLong(r.h2);
    out.writeInt(r.shard);
  }

  @Override
  public UrlRecord deserialize(UrlRecord reuse, DataInputView in) throws IOException {
    int flags = in.readUnsignedByte();
    if ((flags & ~(FORCE | URL_IS_VALUE)) != 0) {
      throw new IOException("corrupt record: flags " + flags);
    }
    String url = (flags & URL_IS_VALUE) != 0 ? null : RecordIO.readString(in);
    reuse.value = RecordIO.readBytes(in);
    reuse.url = (flags & URL_IS_VALUE) != 0 ? new String(reuse.value, ISO_8859_1) : url;
    reuse.key = RecordIO.readBytes(in);
    reuse.headers = RecordIO.readHeaders(in);
    reuse.h1 = in.readLong();
    reuse.h2 = in.readLong();
    reuse.shard = in.readInt();
    reuse.force = (flags & FORCE) != 0;
    return reuse;
  }

  @Override
  public void copy(DataInputView in, DataOutputView out) throws IOException {
    int flags = in.readUnsignedByte();
    out.writeByte(flags);
    if ((flags & URL_IS_VALUE) == 0) {
      RecordIO.copyString(in, out);
    }
    RecordIO.copyBytes(in, out);
    RecordIO.copyBytes(in, out);
    RecordIO.copyHeaders(in, out);
    out.write(in, 8 + 8 + 4);
  }

  /** Whether {@code url} is exactly the ASCII bytes {@code value} (then Latin-1 decoding rebuilds it). */
  static boolean isAsciiOf(String url, byte[] value) {
    if (url == null || value == null || url.length() != value.length) {
      return false;
    }
    for (int i = 0; i < value.length; i++) {
      byte b = value[i];
      if (b < 0 || url.charAt(i) != b) {
        return false;
      }
    }
    return true;
  }

  static UrlRecord copyRecord(UrlRecord from, UrlRecord reuse) {
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
  public TypeSerializerSnapshot<UrlRecord> snapshotConfiguration() {
    return new Snapshot();
  }

  /** The serializer reading format {@code version}, or null. */
  static TypeSerializer<UrlRecord> forVersion(int version) {
    switch (version) {
      case VERSION:
        return INSTANCE;
      case RecordSerializerSnapshot.FIRST_VERSION:
        return V1.INSTANCE;
      default:
        return null;
    }
  }

  /** Versioned snapshot; public no-arg constructor for restore. */
  public static final class Snapshot extends RecordSerializerSnapshot<UrlRecord> {
    public Snapshot() {
      this(VERSION);
    }

    /** The snapshot a serializer of format {@code version} writes. */
    Snapshot(int version) {
      super(version, UrlRecordSerializer::forVersion);
    }
  }

  /** Binds {@link UrlRecord} to this serializer through {@code @TypeInfo}. */
  public static final class Factory extends RecordTypeInfo.Factory<UrlRecord> {
    public Factory() {
      super(UrlRecord.class, INSTANCE);
    }
  }

  /**
   * Format v1, restored from v1 snapshots only: string url, bytes value, bytes key, headers, int64
   * h1, int64 h2, int32 shard, boolean force.
   */
  static final class V1 extends RecordSerializer<UrlRecord> {

    private static final long serialVersionUID = 1L;

    static final V1 INSTANCE = new V1();

    @Override
    public UrlRecord createInstance() {
      return new UrlRecord();
    }

    @Override
    public UrlRecord copy(UrlRecord from, UrlRecord reuse) {
      return copyRecord(from, reuse);
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
      return new Snapshot(RecordSerializerSnapshot.FIRST_VERSION);
    }
  }
}
