package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.Arrays;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Header names round-trip at every length around the packed limit, ASCII or not; short ones are
 * shared.
 */
class HeaderNamesTest {

  @Test
  void namesRoundTrip() throws Exception {
    String[] names = {
      "",
      "a",
      "line",
      "trace-id",
      "12345678",
      "123456789",
      "content-type-xx",
      "0123456789abcdef",
      "0123456789abcdefg",
      "a-much-longer-header-name-than-sixteen",
      "\u00e9t\u00e9",
      "\ud83d\ude00",
      "\u00e9".repeat(8),
      "\u00e9".repeat(9)
    };
    DataOutputSerializer out = new DataOutputSerializer(64);
    for (String n : names) {
      HeaderNames.write(n, out);
      HeaderNames.write(n, out);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    for (String n : names) {
      String first = HeaderNames.read(in);
      String second = HeaderNames.read(in);
      assertEquals(n, first);
      assertEquals(n, second);
      if (n.getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= 16) {
        assertSame(first, second, "a short name read again is the same String: " + n);
      }
    }
    assertEquals(0, in.available());
  }

  /** Names that collide in the table still read back as themselves. */
  @Test
  void manyNamesShareTheTable() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    for (int i = 0; i < 1000; i++) {
      HeaderNames.write("h" + i, out);
    }
    DataInputDeserializer in = new DataInputDeserializer(out.getCopyOfBuffer());
    for (int i = 0; i < 1000; i++) {
      assertEquals("h" + i, HeaderNames.read(in));
    }
  }

  @Test
  void copyIsByteExact() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    HeaderNames.write("trace", out);
    HeaderNames.write("\u00e9".repeat(20), out);
    byte[] written = out.getCopyOfBuffer();
    DataInputDeserializer in = new DataInputDeserializer(written);
    DataOutputSerializer copy = new DataOutputSerializer(64);
    HeaderNames.copy(in, copy);
    HeaderNames.copy(in, copy);
    assertEquals(Arrays.toString(written), Arrays.toString(copy.getCopyOfBuffer()));
  }

  @Test
  void anOverlongVarintIsCorrupt() {
    byte[] b = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 1};
    assertThrows(IOException.class, () -> HeaderNames.read(new DataInputDeserializer(b)));
  }
}
