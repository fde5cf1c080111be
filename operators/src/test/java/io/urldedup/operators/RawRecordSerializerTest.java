package io.urldedup.operators;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

class RawRecordSerializerTest extends SerializerTestBase<RawRecord> {

  @Override
  protected TypeSerializer<RawRecord> createSerializer() {
    return new RawRecordSerializer();
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<RawRecord> getTypeClass() {
    return RawRecord.class;
  }

  @Override
  protected RawRecord[] getTestData() {
    return TestRecords.raw();
  }
}
