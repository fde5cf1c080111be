package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterHeaderSerializer;
import io.urldedup.state.PageSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeutils.base.LongSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.state.api.OperatorIdentifier;

/**
 * The dedup operator's persisted state as the State Processor API addresses it: the operator uid
 * and the two keyed states (names and serializers exactly those of {@link DedupOperator}).
 */
final class FilterStates {

  static final OperatorIdentifier OPERATOR = OperatorIdentifier.forUid(DedupOperator.UID);

  private FilterStates() {}

  static ValueStateDescriptor<FilterHeader> header() {
    return new ValueStateDescriptor<>(DedupOperator.HEADER_STATE, new FilterHeaderSerializer());
  }

  static MapStateDescriptor<Long, long[]> pages() {
    return new MapStateDescriptor<>(DedupOperator.PAGES_STATE, LongSerializer.INSTANCE, new PageSerializer());
  }

  static byte[] encode(FilterHeader h) {
    try {
      DataOutputSerializer out = new DataOutputSerializer(256);
      FilterHeaderSerializer.INSTANCE.serialize(h, out);
      return out.getCopyOfBuffer();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static FilterHeader decode(byte[] bytes) {
    try {
      return FilterHeaderSerializer.INSTANCE.deserialize(new DataInputDeserializer(bytes));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
