package io.urldedup.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of {@link FilterHeaderSerializer}. Version 1; it writes the newest header layout version
 * the serializer declared ({@link FilterHeaderSerializer#layoutVersion}: the newest its job's
 * records may have). Records carry their own layout version and the serializer reads every older
 * one, so a snapshot of the same or an older version resolves as compatible as is; a snapshot
 * declaring a newer one is incompatible (this build cannot read its records). Version {@link
 * FilterHeaderSerializer#LOGGED_LAYOUT_VERSION} declares state with insert logs.
 */
public final class FilterHeaderSerializerSnapshot implements TypeSerializerSnapshot<FilterHeader> {

  static final int VERSION = 1;

  private int layoutVersion = FilterHeader.FORMAT_VERSION;

  public FilterHeaderSerializerSnapshot() {}

  FilterHeaderSerializerSnapshot(int layoutVersion) {
    this.layoutVersion = layoutVersion;
  }

  @Override
  public int getCurrentVersion() {
    return VERSION;
  }

  @Override
  public void writeSnapshot(DataOutputView out) throws IOException {
    out.writeInt(layoutVersion);
  }

  @Override
  public void readSnapshot(int readVersion, DataInputView in, ClassLoader userCodeClassLoader)
      throws IOException {
    if (readVersion < 1 || readVersion > VERSION) {
      throw new IOException(
          "FilterHeaderSerializerSnapshot version "
              + readVersion
              + " is newer than this build ("
              + VERSION
              + ")");
    }
    layoutVersion = in.readInt();
  }

  /** The header layout version the snapshotted serializer wrote. */
  public int layoutVersion() {
    return layoutVersion;
  }

  @Override
  public TypeSerializer<FilterHeader> restoreSerializer() {
    return layoutVersion >= 1 && layoutVersion <= FilterHeaderSerializer.LOGGED_LAYOUT_VERSION
        ? new FilterHeaderSerializer(layoutVersion)
        : FilterHeaderSerializer.INSTANCE;
  }

  @Override
  public TypeSerializerSchemaCompatibility<FilterHeader> resolveSchemaCompatibility(
      TypeSerializerSnapshot<FilterHeader> oldSerializerSnapshot) {
    if (!(oldSerializerSnapshot instanceof FilterHeaderSerializerSnapshot old)) {
      return TypeSerializerSchemaCompatibility.incompatible();
    }
    return old.layoutVersion <= FilterHeaderSerializer.LOGGED_LAYOUT_VERSION
        ? TypeSerializerSchemaCompatibility.compatibleAsIs()
        : TypeSerializerSchemaCompatibility.incompatible();
  }
}
