package io.urldedup.operators;

import java.io.IOException;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of a parameterless record serializer. The snapshot version is the record format version.
 * A later format raises its serializer's current version and keeps a serializer for each earlier
 * one: a restored older snapshot restores the serializer that reads its bytes and answers {@code
 * compatibleAfterMigration}.
 */
abstract class RecordSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {

  /** The format version of serializers that have only ever had one. */
  static final int FIRST_VERSION = 1;

  private final int currentVersion;
  private final IntFunction<TypeSerializer<T>> byVersion;
  private int readVersion;

  /** A serializer whose only format is {@link #FIRST_VERSION}. */
  RecordSerializerSnapshot(Supplier<TypeSerializer<T>> factory) {
    this(FIRST_VERSION, v -> v == FIRST_VERSION ? factory.get() : null);
  }

  /**
   * @param byVersion the serializer reading format {@code v}, or null for a version this build does
   *     not read
   */
  RecordSerializerSnapshot(int currentVersion, IntFunction<TypeSerializer<T>> byVersion) {
    this.currentVersion = currentVersion;
    this.byVersion = byVersion;
    this.readVersion = currentVersion;
  }

  @Override
  public int getCurrentVersion() {
    return currentVersion;
  }

  @Override
  public void writeSnapshot(DataOutputView out) {}

  @Override
  public void readSnapshot(int version, DataInputView in, ClassLoader cl) throws IOException {
    if (byVersion.apply(version) == null) {
      throw new IOException(
          getClass().getName()
              + ": unknown record format version "
              + version
              + " (this build writes version "
              + currentVersion
              + ")");
    }
    readVersion = version;
  }

  @Override
  public TypeSerializer<T> restoreSerializer() {
    return byVersion.apply(readVersion);
  }

  @Override
  public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
      TypeSerializerSnapshot<T> oldSnapshot) {
    if (oldSnapshot == null || oldSnapshot.getClass() != getClass()) {
      return TypeSerializerSchemaCompatibility.incompatible();
    }
    int old = ((RecordSerializerSnapshot<T>) oldSnapshot).readVersion;
    if (old == currentVersion) {
      return TypeSerializerSchemaCompatibility.compatibleAsIs();
    }
    return byVersion.apply(old) != null
        ? TypeSerializerSchemaCompatibility.compatibleAfterMigration()
        : TypeSerializerSchemaCompatibility.incompatible();
  }
}
