package io.urldedup.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of {@link InsertLogSerializer}. Version 1; it records the newest chunk format the writer
 * used: one this build reads resolves compatible as is, a newer one is incompatible.
 */
public final class InsertLogSerializerSnapshot implements TypeSerializerSnapshot<InsertLog> {

  static final int VERSION = 1;

  private int chunkFormat = InsertLogSerializer.CHUNK_FORMAT;

  public InsertLogSerializerSnapshot() {}

  @Override
  public int getCurrentVersion() {
    return VERSION;
  }

  @Override
  public void writeSnapshot(DataOutputView out) throws IOException {
    out.writeInt(chunkFormat);
  }

  @Override
  public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
      throws IOException {
    if (readVersion < 1 || readVersion > VERSION) {
      throw new IOException(
          "InsertLogSerializerSnapshot version "
              + readVersion
              + " is newer than this build ("
              + VERSION
              + ")");
    }
    chunkFormat = in.readInt();
  }

  public int chunkFormat() {
    return chunkFormat;
  }

  @Override
  public TypeSerializer<InsertLog> restoreSerializer() {
    return InsertLogSerializer.INSTANCE;
  }

  @Override
  public TypeSerializerSchemaCompatibility<InsertLog> resolveSchemaCompatibility(
      TypeSerializerSnapshot<InsertLog> oldSerializerSnapshot) {
    if (oldSerializerSnapshot instanceof InsertLogSerializerSnapshot old
        && old.chunkFormat >= 1
        && old.chunkFormat <= InsertLogSerializer.CHUNK_FORMAT) {
      return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
    return TypeSerializerSchemaCompatibility.incompatible();
  }
}
