package io.urldedup.operators;

import java.lang.reflect.Type;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInfoFactory;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Type information for a record type with its own serializer: keeps Kryo and POJO analysis out. */
final class RecordTypeInfo<T> extends TypeInformation<T> {

  private static final long serialVersionUID = 1L;

  private final Class<T> type;
  private final TypeSerializer<T> serializer;

  RecordTypeInfo(Class<T> type, TypeSerializer<T> serializer) {
    this.type = type;
    this.serializer = serializer;
  }

  @Override
  public boolean isBasicType() {
    return false;
  }

  @Override
  public boolean isTupleType() {
    return false;
  }

  @Override
  public int getArity() {
    return 1;
  }

  @Override
  public int getTotalFields() {
    return 1;
  }

  @Override
  public Class<T> getTypeClass() {
    return type;
  }

  @Override
  public boolean isKeyType() {
    return false;
  }

  @Override
  public TypeSerializer<T> createSerializer(SerializerConfig config) {
    return serializer.duplicate();
  }

  @Override
  public String toString() {
    return type.getSimpleName();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RecordTypeInfo && ((RecordTypeInfo<?>) o).type == type;
  }

  @Override
  public int hashCode() {
    return type.hashCode();
  }

  @Override
  public boolean canEqual(Object o) {
    return o instanceof RecordTypeInfo;
  }

  /**
   * Binds a record type to its serializer through {@code @TypeInfo}; each serializer nests a public
   * no-arg subclass, which is what the annotation names and Flink instantiates.
   */
  abstract static class Factory<T> extends TypeInfoFactory<T> {

    private final Class<T> type;
    private final TypeSerializer<T> serializer;

    Factory(Class<T> type, TypeSerializer<T> serializer) {
      this.type = type;
      this.serializer = serializer;
    }

    @Override
    public final TypeInformation<T> createTypeInfo(
        Type t, Map<String, TypeInformation<?>> genericParameters) {
      return new RecordTypeInfo<>(type, serializer);
    }
  }
}
