package io.urldedup.operators;

import java.io.IOException;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * The wire pieces shared by the record serializers (format version 1).
 *
 * <pre>
 *   bytes   := int32 length (-1 = null) , length bytes
 *   string  := Flink StringValue encoding (null-capable, no 64 KiB limit)
 *   headers := int32 count , count x (string name , bytes value)
 *   varint  := unsigned LEB128 of an int32 (7 bits a byte, low first; 1 byte below 128)
 * </pre>
 */
final class RecordIO {

  /** The largest length a record's field may claim (Kafka's records are far smaller). */
  static final int MAX_LENGTH = 1 << 30;

  private RecordIO() {}

  static void writeBytes(byte[] b, DataOutputView out) throws IOException {
    if (b == null) {
      out.writeInt(-1);
    } else {
      out.writeInt(b.length);
      out.write(b);
    }
  }

  static byte[] readBytes(DataInputView in) throws IOException {
    int n = in.readInt();
    if (n < -1) {
      throw new IOException("corrupt record: negative length " + n);
    }
    if (n == -1) {
      return null;
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }

  static void copyBytes(DataInputView in, DataOutputView out) throws IOException {
    int n = in.readInt();
    out.writeInt(n);
    if (n > 0) {
      out.write(in, n);
    }
  }

  static void writeVarInt(int v, DataOutputView out) throws IOException {
    while ((v & ~0x7F) != 0) {
      out.writeByte((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    out.writeByte(v);
  }

  static int readVarInt(DataInputView in) throws IOException {
    int v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = in.readUnsignedByte();
      v |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
    throw new IOException("corrupt record: varint longer than 5 bytes");
  }

  static void copyVarInt(DataInputView in, DataOutputView out) throws IOException {
    int b;
    int n = 0;
    do {
      if (++n > 5) {
        throw new IOException("corrupt record: varint longer than 5 bytes");
      }
      b = in.readUnsignedByte();
      out.writeByte(b);
    } while ((b & 0x80) != 0);
  }

  static void writeString(String s, DataOutputView out) throws IOException {
    StringValue.writeString(s, out);
  }

  static String readString(DataInputView in) throws IOException {
    return StringValue.readString(in);
  }

  static void copyString(DataInputView in, DataOutputView out) throws IOException {
    StringValue.copyString(in, out);
  }

  static void writeHeaders(RecordHeaders h, DataOutputView out) throws IOException {
    if (h == null) {
      h = RecordHeaders.EMPTY;
    }
    int n = h.size();
    out.writeInt(n);
    for (int i = 0; i < n; i++) {
      writeString(h.name(i), out);
      writeBytes(h.value(i), out);
    }
  }

  static RecordHeaders readHeaders(DataInputView in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      throw new IOException("corrupt record: negative header count " + n);
    }
    if (n == 0) {
      return RecordHeaders.EMPTY;
    }
    String[] names = new String[n];
    byte[][] values = new byte[n][];
    for (int i = 0; i < n; i++) {
      names[i] = readString(in);
      if (names[i] == null) {
        throw new IOException("corrupt record: null header name");
      }
      values[i] = readBytes(in);
    }
    return RecordHeaders.wrap(names, values);
  }

  static void copyHeaders(DataInputView in, DataOutputView out) throws IOException {
    int n = in.readInt();
    out.writeInt(n);
    for (int i = 0; i < n; i++) {
      copyString(in, out);
      copyBytes(in, out);
    }
  }

  /**
   * Headers in {@link UrlRecordSerializer} v3: varint count, count x (name as {@link HeaderNames}
   * writes it, bytes value).
   */
  static void writeHeadersV3(RecordHeaders h, DataOutputView out) throws IOException {
    if (h == null) {
      h = RecordHeaders.EMPTY;
    }
    int n = h.size();
    writeVarInt(n, out);
    for (int i = 0; i < n; i++) {
      HeaderNames.write(h.name(i), out);
      writeBytes(h.value(i), out);
    }
  }

  static RecordHeaders readHeadersV3(DataInputView in) throws IOException {
    int n = readVarInt(in);
    if (n < 0 || n > MAX_LENGTH) {
      throw new IOException("corrupt record: header count " + n);
    }
    if (n == 0) {
      return RecordHeaders.EMPTY;
    }
    String[] names = new String[n];
    byte[][] values = new byte[n][];
    for (int i = 0; i < n; i++) {
      names[i] = HeaderNames.read(in);
      values[i] = readBytes(in);
    }
    return RecordHeaders.wrap(names, values);
  }

  static void copyHeadersV3(DataInputView in, DataOutputView out) throws IOException {
    int n = readVarInt(in);
    writeVarInt(n, out);
    for (int i = 0; i < n; i++) {
      HeaderNames.copy(in, out);
      copyBytes(in, out);
    }
  }

  static byte[] clone(byte[] b) {
    return b == null ? null : b.clone();
  }
}
