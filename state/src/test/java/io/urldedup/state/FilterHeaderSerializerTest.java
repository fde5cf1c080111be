package io.urldedup.state;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

/** Flink's serializer contract tests (copy, reuse, sequences, snapshot round trip, duplicate). */
class FilterHeaderSerializerTest extends SerializerTestBase<FilterHeader> {

  @Override
  protected TypeSerializer<FilterHeader> createSerializer() {
    return FilterHeaderSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<FilterHeader> getTypeClass() {
    return FilterHeader.class;
  }

  @Override
  protected FilterHeader[] getTestData() {
    return SerializerGoldenTest.headers();
  }
}
