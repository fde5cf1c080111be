package io.urldedup.operators;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton;
import org.apache.flink.core.memory.DataInputView;

/**
 * The plumbing every record serializer shares: mutable, variable length, and the non-reuse {@code
 * copy}/{@code deserialize} routed through the reuse variants, so each subclass spells out its
 * field layout once per direction (serialize, deserialize, stream copy, object copy).
 */
abstract class RecordSerializer<T> extends TypeSerializerSingleton<T> {

  private static final long serialVersionUID = 1L;

  @Override
  public final boolean isImmutableType() {
    return false;
  }

  @Override
  public final int getLength() {
    return -1;
  }

  @Override
  public final T copy(T from) {
    return copy(from, createInstance());
  }

  @Override
  public final T deserialize(DataInputView in) throws IOException {
    return deserialize(createInstance(), in);
  }
}
