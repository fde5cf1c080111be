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
 * </pre>
 */
final class RecordIO {

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
      values[i] = readBytes(in);
    }
    return RecordHeaders.of(names, values);
  }

  static void copyHeaders(DataInputView in, DataOutputView out) throws IOException {
    int n = in.readInt();
    out.writeInt(n);
    for (int i = 0; i < n; i++) {
      copyString(in, out);
      copyBytes(in, out);
    }
  }

  static byte[] clone(byte[] b) {
    return b == null ? null : b.clone();
  }
}
