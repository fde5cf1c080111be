package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** A record's origin kept as parts reads, compares and serializes as the text it stands for. */
class RawRecordTest {

  private static byte[] bytes(RawRecord r) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    RawRecordSerializer.INSTANCE.serialize(r, out);
    return out.getCopyOfBuffer();
  }

  @Test
  void aKafkaOriginIsTopicPartitionAtOffset() throws Exception {
    byte[] v = "https://example.com/a".getBytes(UTF_8);
    RawRecord lazy = RawRecord.fromKafka(null, v, RecordHeaders.EMPTY, "urls", 3, 9_000_000_000L);
    RawRecord text = new RawRecord(null, v, RecordHeaders.EMPTY, "urls-3@9000000000");
    assertEquals("urls-3@9000000000", lazy.origin());
    assertEquals(text, lazy);
    assertEquals(text.hashCode(), lazy.hashCode());
    assertArrayEquals(bytes(text), bytes(lazy), "format v1 unchanged");
  }

  @Test
  void aLineOriginIsNameColonLine() throws Exception {
    byte[] v = "x".getBytes(UTF_8);
    RawRecord lazy = RawRecord.fromLine(v, "in.txt", 7);
    assertEquals("in.txt:7", lazy.origin());
    assertArrayEquals(bytes(new RawRecord(null, v, RecordHeaders.EMPTY, "in.txt:7")), bytes(lazy));
  }

  @Test
  void copiesKeepTheOriginAndATextOriginReplacesParts() throws Exception {
    RawRecord lazy = RawRecord.fromKafka(null, null, null, "t", 0, 5);
    RawRecord copy = RawRecordSerializer.INSTANCE.copy(lazy, new RawRecord());
    assertEquals("t-0@5", copy.origin());
    RawRecord read =
        RawRecordSerializer.INSTANCE.deserialize(
            new RawRecord(), new DataInputDeserializer(bytes(lazy)));
    assertEquals("t-0@5", read.origin());
    copy.origin("corpus:1");
    assertEquals("corpus:1", copy.origin());
  }
}
