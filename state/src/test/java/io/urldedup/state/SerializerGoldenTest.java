package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Pins the serializers' snapshots and data: golden snapshot bytes (written with
 * TypeSerializerSnapshot.writeVersionedSnapshot, as Flink writes them into a checkpoint) and golden
 * records. A future serializer version must keep passing this test with the v1 files: restore
 * the v1 snapshot, resolve compatibility against the current snapshot, read the v1 records.
 */
class SerializerGoldenTest {

  static FilterHeader[] headers() {
    FilterHeader stable = FilterSpec.stable(0.01, 1 << 20, 3).newHeader(0xa1b2c3d4e5f60718L);
    FilterHeader used = FilterSpec.stable(0.001, 4 << 20, 4).newHeader(42);
    used.inserts = 123_456_789L;
    FilterHeader scalable = GoldenFilters.scalable().header();
    FilterHeader capped = FilterSpec.scalable(0.02, 1000, 4, 0.85, 1 << 20).newHeader(-1);
    capped.saturated = true;
    capped.sliceCount[0] = 5000;
    return new FilterHeader[] {stable, used, scalable, capped};
  }

  static long[][] pages() {
    long[] zero = new long[PageStore.PAGE_WORDS];
    long[] ones = new long[PageStore.PAGE_WORDS];
    java.util.Arrays.fill(ones, -1L);
    long[] pattern = new long[PageStore.PAGE_WORDS];
    for (int i = 0; i < pattern.length; i++) {
      pattern[i] = Keys.mix(i);
    }
    return new long[][] {zero, ones, pattern};
  }

  static byte[] resource(String name) throws IOException {
    return FilterFormatTest.resource(name);
  }

  @Test
  void filterHeaderSerializerV1() throws IOException {
    check(FilterHeaderSerializer.INSTANCE, "filter-header-serializer", headers());
  }

  @Test
  void pageSerializerV1() throws IOException {
    check(PageSerializer.INSTANCE, "page-serializer", pages());
  }

  private static <T> void check(TypeSerializer<T> current, String name, T[] expected) throws IOException {
    byte[] snapshotBytes = resource(name + "-snapshot-v1");
    assertArrayEquals(snapshot(current), snapshotBytes, "snapshot bytes of the current version changed");
    TypeSerializerSnapshot<T> old = TypeSerializerSnapshot.readVersionedSnapshot(
        new DataInputDeserializer(snapshotBytes), SerializerGoldenTest.class.getClassLoader());
    TypeSerializerSchemaCompatibility<T> compat = current.snapshotConfiguration().resolveSchemaCompatibility(old);
    assertTrue(compat.isCompatibleAsIs(), name + ": " + compat);
    TypeSerializer<T> restored = old.restoreSerializer();
    DataInputDeserializer in = new DataInputDeserializer(resource(name + "-data-v1"));
    int n = in.readInt();
    assertEquals(expected.length, n);
    for (T e : expected) {
      T actual = restored.deserialize(in);
      if (e instanceof long[] a) {
        assertArrayEquals(a, (long[]) actual);
      } else {
        assertEquals(e, actual);
      }
    }
    assertEquals(0, in.available());
    assertArrayEquals(data(current, expected), resource(name + "-data-v1"), "record bytes changed");
  }

  @Test
  void newerSnapshotsAreRejected() {
    FilterHeaderSerializerSnapshot newer = new FilterHeaderSerializerSnapshot();
    try {
      newer.readSnapshot(2, new DataInputDeserializer(new byte[] {0, 0, 0, 2}), getClass().getClassLoader());
      throw new AssertionError("version 2 must not be readable");
    } catch (IOException expected) {
      assertTrue(expected.getMessage().contains("newer"));
    }
  }

  static <T> byte[] snapshot(TypeSerializer<T> s) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(64);
    TypeSerializerSnapshot.writeVersionedSnapshot(out, s.snapshotConfiguration());
    return out.getCopyOfBuffer();
  }

  static <T> byte[] data(TypeSerializer<T> s, T[] records) throws IOException {
    DataOutputSerializer out = new DataOutputSerializer(4096);
    out.writeInt(records.length);
    for (T r : records) {
      s.serialize(r, out);
    }
    return out.getCopyOfBuffer();
  }

  /**
   * Regenerates the golden snapshot and data files; only for a new serializer version, as new
   * files (-v2) next to the v1 files, which must stay readable. Remove @Disabled, run
   * {@code mvn -B -ntp -q -o -pl state -am test -Dtest=SerializerGoldenTest}, restore @Disabled.
   */
  @Disabled("regenerates src/test/resources/golden; see the javadoc")
  @Test
  void regenerate() throws IOException {
    Path dir = Path.of("src/test/resources/golden");
    Files.createDirectories(dir);
    Files.write(dir.resolve("filter-header-serializer-snapshot-v1"), snapshot(FilterHeaderSerializer.INSTANCE));
    Files.write(dir.resolve("filter-header-serializer-data-v1"), data(FilterHeaderSerializer.INSTANCE, headers()));
    Files.write(dir.resolve("page-serializer-snapshot-v1"), snapshot(PageSerializer.INSTANCE));
    Files.write(dir.resolve("page-serializer-data-v1"), data(PageSerializer.INSTANCE, pages()));
  }
}
