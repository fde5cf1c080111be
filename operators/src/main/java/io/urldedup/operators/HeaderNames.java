package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;

/**
 * Header names on the wire of {@link UrlRecordSerializer} v3: varint length, UTF-8 bytes. A
 * record's header names are nearly always the same few (a crawler sets the same headers on every
 * link), so a name of up to 16 bytes is read into two longs and looked up in a small table of the
 * names seen before: no String, no array, no thread-local buffer per record. Flink's {@code
 * StringValue} (format v1 and v2) wrote and read a varint per char through a thread-local buffer:
 * 12% of each task thread in the job benchmark, whose records carry one header.
 *
 * <p>The table is shared by all threads: its entries are immutable, so a racing update only costs a
 * miss.
 */
final class HeaderNames {

  private static final int SLOTS = 64;
  private static final int PACKED_MAX = 16;
  private static final Entry[] TABLE = new Entry[SLOTS];

  private static final class Entry {
    final long lo;
    final long hi;
    final int length;
    final String name;

    Entry(long lo, long hi, int length, String name) {
      this.lo = lo;
      this.hi = hi;
      this.length = length;
      this.name = name;
    }
  }

  private HeaderNames() {}

  static void write(String name, DataOutputView out) throws IOException {
    int n = name.length();
    boolean ascii = true;
    for (int i = 0; i < n && ascii; i++) {
      ascii = name.charAt(i) < 0x80;
    }
    if (ascii) {
      RecordIO.writeVarInt(n, out);
      // not out.writeBytes(name): Flink 2.2's DataOutputSerializer.writeBytes(String) advances its
      // position twice (once per writeByte, then by the length again)
      for (int i = 0; i < n; i++) {
        out.writeByte(name.charAt(i));
      }
    } else {
      byte[] b = name.getBytes(UTF_8);
      RecordIO.writeVarInt(b.length, out);
      out.write(b);
    }
  }

  static String read(DataInputView in) throws IOException {
    int n = RecordIO.readVarInt(in);
    if (n < 0 || n > RecordIO.MAX_LENGTH) {
      throw new IOException("corrupt record: header name length " + n);
    }
    if (n > PACKED_MAX) {
      byte[] b = new byte[n];
      in.readFully(b);
      return new String(b, UTF_8);
    }
    long lo = 0;
    long hi = 0;
    for (int i = 0; i < n; i++) {
      long c = in.readUnsignedByte();
      if (i < 8) {
        lo |= c << (8 * i);
      } else {
        hi |= c << (8 * (i - 8));
      }
    }
    int slot = (int) (mix(lo ^ Long.rotateLeft(hi, 29) ^ n) & (SLOTS - 1));
    Entry e = TABLE[slot];
    if (e != null && e.lo == lo && e.hi == hi && e.length == n) {
      return e.name;
    }
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i < 8 ? lo >>> (8 * i) : hi >>> (8 * (i - 8)));
    }
    String name = new String(b, UTF_8);
    TABLE[slot] = new Entry(lo, hi, n, name);
    return name;
  }

  static void copy(DataInputView in, DataOutputView out) throws IOException {
    int n = RecordIO.readVarInt(in);
    if (n < 0 || n > RecordIO.MAX_LENGTH) {
      throw new IOException("corrupt record: header name length " + n);
    }
    RecordIO.writeVarInt(n, out);
    out.write(in, n);
  }

  /** Murmur3's 64-bit finalizer. */
  private static long mix(long x) {
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    x *= 0xc4ceb93e62a4a94dL;
    return x ^ (x >>> 33);
  }
}
