package io.urldedup.operators.url;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads a JSON test resource into lists, maps, strings, booleans and null (jackson-core only). */
final class Json {

  private Json() {}

  static Object resource(String name) {
    try (InputStream in = Json.class.getResourceAsStream(name);
        JsonParser p = new JsonFactory().createParser(in)) {
      p.nextToken();
      return value(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Object value(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    switch (t) {
      case START_ARRAY:
        {
          List<Object> l = new ArrayList<>();
          while (p.nextToken() != JsonToken.END_ARRAY) {
            l.add(value(p));
          }
          return l;
        }
      case START_OBJECT:
        {
          Map<String, Object> m = new LinkedHashMap<>();
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String k = p.currentName();
            p.nextToken();
            m.put(k, value(p));
          }
          return m;
        }
      case VALUE_STRING:
        return p.getText();
      case VALUE_TRUE:
        return true;
      case VALUE_FALSE:
        return false;
      case VALUE_NULL:
        return null;
      default:
        return p.getText();
    }
  }
}
