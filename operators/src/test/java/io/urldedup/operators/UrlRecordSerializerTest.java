package io.urldedup.operators;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

class UrlRecordSerializerTest extends SerializerTestBase<UrlRecord> {

  @Override
  protected TypeSerializer<UrlRecord> createSerializer() {
    return new UrlRecordSerializer();
  }

  @Override
  protected int getLength() {
    return -1;
  }

  @Override
  protected Class<UrlRecord> getTypeClass() {
    return UrlRecord.class;
  }

  @Override
  protected UrlRecord[] getTestData() {
    return TestRecords.urlV3();
  }
}
