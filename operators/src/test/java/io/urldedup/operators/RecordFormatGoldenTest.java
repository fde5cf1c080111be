package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * Pins format v1 of the record serializers and their snapshots to small golden files. A failing
 * comparison means the wire or state format changed: bump the snapshot version instead. To write
 * the files anew (only with a version bump): {@code -Durldedup.golden.write=true}.
 */
class RecordFormatGoldenTest {

  private static final Path DIR = Paths.get("src/test/resources/golden");

  @Test
  void rawRecordFormat() throws Exception {
    check("raw-record-v1", RawRecordSerializer.INSTANCE, TestRecords.raw());
  }

  @Test
  void urlRecordFormat() throws Exception {
    check("url-record-v1", UrlRecordSerializer.INSTANCE, TestRecords.url());
  }

  @Test
  void deadLetterFormat() throws Exception {
    check("dead-letter-v1", DeadLetterSerializer.INSTANCE, TestRecords.dead());
  }

  @Test
  void typeInformationUsesOwnSerializers() {
    SerializerConfigImpl noGeneric = new SerializerConfigImpl();
    noGeneric.setGenericTypes(false);
    assertInstanceOf(RawRecordSerializer.class,
        TypeInformation.of(RawRecord.class).createSerializer(noGeneric));
    assertInstanceOf(UrlRecordSerializer.class,
        TypeInformation.of(UrlRecord.class).createSerializer(noGeneric));
    assertInstanceOf(DeadLetterSerializer.class,
        TypeInformation.of(DeadLetter.class).createSerializer(noGeneric));
  }

  private static <T> void check(String name, TypeSerializer<T> s, T[] records) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(256);
    for (T r : records) {
      s.serialize(r, out);
    }
    byte[] data = out.getCopyOfBuffer();
    out.clear();
    TypeSerializerSnapshot.writeVersionedSnapshot(out, s.snapshotConfiguration());
    byte[] snap = out.getCopyOfBuffer();

    if (Boolean.getBoolean("urldedup.golden.write")) {
      Files.createDirectories(DIR);
      Files.write(DIR.resolve(name + ".bin"), data);
      Files.write(DIR.resolve(name + ".snapshot"), snap);
    }
    byte[] goldenData = Files.readAllBytes(DIR.resolve(name + ".bin"));
    byte[] goldenSnap = Files.readAllBytes(DIR.resolve(name + ".snapshot"));
    assertArrayEquals(goldenData, data, name + ": record bytes changed");
    assertArrayEquals(goldenSnap, snap, name + ": snapshot bytes changed");

    DataInputDeserializer in = new DataInputDeserializer(goldenData);
    for (T r : records) {
      assertEquals(r, s.deserialize(in));
    }
    assertEquals(0, in.available());

    TypeSerializerSnapshot<T> restored = TypeSerializerSnapshot.readVersionedSnapshot(
        new DataInputDeserializer(goldenSnap), RecordFormatGoldenTest.class.getClassLoader());
    assertEquals(s, restored.restoreSerializer());
    assertTrue(s.snapshotConfiguration().resolveSchemaCompatibility(restored).isCompatibleAsIs());
  }
}
