package io.urldedup.stateops.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The one JSON writer of the commands' documents ({@code plan --json}, {@code inspect --json}): a
 * tree of insertion-ordered maps, iterables, {@code double[]} and scalars (strings, numbers,
 * booleans, null) in Jackson's default pretty print, keys in the maps' order. Scripts parse these
 * documents, so both commands print numbers alike (doubles as {@link Double#toString}).
 */
public final class JsonWriter {

  private static final JsonFactory FACTORY = new JsonFactory();

  private JsonWriter() {}

  /** The document and a final newline. */
  public static String write(Map<String, ?> tree) {
    StringWriter w = new StringWriter();
    try (JsonGenerator g = FACTORY.createGenerator(w)) {
      g.useDefaultPrettyPrinter();
      value(g, tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return w + "\n";
  }

  private static void value(JsonGenerator g, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (v instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeFieldName((String) e.getKey());
        value(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof Iterable<?> items) {
      g.writeStartArray();
      for (Object item : items) {
        value(g, item);
      }
      g.writeEndArray();
    } else if (v instanceof double[] a) {
      g.writeStartArray();
      for (double d : a) {
        g.writeNumber(d);
      }
      g.writeEndArray();
    } else if (v instanceof String s) {
      g.writeString(s);
    } else if (v instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      g.writeNumber(((Number) v).intValue());
    } else if (v instanceof Long l) {
      g.writeNumber(l);
    } else if (v instanceof Double d) {
      g.writeNumber(d);
    } else if (v instanceof Float f) {
      g.writeNumber(f);
    } else {
      throw new IllegalArgumentException("not a JSON value: " + v.getClass().getName());
    }
  }
}
