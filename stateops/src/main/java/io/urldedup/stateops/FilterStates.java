package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterHeaderSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.state.api.OperatorIdentifier;

/**
 * The dedup operator as the State Processor API addresses it (its uid; its states are {@link
 * DedupOperator#headerDescriptor()} and {@link DedupOperator#pagesDescriptor()}), and headers as
 * bytes for the records that carry them between tasks.
 */
final class FilterStates {

  static final OperatorIdentifier OPERATOR = OperatorIdentifier.forUid(DedupOperator.UID);

  private FilterStates() {}

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
