package io.urldedup.operators;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.time.DateTimeException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The event time of a JSON record: its top-level field {@code ts}, epoch milliseconds (an integer)
 * or an ISO-8601 date-time with an offset ({@code "2026-01-01T00:00:00Z"}, {@code
 * "2026-01-01T01:00:00.250+01:00"}). The embedded mode's event time for aged filters ({@code --time
 * event}); a record without a valid one is a dead letter {@link RejectReason#BAD_TIMESTAMP} (it
 * cannot be placed in time: guessing one, e.g. the processing time, would mix two clocks in one
 * shard and age URLs by the wrong one).
 *
 * <p>Accepted range: 0 (1970) to {@link #MAX_MILLIS} (year 9999). Not thread-safe (a parser factory
 * per instance).
 */
public final class JsonTimestamp {

  /** The field name. */
  public static final String FIELD = "ts";

  /** 9999-12-31T23:59:59.999Z. */
  public static final long MAX_MILLIS = 253_402_300_799_999L;

  private final JsonFactory json =
      JsonFactory.builder().disable(JsonFactory.Feature.INTERN_FIELD_NAMES).build();

  /**
   * The record's event time in epoch milliseconds; rejects a missing, duplicate or malformed {@code
   * ts}.
   */
  public long parse(byte[] value) throws UrlRejectedException {
    if (value == null) {
      throw reject("no value");
    }
    long ts = Long.MIN_VALUE;
    int count = 0;
    try (JsonParser p = json.createParser(value)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw reject("not a JSON object");
      }
      JsonToken t;
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (FIELD.equals(name)) {
          count++;
          ts = value(p, v);
        }
        p.skipChildren();
      }
    } catch (IOException e) {
      throw reject("not well-formed JSON");
    }
    if (count == 0) {
      throw reject("no top-level field 'ts' (epoch milliseconds or an ISO-8601 date-time)");
    }
    if (count > 1) {
      throw reject("field 'ts' appears more than once");
    }
    return ts;
  }

  private static long value(JsonParser p, JsonToken v) throws IOException, UrlRejectedException {
    if (v == JsonToken.VALUE_NUMBER_INT) {
      if (p.getNumberType() != JsonParser.NumberType.INT
          && p.getNumberType() != JsonParser.NumberType.LONG) {
        throw reject("field 'ts' is out of range: " + clip(p.getText()));
      }
      return inRange(p.getLongValue(), p.getText());
    }
    if (v == JsonToken.VALUE_STRING) {
      String s = p.getText();
      try {
        return inRange(
            OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME)
                .toInstant()
                .toEpochMilli(),
            s);
      } catch (DateTimeException | ArithmeticException e) {
        throw reject(
            "field 'ts' is not an ISO-8601 date-time with an offset (e.g. 2026-01-01T00:00:00Z): "
                + clip(s));
      }
    }
    throw reject(
        "field 'ts' is "
            + (v == JsonToken.VALUE_NUMBER_FLOAT ? "a fraction" : "not a number or a string")
            + "; expected epoch milliseconds (an integer) or an ISO-8601 date-time");
  }

  private static long inRange(long millis, String text) throws UrlRejectedException {
    if (millis < 0 || millis > MAX_MILLIS) {
      throw reject("field 'ts' " + clip(text) + " is outside 1970..9999");
    }
    return millis;
  }

  private static UrlRejectedException reject(String detail) {
    return new UrlRejectedException(RejectReason.BAD_TIMESTAMP, detail);
  }

  private static String clip(String s) {
    return s.length() <= 60 ? s : s.substring(0, 60) + "...";
  }
}
