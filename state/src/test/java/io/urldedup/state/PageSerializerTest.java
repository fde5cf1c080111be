package io.urldedup.state;

import org.apache.flink.api.common.typeutils.SerializerTestBase;
import org.apache.flink.api.common.typeutils.TypeSerializer;

class PageSerializerTest extends SerializerTestBase<long[]> {

  @Override
  protected TypeSerializer<long[]> createSerializer() {
    return PageSerializer.INSTANCE;
  }

  @Override
  protected int getLength() {
    return PageStore.PAGE_BYTES;
  }

  @Override
  protected Class<long[]> getTypeClass() {
    return long[].class;
  }

  @Override
  protected long[][] getTestData() {
    return SerializerGoldenTest.pages();
  }
}
