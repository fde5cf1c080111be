package io.urldedup.state;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The persisted layout of a {@link FilterHeader}, explicit little-endian over any DataOutput
 * (Flink's DataOutputView, or the stream of the tests' FilterFormat). Every record starts with its
 * layout version, so a newer reader decodes older records.
 *
 * <pre>
 * u32 formatVersion, u8 kind (0 stable, 1 scalable, 2 aged), u64 seedFingerprint,
 * f64 fpr, u64 memoryBytes, u32 cellBits, u64 capacity, u32 growth, f64 tightening, u64 maxMemoryBytes,
 * u64 inserts, u32 K, u32 P, u32 blockWords, u64 blocks,
 * u8 saturated, u32 slices, slices x (u64 capacity, f64 fpr, u64 blocks, u32 k, u64 count)
 * version 2 appends:
 * u32 shards, u64 canonicalizationFingerprint, u32 L, L bytes UTF-8 canonicalization settings
 * version 3 adds kind 2 (aged), which appends:
 * u64 windowUrls, u64 windowMillis, u32 generations, f64 rate, u32 k, u32 l,
 *   u64 rows, u64 generationSize, u64 generationMillis,
 *   u64 generation, u64 count, u64 epoch, u64 earlyAdvances, u64 inserts
 * version 4: aged headers append
 * u32 agedLayout (2), u32 rowLines
 * </pre>
 *
 * Writes each header in the lowest version that represents it ({@link FilterHeader#writeVersion}:
 * stable and scalable 2, aged 3 for filter layout 1 (read as layout 1), 4 for layout 2); reads
 * every version from 1. Version 1 records read with the shard count and canonicalization {@link
 * UrlMapping#UNKNOWN}.
 */
final class FilterHeaderCodec {

  private FilterHeaderCodec() {}

  static void write(FilterHeader h, DataOutput out) throws IOException {
    int version = h.writeVersion();
    FilterSpec spec = h.spec;
    StableSpec stable = spec instanceof StableSpec s ? s : null;
    ScalableSpec scalable = spec instanceof ScalableSpec s ? s : null;
    StableMath.Geometry g = h.stable;
    out.writeInt(Integer.reverseBytes(version));
    out.writeByte(spec.kind().ordinal());
    out.writeLong(Long.reverseBytes(h.mapping.seedFingerprint()));
    writeDouble(out, spec.fpr());
    out.writeLong(Long.reverseBytes(stable == null ? 0 : stable.memoryBytes()));
    out.writeInt(Integer.reverseBytes(stable == null ? 0 : stable.cellBits()));
    out.writeLong(Long.reverseBytes(scalable == null ? 0 : scalable.capacity()));
    out.writeInt(Integer.reverseBytes(scalable == null ? 0 : scalable.growth()));
    writeDouble(out, scalable == null ? 0 : scalable.tightening());
    out.writeLong(Long.reverseBytes(scalable == null ? 0 : scalable.maxMemoryBytes()));
    out.writeLong(Long.reverseBytes(h.inserts));
    out.writeInt(Integer.reverseBytes(g == null ? 0 : g.k()));
    out.writeInt(Integer.reverseBytes(g == null ? 0 : g.p()));
    out.writeInt(Integer.reverseBytes(g == null ? 0 : g.blockWords()));
    out.writeLong(Long.reverseBytes(g == null ? 0 : g.blocks()));
    out.writeByte(h.saturated ? 1 : 0);
    out.writeInt(Integer.reverseBytes(h.slices));
    for (int i = 0; i < h.slices; i++) {
      out.writeLong(Long.reverseBytes(h.sliceCapacity[i]));
      writeDouble(out, h.sliceFpr[i]);
      out.writeLong(Long.reverseBytes(h.sliceBlocks[i]));
      out.writeInt(Integer.reverseBytes(h.sliceK[i]));
      out.writeLong(Long.reverseBytes(h.sliceCount[i]));
    }
    out.writeInt(Integer.reverseBytes(h.mapping.shards()));
    out.writeLong(Long.reverseBytes(h.mapping.canonicalizationFingerprint()));
    byte[] settings = h.mapping.canonicalizationSettings().getBytes(StandardCharsets.UTF_8);
    out.writeInt(Integer.reverseBytes(settings.length));
    out.write(settings);
    if (spec instanceof AgedSpec aged) {
      writeAged(h, aged, out, version);
    }
  }

  private static void writeAged(FilterHeader h, AgedSpec s, DataOutput out, int version)
      throws IOException {
    out.writeLong(Long.reverseBytes(s.windowUrls()));
    out.writeLong(Long.reverseBytes(s.windowMillis()));
    out.writeInt(Integer.reverseBytes(s.generations()));
    writeDouble(out, s.rate());
    out.writeInt(Integer.reverseBytes(h.aged.k()));
    out.writeInt(Integer.reverseBytes(h.aged.l()));
    out.writeLong(Long.reverseBytes(h.aged.rows()));
    out.writeLong(Long.reverseBytes(h.aged.generationSize()));
    out.writeLong(Long.reverseBytes(h.generationMillis));
    AgedClock c = h.clock;
    out.writeLong(Long.reverseBytes(c.generation));
    out.writeLong(Long.reverseBytes(c.count));
    out.writeLong(Long.reverseBytes(c.epoch));
    out.writeLong(Long.reverseBytes(c.earlyAdvances));
    out.writeLong(Long.reverseBytes(c.inserts));
    if (version >= 4) {
      out.writeInt(Integer.reverseBytes(h.aged.layout()));
      out.writeInt(Integer.reverseBytes(h.aged.rowLines()));
    }
  }

  static FilterHeader read(DataInput in) throws IOException {
    int version = Integer.reverseBytes(in.readInt());
    if (version < 1 || version > FilterHeader.FORMAT_VERSION) {
      throw new IOException(
          "filter header format version "
              + version
              + " is not readable by this build (reads 1.."
              + FilterHeader.FORMAT_VERSION
              + ")");
    }
    int kindOrdinal = in.readUnsignedByte();
    if (kindOrdinal >= FilterSpec.Kind.values().length) {
      throw new IOException("unknown filter kind " + kindOrdinal);
    }
    FilterSpec.Kind kind = FilterSpec.Kind.values()[kindOrdinal];
    long fp = Long.reverseBytes(in.readLong());
    double fpr = readDouble(in);
    long memory = Long.reverseBytes(in.readLong());
    int cellBits = Integer.reverseBytes(in.readInt());
    long capacity = Long.reverseBytes(in.readLong());
    int growth = Integer.reverseBytes(in.readInt());
    double tightening = readDouble(in);
    long maxMemory = Long.reverseBytes(in.readLong());
    long inserts = Long.reverseBytes(in.readLong());
    int k = Integer.reverseBytes(in.readInt());
    int p = Integer.reverseBytes(in.readInt());
    int blockWords = Integer.reverseBytes(in.readInt());
    long blocks = Long.reverseBytes(in.readLong());
    boolean saturated = in.readUnsignedByte() != 0;
    int slices = Integer.reverseBytes(in.readInt());
    if (slices < 0 || slices > FilterHeader.MAX_SLICES) {
      throw new IOException("corrupt filter header: " + slices + " slices");
    }
    // slices are appended once the header exists
    long[][] slice = new long[slices][4];
    double[] sliceFpr = new double[slices];
    for (int i = 0; i < slices; i++) {
      slice[i][0] = Long.reverseBytes(in.readLong());
      sliceFpr[i] = readDouble(in);
      slice[i][1] = Long.reverseBytes(in.readLong());
      slice[i][2] = Integer.reverseBytes(in.readInt());
      slice[i][3] = Long.reverseBytes(in.readLong());
    }
    UrlMapping mapping = version >= 2 ? readMapping(fp, in) : UrlMapping.seedOnly(fp);
    if (kind == FilterSpec.Kind.AGED) {
      if (version < 3) {
        throw new IOException("corrupt filter header: an aged filter in layout version " + version);
      }
      return readAged(version, mapping, fpr, in);
    }
    FilterHeader h;
    try {
      h =
          kind == FilterSpec.Kind.STABLE
              ? new FilterHeader(
                  version,
                  mapping,
                  FilterSpec.stable(fpr, memory, cellBits),
                  new StableMath.Geometry(cellBits, k, p, blockWords, blocks))
              : new FilterHeader(
                  version,
                  mapping,
                  FilterSpec.scalable(fpr, capacity, growth, tightening, maxMemory),
                  null);
    } catch (IllegalArgumentException e) {
      throw new IOException("corrupt filter header: " + e.getMessage());
    }
    h.inserts = inserts;
    h.saturated = saturated;
    for (int i = 0; i < slices; i++) {
      h.appendSlice(slice[i][0], sliceFpr[i], slice[i][1], (int) slice[i][2], slice[i][3]);
    }
    validate(h, k, p, blockWords, blocks);
    return h;
  }

  private static UrlMapping readMapping(long seedFingerprint, DataInput in) throws IOException {
    int shards = Integer.reverseBytes(in.readInt());
    if (shards < 0) {
      throw new IOException("corrupt filter header: " + shards + " shards");
    }
    long canonicalization = Long.reverseBytes(in.readLong());
    int length = Integer.reverseBytes(in.readInt());
    if (length < 0 || length > UrlMapping.MAX_SETTINGS_BYTES) {
      throw new IOException(
          "corrupt filter header: canonicalization settings of " + length + " bytes");
    }
    byte[] settings = new byte[length];
    in.readFully(settings);
    return new UrlMapping(
        seedFingerprint, shards, canonicalization, new String(settings, StandardCharsets.UTF_8));
  }

  private static FilterHeader readAged(int version, UrlMapping mapping, double fpr, DataInput in)
      throws IOException {
    long windowUrls = Long.reverseBytes(in.readLong());
    long windowMillis = Long.reverseBytes(in.readLong());
    int generations = Integer.reverseBytes(in.readInt());
    double rate = readDouble(in);
    int k = Integer.reverseBytes(in.readInt());
    int l = Integer.reverseBytes(in.readInt());
    long rows = Long.reverseBytes(in.readLong());
    long g = Long.reverseBytes(in.readLong());
    long generationMillis = Long.reverseBytes(in.readLong());
    AgedClock c =
        new AgedClock(
            Long.reverseBytes(in.readLong()),
            Long.reverseBytes(in.readLong()),
            Long.reverseBytes(in.readLong()),
            Long.reverseBytes(in.readLong()),
            Long.reverseBytes(in.readLong()));
    int layout = 1;
    int rowLines = 0;
    if (version >= 4) {
      layout = Integer.reverseBytes(in.readInt());
      rowLines = Integer.reverseBytes(in.readInt());
      if (layout != 2) {
        throw new IOException(
            "corrupt aged filter header: layout "
                + layout
                + " in header layout version "
                + version);
      }
    }
    AgedMath.Geometry geometry;
    AgedSpec spec;
    try {
      geometry = new AgedMath.Geometry(layout, rowLines, k, l, rows, g);
      spec = new AgedSpec(fpr, windowUrls, windowMillis, generations, rate);
    } catch (IllegalArgumentException e) {
      throw new IOException("corrupt aged filter header: " + e.getMessage());
    }
    if (generationMillis < 0
        || (windowMillis > 0) != (generationMillis > 0)
        || c.count < 0
        || c.inserts < 0
        || c.earlyAdvances < 0
        || c.generation < 0) {
      throw new IOException(
          "corrupt aged filter header: generation "
              + generationMillis
              + " ms for a window of "
              + windowMillis
              + " ms, clock "
              + c);
    }
    FilterHeader h = new FilterHeader(version, mapping, spec, null);
    h.setAged(geometry, generationMillis, c);
    return h;
  }

  /**
   * The stable and scalable fields a filter indexes with: a corrupt header must fail here, naming
   * the field, not later as an index out of bounds on a record. The spec was checked by its own
   * constructor; the concrete geometry is checked against what the filters accept.
   */
  private static void validate(FilterHeader h, int k, int p, int words, long blocks)
      throws IOException {
    if (h.inserts < 0) {
      throw new IOException("corrupt filter header: " + h.inserts + " inserts");
    }
    if (h.kind() == FilterSpec.Kind.STABLE) {
      long maxBlocks = FilterSpec.MAX_MEMORY_BYTES / Long.BYTES / Math.max(1, words);
      if (words < 8
          || words > PageStore.PAGE_WORDS
          || Integer.bitCount(words) != 1
          || k < 1
          || k > words
          || p < 0
          || blocks < 1
          || blocks > maxBlocks
          || h.slices != 0) {
        throw new IOException(
            "corrupt stable filter header: K="
                + k
                + " P="
                + p
                + " blockWords="
                + words
                + " blocks="
                + blocks
                + " slices="
                + h.slices);
      }
      return;
    }
    if (h.slices < 1) {
      throw new IOException("corrupt scalable filter header: " + h.slices + " slices");
    }
    long maxBlocks = FilterSpec.MAX_MEMORY_BYTES / (FilterMath.BLOCK_BITS / 8);
    for (int i = 0; i < h.slices; i++) {
      if (h.sliceK[i] < 1
          || h.sliceK[i] > 64
          || h.sliceBlocks[i] < 1
          || h.sliceBlocks[i] > maxBlocks
          || h.sliceCapacity[i] < 1
          || h.sliceCount[i] < 0
          || !(h.sliceFpr[i] > 0 && h.sliceFpr[i] < 1)) {
        throw new IOException(
            "corrupt scalable filter header: slice "
                + i
                + " has k="
                + h.sliceK[i]
                + " blocks="
                + h.sliceBlocks[i]
                + " capacity="
                + h.sliceCapacity[i]
                + " count="
                + h.sliceCount[i]
                + " fpr="
                + h.sliceFpr[i]);
      }
    }
  }

  private static void writeDouble(DataOutput out, double v) throws IOException {
    out.writeLong(Long.reverseBytes(Double.doubleToRawLongBits(v)));
  }

  private static double readDouble(DataInput in) throws IOException {
    return Double.longBitsToDouble(Long.reverseBytes(in.readLong()));
  }
}
