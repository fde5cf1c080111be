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
 * Pins the current format of each record serializer and its snapshot to small golden files, and
 * checks that earlier formats' files still restore. A failing comparison means the wire or state
 * format changed: bump the snapshot version instead. To write the current files anew (only with a
 * version bump): {@code -Durldedup.golden.write=true}.
 */
class RecordFormatGoldenTest {

  private static final Path DIR = Paths.get("src/test/resources/golden");

  @Test
  void rawRecordFormat() throws Exception {
    check("raw-record-v1", RawRecordSerializer.INSTANCE, TestRecords.raw());
  }

  @Test
  void urlRecordFormat() throws Exception {
    check("url-record-v2", UrlRecordSerializer.INSTANCE, TestRecords.url());
  }

  /** v1 in-flight data (unaligned checkpoints) restores with the v1 reader, after migration. */
  @Test
  void urlRecordV1StillRestores() throws Exception {
    TypeSerializerSnapshot<UrlRecord> restored = TypeSerializerSnapshot.readVersionedSnapshot(
        new DataInputDeserializer(Files.readAllBytes(DIR.resolve("url-record-v1.snapshot"))),
        RecordFormatGoldenTest.class.getClassLoader());
    TypeSerializer<UrlRecord> v1 = restored.restoreSerializer();
    DataInputDeserializer in = new DataInputDeserializer(Files.readAllBytes(DIR.resolve("url-record-v1.bin")));
    for (UrlRecord r : TestRecords.url()) {
      assertEquals(r, v1.deserialize(in));
    }
    assertEquals(0, in.available());
    assertTrue(UrlRecordSerializer.INSTANCE.snapshotConfiguration().resolveSchemaCompatibility(restored)
        .isCompatibleAfterMigration());
  }

  /** The url rides in the value when it is the value's ASCII text, and only then. */
  @Test
  void urlSentOnceWhenItIsTheValue() throws Exception {
    UrlRecord text = new UrlRecord("https://example.com/a", "https://example.com/a".getBytes(
        java.nio.charset.StandardCharsets.US_ASCII), null, null, 1, 2, 3, false);
    UrlRecord json = new UrlRecord("https://example.com/a", "{\"url\":\"https://example.com/a\"}".getBytes(
        java.nio.charset.StandardCharsets.US_ASCII), null, null, 1, 2, 3, false);
    UrlRecord latin = new UrlRecord("https://\u00e9.example/", "https://\u00e9.example/".getBytes(
        java.nio.charset.StandardCharsets.ISO_8859_1), null, null, 1, 2, 3, false);
    assertEquals(1 + 4 + 21 + 4 + 4 + 20, size(text));
    assertTrue(size(json) > size(text) + 21);
    assertTrue(size(latin) > 1 + 4 + 21 + 4 + 4 + 20, "a non-ASCII value is not Latin-1 decodable as UTF-8");
    for (UrlRecord r : new UrlRecord[] {text, json, latin}) {
      DataOutputSerializer out = new DataOutputSerializer(64);
      UrlRecordSerializer.INSTANCE.serialize(r, out);
      assertEquals(r, UrlRecordSerializer.INSTANCE.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())));
    }
  }

  private static int size(UrlRecord r) throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    UrlRecordSerializer.INSTANCE.serialize(r, out);
    return out.length();
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
