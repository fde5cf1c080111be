package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

class FilterFormatTest {

  static byte[] resource(String name) throws IOException {
    try (InputStream in = FilterFormatTest.class.getResourceAsStream("/golden/" + name)) {
      if (in == null) {
        throw new IOException("missing golden file " + name + "; see regenerateGoldenFiles");
      }
      return in.readAllBytes();
    }
  }

  @Test
  void roundTripStableAndScalable() throws IOException {
    for (FilterFormat.Loaded original :
        new FilterFormat.Loaded[] {GoldenFilters.stable(), GoldenFilters.scalable()}) {
      byte[] bytes = FilterFormat.toBytes(original.header(), original.pages());
      FilterFormat.Loaded back = FilterFormat.fromBytes(bytes);
      assertEquals(original.header(), back.header());
      assertArrayEquals(bytes, FilterFormat.toBytes(back.header(), back.pages()));
      UrlHasher hasher = new UrlHasher(GoldenFilters.SEED);
      DedupFilter f = back.open();
      long[] hash = new long[2];
      for (int i = 0; i < GoldenFilters.URLS; i++) {
        byte[] u = GoldenFilters.url(i);
        hasher.hash(u, 0, u.length, hash);
        assertTrue(f.mightContain(hash[0], hash[1]));
      }
    }
  }

  /**
   * The golden files pin the byte layout: magic, version, LE header, page records, CRC32C. Each
   * filter is written in the lowest version that represents it: stable and scalable files are byte
   * for byte what the version 2 build wrote, aged layout 1 what the version 3 build wrote.
   */
  @Test
  void goldenFilesAreReproducedAndReadable() throws IOException {
    assertArrayEquals(
        resource("stable-v2.udfl"), toBytes(GoldenFilters.stable()), "stable layout changed");
    assertArrayEquals(
        resource("scalable-v2.udfl"), toBytes(GoldenFilters.scalable()), "scalable layout changed");
    assertArrayEquals(
        resource("aged-v3.udfl"), toBytes(GoldenFilters.aged()), "aged layout 1 changed");
    assertArrayEquals(
        resource("aged-v4.udfl"), toBytes(GoldenFilters.agedV4()), "aged layout 2 changed");
    FilterFormat.Loaded v4 = FilterFormat.fromBytes(resource("aged-v4.udfl"));
    assertEquals(4, v4.header().formatVersion());
    assertEquals(AgedMath.Geometry.lineRows(1, 5, 4, 7, 25), v4.header().agedGeometry());
    assertEquals(2, v4.header().agedLayout());
    long v4Inserts = v4.header().agedClock().inserts();
    assertTrue(v4Inserts >= 195 && v4Inserts <= 200, "200 URLs at 1%: " + v4Inserts);
    assertEquals((v4Inserts - 1) / 25, v4.header().agedGeneration());
    assertEquals(
        (v4Inserts - 25 * ((v4Inserts - 1) / 25)) / 25.0, v4.header().agedGenerationFill(), 1e-12);
    assertEquals(0, v4.header().generationsAdvancedEarly());
    assertEquals(GoldenFilters.agedV4().header(), v4.header());
    FilterFormat.Loaded a = FilterFormat.fromBytes(resource("aged-v3.udfl"));
    assertEquals(GoldenFilters.aged().header(), a.header());
    // literal: what the file holds, not what today's sizing would choose
    assertEquals(new AgedMath.Geometry(5, 4, 5, 25), a.header().agedGeometry());
    assertEquals(3, a.header().formatVersion());
    assertEquals(7, a.header().agedClock().generation());
    assertEquals(24, a.header().agedClock().count());
    assertEquals(199, a.header().agedClock().inserts());
    // 199 inserts of 200 URLs: one was answered seen (a false positive) and never inserted;
    // every other URL went into generation (its insert number) / 25, and generations 3..7 are the
    // last l = 4 shifts: their URLs are all seen
    UrlHasher hasher = new UrlHasher(GoldenFilters.SEED);
    DedupFilter replay =
        AgedBloomFilter.open(
            GoldenFilters.AGED_V3_GEOMETRY, new AgedClock(), false, new HeapPageStore());
    DedupFilter aged = a.open();
    long[] hash = new long[2];
    int inserted = 0;
    for (int i = 0; i < GoldenFilters.URLS; i++) {
      byte[] u = GoldenFilters.url(i);
      hasher.hash(u, 0, u.length, hash);
      if (!replay.testAndAdd(hash[0], hash[1]) && inserted++ / 25 >= 3) {
        assertTrue(aged.mightContain(hash[0], hash[1]), "URL " + i + " inside the window");
      }
    }
    assertEquals(199, inserted);
    // the same for layout 2
    replay =
        AgedBloomFilter.open(
            GoldenFilters.AGED_V4_GEOMETRY, new AgedClock(), false, new HeapPageStore());
    DedupFilter agedV4 = v4.open();
    inserted = 0;
    for (int i = 0; i < GoldenFilters.URLS; i++) {
      byte[] u = GoldenFilters.url(i);
      hasher.hash(u, 0, u.length, hash);
      if (!replay.testAndAdd(hash[0], hash[1]) && inserted++ / 25 >= 3) {
        assertTrue(
            agedV4.mightContain(hash[0], hash[1]), "layout 2: URL " + i + " inside the window");
      }
    }
    assertEquals(v4.header().agedClock().inserts(), inserted);
    FilterFormat.Loaded s = FilterFormat.fromBytes(resource("scalable-v3.udfl"));
    assertEquals(3, s.header().slices());
    assertEquals(GoldenFilters.MAPPING, s.header().mapping());
    s.header()
        .checkCompatible(
            FilterSpec.scalable(0.01, 64, 2, 0.5, 1 << 20), GoldenFilters.MAPPING, false);
  }

  /**
   * Version 1 files (header layout 1) still read, with the shard count and canonicalization
   * UNKNOWN: the same header and pages as today's filter with only the seed recorded, and they
   * accept (then adopt) any shard count and canonicalization.
   */
  @Test
  void version1FilesStillRead() throws IOException {
    FilterFormat.Loaded stable = FilterFormat.fromBytes(resource("stable-v1.udfl"));
    FilterFormat.Loaded scalable = FilterFormat.fromBytes(resource("scalable-v1.udfl"));
    assertEquals(1, stable.header().formatVersion());
    assertArrayEquals(toBytes(GoldenFilters.stable(GoldenFilters.V1_MAPPING)), toBytes(stable));
    assertArrayEquals(toBytes(GoldenFilters.scalable(GoldenFilters.V1_MAPPING)), toBytes(scalable));
    assertEquals(GoldenFilters.V1_MAPPING, scalable.header().mapping());
    FilterSpec spec = FilterSpec.scalable(0.01, 64, 2, 0.5, 1 << 20);
    scalable.header().checkCompatible(spec, GoldenFilters.MAPPING, false);
    scalable.header().adopt(spec, GoldenFilters.MAPPING);
    assertEquals(GoldenFilters.MAPPING, scalable.header().mapping());
  }

  /** Version 2 files read as the same filters (and are rewritten as version 2). */
  @Test
  void version2FilesStillRead() throws IOException {
    FilterFormat.Loaded stable = FilterFormat.fromBytes(resource("stable-v2.udfl"));
    FilterFormat.Loaded scalable = FilterFormat.fromBytes(resource("scalable-v2.udfl"));
    assertEquals(2, stable.header().formatVersion());
    assertArrayEquals(toBytes(GoldenFilters.stable()), toBytes(stable));
    assertArrayEquals(toBytes(GoldenFilters.scalable()), toBytes(scalable));
    assertEquals(GoldenFilters.MAPPING, scalable.header().mapping());
  }

  /**
   * Version 3 files of stable and scalable filters (the version 3 build wrote every header as 3)
   * still read, as the same filters.
   */
  @Test
  void version3FilesStillRead() throws IOException {
    assertArrayEquals(
        toBytes(GoldenFilters.stable()),
        toBytes(FilterFormat.fromBytes(resource("stable-v3.udfl"))));
    assertArrayEquals(
        toBytes(GoldenFilters.scalable()),
        toBytes(FilterFormat.fromBytes(resource("scalable-v3.udfl"))));
    assertEquals(3, FilterFormat.fromBytes(resource("stable-v3.udfl")).header().formatVersion());
  }

  @Test
  void layoutIsLittleEndianAndPageAddressable() throws IOException {
    byte[] bytes = toBytes(GoldenFilters.stable());
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals('U', b.get(0));
    assertEquals('L', b.get(3));
    assertEquals(2, b.getInt(4), "a stable filter is written as version 2");
    assertEquals(0, b.get(8), "kind stable");
    int headerLength = b.getInt(9);
    assertEquals(2, b.getInt(13), "header starts with its layout version");
    long pages = b.getLong(13 + headerLength);
    assertEquals(2, pages);
    for (int i = 0; i < pages; i++) {
      assertEquals(i, b.getLong((int) FilterFormat.pageRecordOffset(headerLength, i)));
    }
    assertEquals(bytes.length, FilterFormat.pageRecordOffset(headerLength, pages) + 4);
    String text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
    assertFalse(text.contains(Long.toHexString(GoldenFilters.SEED)), "never the seed");
  }

  @Test
  void corruptionIsDetected() throws IOException {
    byte[] bytes = resource("aged-v4.udfl");
    byte[] flipped = bytes.clone();
    flipped[flipped.length / 2] ^= 1;
    assertTrue(
        assertThrows(IOException.class, () -> FilterFormat.fromBytes(flipped))
            .getMessage()
            .contains("checksum"));
    byte[] badMagic = bytes.clone();
    badMagic[0] = 'X';
    assertThrows(IOException.class, () -> FilterFormat.fromBytes(badMagic));
    byte[] future = bytes.clone();
    future[4] = (byte) (FilterFormat.VERSION + 1);
    assertTrue(
        assertThrows(IOException.class, () -> FilterFormat.fromBytes(future))
            .getMessage()
            .contains("version " + (FilterFormat.VERSION + 1)));
  }

  /**
   * Header fields a filter indexes with are validated on read: a corrupt value fails with an
   * IOException naming it, not with an index out of bounds on the first record.
   */
  @Test
  void corruptHeaderFieldsAreRefusedOnRead() throws IOException {
    // offsets in the header record: u32 version, u8 kind, then the fixed fields (FilterHeaderCodec)
    int blockWords = 4 + 1 + 8 + 8 + 8 + 4 + 8 + 4 + 8 + 8 + 8 + 4 + 4;
    int firstSliceK = blockWords + 4 + 8 + 1 + 4 + 8 + 8 + 8;
    int cellBits = 4 + 1 + 8 + 8 + 8;
    Object[][] cases = {
      {GoldenFilters.stable().header(), blockWords, 3, "blockWords=3"},
      {GoldenFilters.stable().header(), blockWords - 8, 0, "K=0"},
      {GoldenFilters.stable().header(), cellBits, 9, "cellBits must be 1, 2, 3 or 4"},
      {GoldenFilters.scalable().header(), firstSliceK, 0, "slice 0 has k=0"},
    };
    for (Object[] c : cases) {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      FilterHeaderCodec.write((FilterHeader) c[0], new java.io.DataOutputStream(bytes));
      byte[] b = bytes.toByteArray();
      ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putInt((int) c[1], (int) c[2]);
      IOException e =
          assertThrows(
              IOException.class,
              () ->
                  FilterHeaderCodec.read(
                      new java.io.DataInputStream(new java.io.ByteArrayInputStream(b))));
      assertTrue(
          e.getMessage().startsWith("corrupt") && e.getMessage().contains((String) c[3]),
          e.getMessage());
    }
  }

  @Test
  void sameInputAndSeedGiveBitIdenticalState() {
    assertArrayEquals(toBytes(GoldenFilters.stable()), toBytes(GoldenFilters.stable()));
    assertArrayEquals(toBytes(GoldenFilters.scalable()), toBytes(GoldenFilters.scalable()));
    assertArrayEquals(toBytes(GoldenFilters.agedV4()), toBytes(GoldenFilters.agedV4()));
  }

  static byte[] toBytes(FilterFormat.Loaded l) {
    return FilterFormat.toBytes(l.header(), l.pages());
  }

  /**
   * Regenerates the golden files. Only after an intended, versioned format change (bump
   * FilterFormat.VERSION or FilterHeader.FORMAT_VERSION and keep reading the old files), or, before
   * any release, an intended change of the cells a filter stores (overwrite the files): remove
   * {@code @Disabled}, run {@code mvn -B -ntp -q -o -pl state -am test -Dtest=FilterFormatTest}
   * from the repository root, restore {@code @Disabled}, commit the new files next to the old ones.
   */
  @Disabled("regenerates src/test/resources/golden; see the javadoc")
  @Test
  void regenerateGoldenFiles() throws IOException {
    Path dir = Path.of("src/test/resources/golden");
    Files.createDirectories(dir);
    // each file named by the version it is written in (stable, scalable: 2; aged layout 1: 3)
    Files.write(
        dir.resolve("aged-v" + FilterFormat.VERSION + ".udfl"), toBytes(GoldenFilters.agedV4()));
  }
}
