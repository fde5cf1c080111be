package io.urldedup.state;

import java.io.IOException;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Flink serializer for {@link FilterHeader} in keyed {@code ValueState}: the
 * {@link FilterHeaderCodec} layout (explicit little-endian, version-prefixed records). Stateless.
 */
public final class FilterHeaderSerializer extends TypeSerializer<FilterHeader> {

  private static final long serialVersionUID = 1L;

  public static final FilterHeaderSerializer INSTANCE = new FilterHeaderSerializer();

  @Override
  public boolean isImmutableType() {
    return false;
  }

  @Override
  public TypeSerializer<FilterHeader> duplicate() {
    return this;
  }

  /** A minimal empty header (Flink asks for an instance to reuse; it is overwritten on deserialize). */
  @Override
  public FilterHeader createInstance() {
    return new FilterHeader(FilterSpec.Kind.SCALABLE, FilterHeader.FORMAT_VERSION, 0, 0.01, 0, 0, 1, 2, 0.5,
        PageStore.PAGE_BYTES, 0, 0, 0, 0);
  }

  @Override
  public FilterHeader copy(FilterHeader from) {
    return from.copy();
  }

  @Override
  public FilterHeader copy(FilterHeader from, FilterHeader reuse) {
    return from.copy();
  }

  @Override
  public int getLength() {
    return -1;
  }

  @Override
  public void serialize(FilterHeader record, DataOutputView target) throws IOException {
    FilterHeaderCodec.write(record, target);
  }

  @Override
  public FilterHeader deserialize(DataInputView source) throws IOException {
    return FilterHeaderCodec.read(source);
  }

  @Override
  public FilterHeader deserialize(FilterHeader reuse, DataInputView source) throws IOException {
    return FilterHeaderCodec.read(source);
  }

  @Override
  public void copy(DataInputView source, DataOutputView target) throws IOException {
    FilterHeaderCodec.write(FilterHeaderCodec.read(source), target);
  }

  @Override
  public boolean equals(Object obj) {
    return obj instanceof FilterHeaderSerializer;
  }

  @Override
  public int hashCode() {
    return FilterHeaderSerializer.class.hashCode();
  }

  @Override
  public TypeSerializerSnapshot<FilterHeader> snapshotConfiguration() {
    return new FilterHeaderSerializerSnapshot();
  }

  private Object readResolve() {
    return INSTANCE;
  }
}
