package io.urldedup.operators;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

class DeadLetterSerializerTest extends SerializerTestBase<DeadLetter> {

  @Override
  protected TypeSerializer<DeadLetter> createSerializer() {
    return new DeadLetterSerializer();
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<DeadLetter> getTypeClass() {
    return DeadLetter.class;
  }

  @Override
  protected DeadLetter[] getTestData() {
    return TestRecords.dead();
  }
}
