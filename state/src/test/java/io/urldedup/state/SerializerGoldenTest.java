package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
 * records. Every older file must keep passing: restore its snapshot, resolve compatibility against
 * the current snapshot, read its records; the current version's files are also reproduced byte for
 * byte. Filter header: v1 (layout 1), v2 (layout 2, with shard count and canonicalization) and v3
 * (layout 3, adds the aged kind).
 */
class SerializerGoldenTest {

  /** The current version's records. */
  static FilterHeader[] headers() {
    return headers(FilterHeader.FORMAT_VERSION);
  }

  /** Version 1 holds no shard count or canonicalization; version 2 the mapping of each record. */
  static FilterHeader[] headers(int version) {
    boolean v1 = version == 1;
    FilterHeader stable =
        FilterSpec.stable(0.01, 1 << 20, 3)
            .newHeader(
                v1
                    ? UrlMapping.seedOnly(0xa1b2c3d4e5f60718L)
                    : new UrlMapping(
                        0xa1b2c3d4e5f60718L,
                        128,
                        0x1122334455667788L,
                        "canonicalization-version=1\n--strip-www=false\n"));
    FilterHeader used =
        FilterSpec.stable(0.001, 4 << 20, 4)
            .newHeader(
                v1
                    ? UrlMapping.seedOnly(42)
                    : new UrlMapping(
                        42, 1, -1L, "--strip-params=jsessionid,sid\n--strip-www=true\n\u00e9"));
    used.inserts = 123_456_789L;
    FilterHeader scalable =
        (v1 ? GoldenFilters.scalable(GoldenFilters.V1_MAPPING) : GoldenFilters.scalable()).header();
    FilterHeader capped =
        FilterSpec.scalable(0.02, 1000, 4, 0.85, 1 << 20)
            .newHeader(v1 ? UrlMapping.seedOnly(-1) : new UrlMapping(-1, 65536, 1, ""));
    capped.saturated = true;
    capped.sliceCount[0] = 5000;
    if (version < 3) {
      return new FilterHeader[] {stable, used, scalable, capped};
    }
    FilterHeader aged = GoldenFilters.aged().header();
    // the layout it was written with (literal: sizing may change, state may not)
    AgedSpec timedSpec = FilterSpec.agedTime(0.001, 7L * 86_400_000, 20, 12.5);
    UrlMapping timedMapping = new UrlMapping(7, 128, 3, "--strip-www=false\n");
    FilterHeader timed =
        FilterHeader.aged(
            timedSpec, timedMapping, new AgedMath.Geometry(9, 20, 129_103, 378_000), 30_240_000);
    timed.agedClock().epoch = 123_456;
    timed.agedClock().earlyAdvances = 9;
    if (version < 4) {
      return new FilterHeader[] {stable, used, scalable, capped, aged, timed};
    }
    // version 4 files hold what this build writes: stable and scalable as 2, aged layout 1 as 3,
    // layout 2 as 4
    FilterHeader agedV4 = GoldenFilters.agedV4().header();
    FilterHeader timedV4 =
        FilterHeader.aged(
            timedSpec,
            timedMapping,
            AgedMath.Geometry.lineRows(4, 11, 20, 119_753, 378_000),
            30_240_000);
    timedV4.agedClock().epoch = 654_321;
    timedV4.agedClock().generation = 77;
    timedV4.agedClock().count = 1234;
    timedV4.agedClock().earlyAdvances = 3;
    timedV4.agedClock().inserts = 98_765;
    return new FilterHeader[] {stable, used, scalable, capped, aged, timed, agedV4, timedV4};
  }

  static long[][] pages() {
    long[] zero = new long[PageStore.PAGE_WORDS];
    long[] ones = new long[PageStore.PAGE_WORDS];
    Arrays.fill(ones, -1L);
    long[] pattern = new long[PageStore.PAGE_WORDS];
    for (int i = 0; i < pattern.length; i++) {
      pattern[i] = SplitMix64.mix(i);
    }
    return new long[][] {zero, ones, pattern};
  }

  /**
   * Insert log chunks: empty, inserts only, and every escape (an insert whose h1 is the escape,
   * present, advance).
   */
  static InsertLog[] insertLogs() {
    InsertLog empty = new InsertLog();
    InsertLog inserts = new InsertLog();
    for (int i = 0; i < 5; i++) {
      inserts.insert(Keys.h1(3, i), Keys.h2(3, i));
    }
    InsertLog escapes = new InsertLog();
    escapes.insert(1, 2);
    escapes.insert(InsertLog.ESCAPE, -1);
    escapes.present(Keys.h1(4, 1), Keys.h2(4, 1));
    escapes.advance(123_456_789L);
    escapes.advance(-5);
    return new InsertLog[] {empty, inserts, escapes};
  }

  static byte[] resource(String name) throws IOException {
    return FilterFormatTest.resource(name);
  }

  @Test
  void filterHeaderSerializerV1() throws IOException {
    check(FilterHeaderSerializer.INSTANCE, "filter-header-serializer", 1, false, headers(1));
  }

  @Test
  void filterHeaderSerializerV2() throws IOException {
    check(FilterHeaderSerializer.INSTANCE, "filter-header-serializer", 2, false, headers(2));
  }

  @Test
  void filterHeaderSerializerV3() throws IOException {
    check(FilterHeaderSerializer.INSTANCE, "filter-header-serializer", 3, false, headers(3));
  }

  @Test
  void filterHeaderSerializerV4() throws IOException {
    check(FilterHeaderSerializer.INSTANCE, "filter-header-serializer", 4, true, headers(4));
    // each record in the lowest version that represents it
    DataInputDeserializer in =
        new DataInputDeserializer(resource("filter-header-serializer-data-v4"));
    in.readInt();
    int[] versions = new int[8];
    for (int i = 0; i < versions.length; i++) {
      versions[i] = FilterHeaderSerializer.INSTANCE.deserialize(in).formatVersion();
    }
    assertArrayEquals(new int[] {2, 2, 2, 2, 3, 3, 4, 4}, versions);
  }

  /**
   * Rollback: a job's serializer declares the newest layout its headers need, so a savepoint of a
   * stable or scalable job carries the very snapshot the version 2 build wrote (the version 2 and 3
   * builds resolve it as compatible), an aged job's declares 4.
   */
  @Test
  void jobSerializersDeclareTheLayoutTheirHeadersNeed() throws IOException {
    assertArrayEquals(
        resource("filter-header-serializer-snapshot-v2"),
        snapshot(FilterHeaderSerializer.forSpec(FilterSpec.stable(0.01, 1 << 20, 3))));
    assertArrayEquals(
        resource("filter-header-serializer-snapshot-v2"),
        snapshot(FilterHeaderSerializer.forSpec(FilterSpec.scalable(0.01, 1000, 2, 0.5, 1 << 20))));
    assertEquals(4, FilterHeaderSerializer.forSpec(GoldenFilters.AGED_SPEC).layoutVersion());
    assertArrayEquals(
        resource("filter-header-serializer-snapshot-v4"),
        snapshot(FilterHeaderSerializer.INSTANCE));
  }

  @Test
  void insertLogSerializerV1() throws IOException {
    check(InsertLogSerializer.INSTANCE, "insert-log-serializer", 1, true, insertLogs());
  }

  /** A job with insert logs declares the layout an older build refuses; this build reads it. */
  @Test
  void loggedJobsDeclareTheLoggedLayout() throws IOException {
    FilterHeaderSerializer logged =
        FilterHeaderSerializer.forSpec(FilterSpec.stable(0.01, 1 << 20, 3), true);
    assertEquals(FilterHeaderSerializer.LOGGED_LAYOUT_VERSION, logged.layoutVersion());
    assertEquals(5, FilterHeaderSerializer.LOGGED_LAYOUT_VERSION);
    TypeSerializerSnapshot<FilterHeader> old =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(snapshot(logged)), getClass().getClassLoader());
    assertTrue(
        FilterHeaderSerializer.INSTANCE
            .snapshotConfiguration()
            .resolveSchemaCompatibility(old)
            .isCompatibleAsIs());
    assertTrue(logged.snapshotConfiguration().resolveSchemaCompatibility(old).isCompatibleAsIs());
    assertEquals(logged, old.restoreSerializer());
    assertArrayEquals(resource("filter-header-serializer-snapshot-v5"), snapshot(logged));
  }

  @Test
  void pageSerializerV1() throws IOException {
    check(PageSerializer.INSTANCE, "page-serializer", 1, true, pages());
  }

  /** {@code current}: the files of this version are what this build writes, byte for byte. */
  private static <T> void check(
      TypeSerializer<T> serializer, String name, int version, boolean current, T[] expected)
      throws IOException {
    byte[] snapshotBytes = resource(name + "-snapshot-v" + version);
    if (current) {
      assertArrayEquals(
          snapshot(serializer), snapshotBytes, "snapshot bytes of the current version changed");
    }
    TypeSerializerSnapshot<T> old =
        TypeSerializerSnapshot.readVersionedSnapshot(
            new DataInputDeserializer(snapshotBytes), SerializerGoldenTest.class.getClassLoader());
    TypeSerializerSchemaCompatibility<T> compat =
        serializer.snapshotConfiguration().resolveSchemaCompatibility(old);
    assertTrue(compat.isCompatibleAsIs(), name + ": " + compat);
    TypeSerializer<T> restored = old.restoreSerializer();
    DataInputDeserializer in = new DataInputDeserializer(resource(name + "-data-v" + version));
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
    if (current) {
      assertArrayEquals(
          data(serializer, expected), resource(name + "-data-v" + version), "record bytes changed");
    }
  }

  @Test
  void newerSnapshotsAreRejected() {
    FilterHeaderSerializerSnapshot newer = new FilterHeaderSerializerSnapshot();
    try {
      newer.readSnapshot(
          2, new DataInputDeserializer(new byte[] {0, 0, 0, 2}), getClass().getClassLoader());
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
   * Writes the current version's golden snapshot and data files; only for a new serializer or
   * layout version, as new files next to the older ones, which must stay readable (add a check for
   * them above with {@code current = false}). Remove @Disabled, run {@code mvn -B -ntp -q -o -pl
   * state -am test -Dtest=SerializerGoldenTest}, restore @Disabled.
   */
  @Disabled("regenerates src/test/resources/golden; see the javadoc")
  @Test
  void regenerate() throws IOException {
    Path dir = Path.of("src/test/resources/golden");
    Files.createDirectories(dir);
    int header = FilterHeader.FORMAT_VERSION;
    Files.write(
        dir.resolve("filter-header-serializer-snapshot-v" + header),
        snapshot(FilterHeaderSerializer.INSTANCE));
    Files.write(
        dir.resolve("filter-header-serializer-data-v" + header),
        data(FilterHeaderSerializer.INSTANCE, headers()));
    Files.write(
        dir.resolve("insert-log-serializer-snapshot-v1"), snapshot(InsertLogSerializer.INSTANCE));
    Files.write(
        dir.resolve("insert-log-serializer-data-v1"),
        data(InsertLogSerializer.INSTANCE, insertLogs()));
    Files.write(
        dir.resolve("filter-header-serializer-snapshot-v5"),
        snapshot(FilterHeaderSerializer.forSpec(GoldenFilters.AGED_SPEC, true)));
    Files.write(dir.resolve("page-serializer-snapshot-v1"), snapshot(PageSerializer.INSTANCE));
    Files.write(dir.resolve("page-serializer-data-v1"), data(PageSerializer.INSTANCE, pages()));
  }
}
