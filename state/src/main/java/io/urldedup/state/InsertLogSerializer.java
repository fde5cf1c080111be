package io.urldedup.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for one chunk of a shard's {@link InsertLog} in keyed {@code MapState}. Chunk
 * format 1:
 *
 * <pre>
 * u8 chunk format (1), u32 n (words, even), n x u64 words (big-endian, DataOutputView)
 * </pre>
 *
 * Each chunk carries its format, so a later build can read chunks of every format it knows.
 * Stateless.
 */
public final class InsertLogSerializer extends TypeSerializer<InsertLog> {

  private static final long serialVersionUID = 1L;

  /** The chunk format this build writes (and the newest it reads). */
  public static final int CHUNK_FORMAT = 1;

  public static final InsertLogSerializer INSTANCE = new InsertLogSerializer();

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<InsertLog> duplicate() {
    return this;
  }

  @Override
  public InsertLog createInstance() {
    return new InsertLog(0);
  }

  @Override
  public InsertLog copy(InsertLog from) {
    return from.copy();
  }

  @Override
  public InsertLog copy(InsertLog from, InsertLog reuse) {
    return from.copy();
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(InsertLog log, DataOutputView target) throws IOException {
    target.writeByte(CHUNK_FORMAT);
    int n = log.words();
    target.writeInt(n);
    for (int i = 0; i < n; i++) {
      target.writeLong(log.word(i));
    }
  }

  @Override
  public InsertLog deserialize(DataInputView source) throws IOException {
    int format = source.readUnsignedByte();
    if (format < 1 || format > CHUNK_FORMAT) {
      throw new IOException(
          "insert log chunk format "
              + format
              + " is not readable by this build (reads 1.."
              + CHUNK_FORMAT
              + ")");
    }
    int n = source.readInt();
    if (n < 0 || (n & 1) != 0) {
      throw new IOException("corrupt insert log chunk: " + n + " words");
    }
    long[] words = new long[n];
    for (int i = 0; i < n; i++) {
      words[i] = source.readLong();
    }
    return InsertLog.of(words, n);
  }

  @Override
  public InsertLog deserialize(InsertLog reuse, DataInputView source) throws IOException {
    return deserialize(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    serialize(deserialize(source), target);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof InsertLogSerializer;
  }

  @Override
  public int hashCode() {
    return InsertLogSerializer.class.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<InsertLog> snapshotConfiguration() {
    return new InsertLogSerializerSnapshot();
  }

  private Object readResolve() {
    return INSTANCE;
  }
}
