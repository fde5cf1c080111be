package io.urldedup.operators;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The headers of a record, in order, names repeatable, values nullable (as Kafka allows).
 *
 * <p>Immutable: the arrays are copied on construction, and {@link #value(int)} hands out the stored
 * array, which callers must not modify. This lets records share one instance on copy.
 */
public final class RecordHeaders {

  public static final RecordHeaders EMPTY = new RecordHeaders(new String[0], new byte[0][]);

  private final String[] names;
  private final byte[][] values;

  private RecordHeaders(String[] names, byte[][] values) {
    this.names = names;
    this.values = values;
  }

  /** Headers from parallel arrays; a null or empty {@code names} gives {@link #EMPTY}. */
  public static RecordHeaders of(String[] names, byte[][] values) {
    if (names == null || names.length == 0) {
      return EMPTY;
    }
    if (values == null || values.length != names.length) {
      throw new IllegalArgumentException("headers: names and values differ in length");
    }
    String[] n = names.clone();
    byte[][] v = new byte[values.length][];
    for (int i = 0; i < n.length; i++) {
      if (n[i] == null) {
        throw new IllegalArgumentException("headers: null name at " + i);
      }
      v[i] = values[i] == null ? null : values[i].clone();
    }
    return new RecordHeaders(n, v);
  }

  /**
   * Headers over arrays nobody else holds or modifies (a deserializer's fresh arrays, a consumed
   * Kafka record's header values): not copied, where {@link #of} copies the arrays and every value
   * once more, per record.
   */
  public static RecordHeaders wrap(String[] names, byte[][] values) {
    return names.length == 0 ? EMPTY : new RecordHeaders(names, values);
  }

  /** One header. */
  public static RecordHeaders of(String name, byte[] value) {
    return of(new String[] {name}, new byte[][] {value});
  }

  public int size() {
    return names.length;
  }

  public String name(int i) {
    return names[i];
  }

  /** The stored value (may be null); do not modify it. */
  public byte[] value(int i) {
    return values[i];
  }

  /** The value of the last header with this name, or null. */
  public byte[] lastValue(String name) {
    for (int i = names.length - 1; i >= 0; i--) {
      if (names[i].equals(name)) {
        return values[i];
      }
    }
    return null;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof RecordHeaders)) {
      return false;
    }
    RecordHeaders h = (RecordHeaders) o;
    return Arrays.equals(names, h.names) && Arrays.deepEquals(values, h.values);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(names) + Arrays.deepHashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        b.append(", ");
      }
      b.append(names[i]).append('=');
      b.append(values[i] == null ? "null" : new String(values[i], StandardCharsets.UTF_8));
    }
    return b.append(']').toString();
  }
}
