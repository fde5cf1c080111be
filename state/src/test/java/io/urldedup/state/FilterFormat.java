package io.urldedup.state;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * The standalone, versioned binary form of a whole filter (header + pages), a test fixture: the
 * golden {@code .udfl} files pin {@link FilterHeaderCodec}'s layouts and the page words with it,
 * and no main code reads or writes it. Explicit little-endian; the seed appears only as its
 * fingerprint.
 *
 * <pre>
 * offset  size  field
 * 0       4     magic "UDFL" (0x55 0x44 0x46 0x4C)
 * 4       4     u32 format version (1 to 4: the header's, see below)
 * 8       1     u8 filter kind (0 stable, 1 scalable, 2 aged)
 * 9       4     u32 header length L
 * 13      L     header ({@link FilterHeaderCodec}: parameters, seed fingerprint, counters, slices)
 * 13+L    8     u64 page count N
 * 21+L    N x   page records, ascending page id: u64 page id, 512 x u64 words (4104 bytes each)
 * end-4   4     u32 CRC32C of every preceding byte
 * </pre>
 *
 * Version 2 differs from 1 only inside the header (layout 2 adds the shard count and the
 * canonicalization fingerprint, {@link FilterHeader#FORMAT_VERSION}); version 1 files read with
 * those UNKNOWN. Version 3 adds kind 2 (aged: header layout 3, its pages numbered from 0 like the
 * stable filter's); version 4 aged filters of layout 2 (header layout 4, pages of stamped rows). A
 * file is written in its header's version ({@link FilterHeader#writeVersion}, the lowest that
 * represents it: stable and scalable 2, aged 3 or 4), so older builds read what they can represent;
 * a build reads every version up to {@link #VERSION}.
 *
 * <p>Page records have a fixed size, so record i starts at {@link #pageRecordOffset}: a reader can
 * seek to (or binary-search for) a page. All-zero pages are omitted (they read as zeros).
 */
public final class FilterFormat {

  public static final byte[] MAGIC = {'U', 'D', 'F', 'L'};

  /** The newest version this build reads (and writes, for aged filters of layout 2). */
  public static final int VERSION = 4;

  public static final int PAGE_RECORD_BYTES = 8 + PageStore.PAGE_BYTES;

  private FilterFormat() {}

  /** A filter read back: its header and its pages. */
  public record Loaded(FilterHeader header, HeapPageStore pages) {
    public DedupFilter open() {
      return Filters.open(header, pages);
    }
  }

  /** Byte offset of page record {@code i} in a file whose header has {@code headerLength} bytes. */
  public static long pageRecordOffset(int headerLength, long i) {
    return 21L + headerLength + i * PAGE_RECORD_BYTES;
  }

  public static byte[] toBytes(FilterHeader header, PageStore pages) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      write(header, pages, bytes);
    } catch (IOException e) {
      throw new IllegalStateException("in-memory write failed", e);
    }
    return bytes.toByteArray();
  }

  public static Loaded fromBytes(byte[] bytes) throws IOException {
    return read(new ByteArrayInputStream(bytes));
  }

  public static void write(FilterHeader header, PageStore pages, OutputStream out)
      throws IOException {
    ByteArrayOutputStream headerBytes = new ByteArrayOutputStream();
    FilterHeaderCodec.write(header, new DataOutputStream(headerBytes));
    long[] count = {0};
    forEachNonZeroPage(header, pages, id -> count[0]++);

    CRC32C crc = new CRC32C();
    DataOutputStream data = new DataOutputStream(new CheckedOutputStream(out, crc));
    data.write(MAGIC);
    data.writeInt(Integer.reverseBytes(header.writeVersion()));
    data.writeByte(header.kind().ordinal());
    data.writeInt(Integer.reverseBytes(headerBytes.size()));
    headerBytes.writeTo(data);
    data.writeLong(Long.reverseBytes(count[0]));
    byte[] record = new byte[PageStore.PAGE_BYTES];
    IOException[] failure = {null};
    forEachNonZeroPage(
        header,
        pages,
        id -> {
          if (failure[0] != null) {
            return;
          }
          try {
            data.writeLong(Long.reverseBytes(id));
            long[] page = pages.page(id);
            for (int w = 0; w < PageStore.PAGE_WORDS; w++) {
              long v = page[w];
              for (int b = 0; b < 8; b++) {
                record[w * 8 + b] = (byte) (v >>> (8 * b));
              }
            }
            data.write(record);
          } catch (IOException e) {
            failure[0] = e;
          }
        });
    if (failure[0] != null) {
      throw failure[0];
    }
    data.flush();
    int checksum = (int) crc.getValue();
    out.write(
        new byte[] {
          (byte) checksum,
          (byte) (checksum >>> 8),
          (byte) (checksum >>> 16),
          (byte) (checksum >>> 24)
        });
    out.flush();
  }

  public static Loaded read(InputStream in) throws IOException {
    CRC32C crc = new CRC32C();
    DataInputStream data = new DataInputStream(new CheckedInputStream(in, crc));
    byte[] magic = new byte[4];
    data.readFully(magic);
    if (magic[0] != MAGIC[0]
        || magic[1] != MAGIC[1]
        || magic[2] != MAGIC[2]
        || magic[3] != MAGIC[3]) {
      throw new IOException("not a urldedup filter file (bad magic)");
    }
    int version = Integer.reverseBytes(data.readInt());
    if (version < 1 || version > VERSION) {
      throw new IOException(
          "filter file format version "
              + version
              + " is not readable by this build (reads 1.."
              + VERSION
              + ")");
    }
    int kind = data.readUnsignedByte();
    int headerLength = Integer.reverseBytes(data.readInt());
    if (headerLength < 0 || headerLength > (1 << 20)) {
      throw new IOException("corrupt filter file: header length " + headerLength);
    }
    byte[] headerBytes = new byte[headerLength];
    data.readFully(headerBytes);
    FilterHeader header =
        FilterHeaderCodec.read(new DataInputStream(new ByteArrayInputStream(headerBytes)));
    if (header.formatVersion() != version) {
      throw new IOException(
          "corrupt filter file: file version "
              + version
              + " vs header layout version "
              + header.formatVersion());
    }
    if (header.kind().ordinal() != kind) {
      throw new IOException(
          "corrupt filter file: kind byte " + kind + " vs header " + header.kind());
    }
    long count = Long.reverseBytes(data.readLong());
    HeapPageStore pages = new HeapPageStore();
    byte[] record = new byte[PageStore.PAGE_BYTES];
    long previous = -1;
    for (long i = 0; i < count; i++) {
      long id = Long.reverseBytes(data.readLong());
      if (i > 0 && Long.compareUnsigned(id, previous) <= 0) {
        throw new IOException("corrupt filter file: page ids not ascending at record " + i);
      }
      if (!addresses(header, id)) {
        throw new IOException(
            "corrupt filter file: page id " + Long.toHexString(id) + " outside the filter");
      }
      previous = id;
      data.readFully(record);
      long[] page = pages.page(id);
      for (int w = 0; w < PageStore.PAGE_WORDS; w++) {
        long v = 0;
        for (int b = 7; b >= 0; b--) {
          v = (v << 8) | (record[w * 8 + b] & 0xFF);
        }
        page[w] = v;
      }
    }
    int expected = (int) crc.getValue();
    byte[] tail = new byte[4];
    new DataInputStream(in).readFully(tail);
    int stored =
        (tail[0] & 0xFF) | (tail[1] & 0xFF) << 8 | (tail[2] & 0xFF) << 16 | (tail[3] & 0xFF) << 24;
    if (stored != expected) {
      throw new IOException(
          String.format(
              "filter file checksum mismatch (CRC32C %08x stored, %08x computed)",
              stored, expected));
    }
    return new Loaded(header, pages);
  }

  /**
   * Whether {@code pageId} is one of the pages the filter described by {@code header} addresses.
   */
  static boolean addresses(FilterHeader h, long pageId) {
    if (h.kind() == FilterSpec.Kind.AGED) {
      return pageId >= 0 && pageId < h.agedGeometry().pages();
    }
    if (h.kind() == FilterSpec.Kind.STABLE) {
      return pageId >= 0 && pageId < stablePages(h);
    }
    int slice = (int) (pageId >>> FilterHeader.SLICE_SHIFT);
    long page = pageId & ((1L << FilterHeader.SLICE_SHIFT) - 1);
    return slice < h.slices() && page < FilterMath.pagesForBlocks(h.sliceBlocks(slice));
  }

  static long stablePages(FilterHeader h) {
    StableMath.Geometry g = h.stableGeometry();
    return (g.blocks() * g.blockWords() + PageStore.PAGE_WORDS - 1) / PageStore.PAGE_WORDS;
  }

  /** Visits, in ascending order, the ids of the filter's pages that hold a non-zero word. */
  static void forEachNonZeroPage(FilterHeader h, PageStore pages, LongConsumer action) {
    if (h.kind() == FilterSpec.Kind.AGED) {
      visit(pages, 0, h.agedGeometry().pages(), action);
    } else if (h.kind() == FilterSpec.Kind.STABLE) {
      visit(pages, 0, stablePages(h), action);
    } else {
      for (int s = 0; s < h.slices(); s++) {
        visit(
            pages, FilterHeader.pageId(s, 0), FilterMath.pagesForBlocks(h.sliceBlocks(s)), action);
      }
    }
  }

  private static void visit(PageStore pages, long first, long count, LongConsumer action) {
    HeapPageStore heap = pages instanceof HeapPageStore hp ? hp : null;
    for (long i = 0; i < count; i++) {
      long id = first + i;
      if (heap != null && !heap.contains(id)) {
        continue;
      }
      long[] page = pages.page(id);
      for (long w : page) {
        if (w != 0) {
          action.accept(id);
          break;
        }
      }
    }
  }
}
