package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    check("url-record-v3", UrlRecordSerializer.INSTANCE, TestRecords.urlV3());
  }

  /**
   * v1 and v2 in-flight data (unaligned checkpoints) restore with their readers, after migration;
   * the records read back equal the ones written (URL and key compared as bytes, wherever held).
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2})
  void earlierUrlRecordFormatsStillRestore(int version) throws Exception {
    TypeSerializerSnapshot<UrlRecord> restored =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(
                Files.readAllBytes(DIR.resolve("url-record-v" + version + ".snapshot"))),
            RecordFormatGoldenTest.class.getClassLoader());
    TypeSerializer<UrlRecord> old = restored.restoreSerializer();
    assertEquals(
        version == 1 ? UrlRecordSerializer.V1.class : UrlRecordSerializer.V2.class, old.getClass());
    DataInputDeserializer in =
        new DataInputDeserializer(
            Files.readAllBytes(DIR.resolve("url-record-v" + version + ".bin")));
    for (UrlRecord r : TestRecords.url()) {
      UrlRecord read = old.deserialize(in);
      assertEquals(r, read);
      assertEquals(r.url(), read.url());
      assertArrayEquals(r.key(), read.key());
    }
    assertEquals(0, in.available());
    assertTrue(
        UrlRecordSerializer.INSTANCE
            .snapshotConfiguration()
            .resolveSchemaCompatibility(restored)
            .isCompatibleAfterMigration());
    // and the old serializer still writes what it reads (a migration may copy through it)
    DataOutputSerializer out = new DataOutputSerializer(256);
    for (UrlRecord r : TestRecords.url()) {
      old.serialize(r, out);
    }
    assertArrayEquals(
        Files.readAllBytes(DIR.resolve("url-record-v" + version + ".bin")), out.getCopyOfBuffer());
  }

  /**
   * v3 sends the URL and the key as offsets into what is sent anyway: nothing for a text record's
   * URL (it is the value), two varints for a range (the JSON url, the host key), bytes only when
   * they are not there.
   */
  @Test
  void urlAndKeyTravelAsRanges() throws Exception {
    byte[] textValue = "https://example.com/a".getBytes(UTF_8);
    UrlRecord text =
        new UrlRecord(
            "https://example.com/a",
            textValue,
            "example.com".getBytes(UTF_8),
            null,
            1,
            2,
            3,
            false);
    byte[] jsonValue = "{\"url\":\"https://example.com/a\"}".getBytes(UTF_8);
    UrlRecord json = new UrlRecord("https://example.com/a", jsonValue, null, null, 1, 2, 3, false);
    byte[] latinValue = "https://\u00e9.example/".getBytes(ISO_8859_1);
    UrlRecord apart =
        new UrlRecord(
            "https://\u00e9.example/", latinValue, "k".getBytes(UTF_8), null, 1, 2, 3, false);
    int fixed = 1 + 4 + 1 + 8 + 8 + 4; // flags, value length, header count (varint), h1, h2, shard
    assertEquals(fixed + textValue.length + 2, size(text));
    assertEquals(fixed + jsonValue.length + 2 + 4, size(json));
    assertEquals(
        fixed + latinValue.length + 4 + "https://\u00e9.example/".getBytes(UTF_8).length + 4 + 1,
        size(apart),
        "a URL whose UTF-8 bytes are not the value's is sent on its own");
    for (UrlRecord r : new UrlRecord[] {text, json, apart}) {
      DataOutputSerializer out = new DataOutputSerializer(64);
      UrlRecordSerializer.INSTANCE.serialize(r, out);
      UrlRecord back =
          UrlRecordSerializer.INSTANCE.deserialize(
              new DataInputDeserializer(out.getCopyOfBuffer()));
      assertEquals(r, back);
      assertEquals(r.url(), back.url());
    }
  }

  /** Offsets that point outside what was read are corruption, not an exception from deep inside. */
  @Test
  void rangesOutsideTheValueAreRejected() throws Exception {
    DataOutputSerializer out = new DataOutputSerializer(64);
    out.writeByte(UrlRecordSerializer.URL_IN_VALUE);
    out.writeInt(3);
    out.write(new byte[] {'a', 'b', 'c'});
    out.writeByte(2); // offset
    out.writeByte(5); // length: past the end
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                UrlRecordSerializer.INSTANCE.deserialize(
                    new DataInputDeserializer(out.getCopyOfBuffer())));
    assertTrue(e.getMessage().contains("url range"), e.getMessage());
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
    assertInstanceOf(
        RawRecordSerializer.class, TypeInformation.of(RawRecord.class).createSerializer(noGeneric));
    assertInstanceOf(
        UrlRecordSerializer.class, TypeInformation.of(UrlRecord.class).createSerializer(noGeneric));
    assertInstanceOf(
        DeadLetterSerializer.class,
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

    TypeSerializerSnapshot<T> restored =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(goldenSnap), RecordFormatGoldenTest.class.getClassLoader());
    assertEquals(s, restored.restoreSerializer());
    assertTrue(s.snapshotConfiguration().resolveSchemaCompatibility(restored).isCompatibleAsIs());
  }
}
