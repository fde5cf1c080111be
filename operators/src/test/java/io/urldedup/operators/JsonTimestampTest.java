package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonTimestampTest {

  static long parse(String json) throws UrlRejectedException {
    return new JsonTimestamp().parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"url\":\"x\",\"ts\":1767225600000}|1767225600000",
        "{\"ts\":\"2026-01-01T00:00:00Z\",\"url\":\"x\"}|1767225600000",
        "{\"ts\":\"2026-01-01T01:00:00.250+01:00\"}|1767225600250",
        "{\"a\":{\"ts\":5},\"ts\":0}|0",
        "{\"ts\":253402300799999}|253402300799999"
      })
  void acceptsEpochMillisAndIso8601(String json, long expected) throws Exception {
    assertEquals(expected, parse(json));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"url\":\"x\"}|no top-level field 'ts'",
        "{\"ts\":1,\"ts\":2}|more than once",
        "{\"ts\":1.5}|fraction",
        "{\"ts\":\"2026-01-01T00:00:00\"}|ISO-8601",
        "{\"ts\":\"yesterday\"}|ISO-8601",
        "{\"ts\":true}|not a number or a string",
        "{\"ts\":-1}|outside 1970..9999",
        "{\"ts\":99999999999999999999}|out of range",
        "[1]|not a JSON object",
        "{\"ts\":|not well-formed"
      })
  void rejectsNamingTheProblem(String json, String detail) {
    UrlRejectedException e = assertThrows(UrlRejectedException.class, () -> parse(json));
    assertEquals(RejectReason.BAD_TIMESTAMP, e.reason());
    assertTrue(e.detail().contains(detail), e.detail());
  }

  @Test
  void theAssignerStampsInvalidRecordsWithNoTimestamp() {
    JsonTimestampAssigner a = new JsonTimestampAssigner();
    assertEquals(
        7,
        a.extractTimestamp(
            new RawRecord(null, "{\"ts\":7}".getBytes(StandardCharsets.UTF_8), null, "t"), 0));
    assertEquals(
        JsonTimestampAssigner.NO_TIMESTAMP,
        a.extractTimestamp(
            new RawRecord(null, "{\"url\":1}".getBytes(StandardCharsets.UTF_8), null, "t"), 0));
  }
}
