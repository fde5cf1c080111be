package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Format v3: int8 flags, bytes value, the URL, the key, headers (varint count, each name as {@link
 * HeaderNames} writes it and bytes value), int64 h1, int64 h2, int32 shard (see {@link RecordIO}).
 * The URL is nothing more when {@link #URL_IS_VALUE} (it is all of the value: every text-format
 * record), varint offset and varint length into the value when {@link #URL_IN_VALUE} (a JSON value
 * holding the canonical URL verbatim), else bytes (-1: none). The key is varint offset (from the
 * URL's start) and varint length when {@link #KEY_IN_URL} (the host or registrable domain, always a
 * part of the canonical URL for the decoder's records), else bytes (-1: no key). {@link #FORCE} is
 * the force bit.
 *
 * <p>So the URL and the key cross the network once, inside the value, and the reader allocates only
 * the record and its value: v1 sent the url as a {@code StringValue} (a varint per char, through a
 * thread-local buffer: 20% of the source thread's and a third of the keyed thread's CPU outside the
 * decoder, JFR in docs/benchmarks-job.md), v2 left it out only for text records and still built a
 * String and copied the key on the way in. Records only cross the network and sit in unaligned
 * checkpoints' in-flight data, never in keyed state; {@link V2} and {@link V1} still read the
 * earlier formats.
 */
public final class UrlRecordSerializer extends RecordSerializer<UrlRecord> {

  private static final long serialVersionUID = 1L;

  public static final UrlRecordSerializer INSTANCE = new UrlRecordSerializer();

  static final int VERSION = 3;
  static final int FORCE = 1;
  static final int URL_IS_VALUE = 2;
  static final int URL_IN_VALUE = 4;
  static final int KEY_IN_URL = 8;

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
    int flags = r.force ? FORCE : 0;
    if (r.urlInValue()) {
      flags |= r.urlOffset() == 0 && r.urlLength() == r.value.length ? URL_IS_VALUE : URL_IN_VALUE;
    }
    boolean keyInUrl = r.keyInUrl();
    if (keyInUrl) {
      flags |= KEY_IN_URL;
    }
    out.writeByte(flags);
    RecordIO.writeBytes(r.value, out);
    if ((flags & URL_IN_VALUE) != 0) {
      RecordIO.writeVarInt(r.urlOffset(), out);
      RecordIO.writeVarInt(r.urlLength(), out);
    } else if ((flags & URL_IS_VALUE) == 0) {
      writeRange(r.urlBytes(), r.urlOffset(), r.urlLength(), out);
    }
    if (keyInUrl) {
      RecordIO.writeVarInt(r.keyOffset() - r.urlOffset(), out);
      RecordIO.writeVarInt(r.keyLength(), out);
    } else {
      writeRange(r.keyBytes(), r.keyOffset(), r.keyLength(), out);
    }
    RecordIO.writeHeadersV3(r.headers, out);
    out.writeLong(r.h1);
    out.writeLong(r.h2);
    out.writeInt(r.shard);
  }

  @Override
  public UrlRecord deserialize(UrlRecord reuse, DataInputView in) throws IOException {
    int flags = in.readUnsignedByte();
    if ((flags & ~(FORCE | URL_IS_VALUE | URL_IN_VALUE | KEY_IN_URL)) != 0
        || (flags & (URL_IS_VALUE | URL_IN_VALUE)) == (URL_IS_VALUE | URL_IN_VALUE)) {
      throw new IOException("corrupt record: flags " + flags);
    }
    byte[] value = RecordIO.readBytes(in);
    reuse.value = value;
    if ((flags & (URL_IS_VALUE | URL_IN_VALUE)) != 0) {
      if (value == null) {
        throw new IOException("corrupt record: url in a null value");
      }
      if ((flags & URL_IS_VALUE) != 0) {
        reuse.setUrl(value, 0, value.length);
      } else {
        int off = RecordIO.readVarInt(in);
        int len = RecordIO.readVarInt(in);
        checkRange(value.length, off, len, "url");
        reuse.setUrl(value, off, len);
      }
    } else {
      byte[] u = RecordIO.readBytes(in);
      reuse.setUrl(u, 0, u == null ? 0 : u.length);
    }
    if ((flags & KEY_IN_URL) != 0) {
      byte[] u = reuse.urlBytes();
      if (u == null) {
        throw new IOException("corrupt record: key in a null url");
      }
      int off = RecordIO.readVarInt(in);
      int len = RecordIO.readVarInt(in);
      checkRange(reuse.urlLength(), off, len, "key");
      reuse.setKey(u, reuse.urlOffset() + off, len);
    } else {
      byte[] k = RecordIO.readBytes(in);
      reuse.setKey(k, 0, k == null ? 0 : k.length);
    }
    reuse.headers = RecordIO.readHeadersV3(in);
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
    RecordIO.copyBytes(in, out);
    if ((flags & URL_IN_VALUE) != 0) {
      RecordIO.copyVarInt(in, out);
      RecordIO.copyVarInt(in, out);
    } else if ((flags & URL_IS_VALUE) == 0) {
      RecordIO.copyBytes(in, out);
    }
    if ((flags & KEY_IN_URL) != 0) {
      RecordIO.copyVarInt(in, out);
      RecordIO.copyVarInt(in, out);
    } else {
      RecordIO.copyBytes(in, out);
    }
    RecordIO.copyHeadersV3(in, out);
    out.write(in, 8 + 8 + 4);
  }

  private static void writeRange(byte[] b, int off, int len, DataOutputView out)
      throws IOException {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(len);
      out.write(b, off, len);
    }
  }

  private static void checkRange(int size, int off, int len, String what) throws IOException {
    if (off < 0 || len < 0 || off > size - len) {
      throw new IOException(
          "corrupt record: " + what + " range " + off + "+" + len + " outside " + size + " bytes");
    }
  }

  /** The URL's UTF-8 bytes as an array of their own, or null. */
  private static byte[] urlCopy(UrlRecord r) {
    byte[] u = r.urlBytes();
    return u == null ? null : Arrays.copyOfRange(u, r.urlOffset(), r.urlOffset() + r.urlLength());
  }

  /** A deep copy: the value, and the URL and key where they are not ranges of it. */
  static UrlRecord copyRecord(UrlRecord from, UrlRecord reuse) {
    byte[] value = RecordIO.clone(from.value);
    reuse.value = value;
    if (from.urlInValue()) {
      reuse.setUrl(value, from.urlOffset(), from.urlLength());
    } else {
      byte[] u = urlCopy(from);
      reuse.setUrl(u, 0, u == null ? 0 : u.length);
    }
    if (from.keyInUrl()) {
      reuse.setKey(
          reuse.urlBytes(),
          reuse.urlOffset() + from.keyOffset() - from.urlOffset(),
          from.keyLength());
    } else {
      byte[] k = from.key();
      reuse.setKey(k == null ? null : k.clone(), 0, from.keyLength());
    }
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
      case 2:
        return V2.INSTANCE;
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
      RecordIO.writeString(r.url(), out);
      RecordIO.writeBytes(r.value, out);
      RecordIO.writeBytes(r.key(), out);
      RecordIO.writeHeaders(r.headers, out);
      out.writeLong(r.h1);
      out.writeLong(r.h2);
      out.writeInt(r.shard);
      out.writeBoolean(r.force);
    }

    @Override
    public UrlRecord deserialize(UrlRecord reuse, DataInputView in) throws IOException {
      setUrl(reuse, RecordIO.readString(in));
      reuse.value = RecordIO.readBytes(in);
      setKey(reuse, RecordIO.readBytes(in));
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

  /**
   * Format v2, restored from v2 snapshots only: int8 flags ({@link #FORCE}, {@link #URL_IS_VALUE}:
   * the url is the ASCII text of the value and not sent), string url unless {@link #URL_IS_VALUE},
   * bytes value, bytes key, headers, int64 h1, int64 h2, int32 shard.
   */
  static final class V2 extends RecordSerializer<UrlRecord> {

    private static final long serialVersionUID = 1L;

    static final V2 INSTANCE = new V2();

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
      boolean urlIsValue = isAsciiValue(r);
      out.writeByte((r.force ? FORCE : 0) | (urlIsValue ? URL_IS_VALUE : 0));
      if (!urlIsValue) {
        RecordIO.writeString(r.url(), out);
      }
      RecordIO.writeBytes(r.value, out);
      RecordIO.writeBytes(r.key(), out);
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
      byte[] value = RecordIO.readBytes(in);
      reuse.value = value;
      if ((flags & URL_IS_VALUE) != 0) {
        if (value == null) {
          throw new IOException("corrupt record: url in a null value");
        }
        reuse.setUrl(value, 0, value.length); // ASCII: its UTF-8 bytes are the value
      } else {
        setUrl(reuse, url);
      }
      setKey(reuse, RecordIO.readBytes(in));
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

    /** Whether the url is exactly the value's bytes, all ASCII (v2's {@link #URL_IS_VALUE}). */
    private static boolean isAsciiValue(UrlRecord r) {
      byte[] v = r.value;
      byte[] u = r.urlBytes();
      if (u == null
          || v == null
          || r.urlLength() != v.length
          || !Arrays.equals(u, r.urlOffset(), r.urlOffset() + r.urlLength(), v, 0, v.length)) {
        return false;
      }
      for (byte b : v) {
        if (b < 0) {
          return false;
        }
      }
      return true;
    }

    @Override
    public TypeSerializerSnapshot<UrlRecord> snapshotConfiguration() {
      return new Snapshot(2);
    }
  }

  /** Sets a record's url from an earlier format's string (null: none). */
  private static void setUrl(UrlRecord r, String url) {
    byte[] u = url == null ? null : url.getBytes(UTF_8);
    r.setUrl(u, 0, u == null ? 0 : u.length);
  }

  /** Sets a record's key from an earlier format's array (null: none). */
  private static void setKey(UrlRecord r, byte[] key) {
    r.setKey(key, 0, key == null ? 0 : key.length);
  }
}
