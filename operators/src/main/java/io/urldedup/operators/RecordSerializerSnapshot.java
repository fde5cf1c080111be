package io.urldedup.operators;

import java.io.IOException;
import java.util.function.Supplier;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Snapshot of a parameterless record serializer. The snapshot version is the record format
 * version: a future format bumps {@link #CURRENT_VERSION} and answers older versions with
 * {@code compatibleAfterMigration} once {@link #restoreSerializer()} can read them.
 */
abstract class RecordSerializerSnapshot<T> implements TypeSerializerSnapshot<T> {

  static final int CURRENT_VERSION = 1;

  private final Supplier<TypeSerializer<T>> factory;
  private int readVersion = CURRENT_VERSION;

  RecordSerializerSnapshot(Supplier<TypeSerializer<T>> factory) {
    this.factory = factory;
  }

  @Override
  public int getCurrentVersion() {
    return CURRENT_VERSION;
  }

  @Override
  public void writeSnapshot(DataOutputView out) {}

  @Override
  public void readSnapshot(int version, DataInputView in, ClassLoader cl) throws IOException {
    if (version != CURRENT_VERSION) {
      throw new IOException(
          getClass().getName() + ": unknown record format version " + version
              + " (this build reads version " + CURRENT_VERSION + ")");
    }
    readVersion = version;
  }

  @Override
  public TypeSerializer<T> restoreSerializer() {
    return factory.get();
  }

  @Override
  public TypeSerializerSchemaCompatibility<T> resolveSchemaCompatibility(
      TypeSerializerSnapshot<T> oldSnapshot) {
    if (oldSnapshot == null || oldSnapshot.getClass() != getClass()) {
      return TypeSerializerSchemaCompatibility.incompatible();
    }
    return ((RecordSerializerSnapshot<T>) oldSnapshot).readVersion == CURRENT_VERSION
        ? TypeSerializerSchemaCompatibility.compatibleAsIs()
        : TypeSerializerSchemaCompatibility.incompatible();
  }
}
