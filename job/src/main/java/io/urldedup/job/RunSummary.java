package io.urldedup.job;

import java.util.Map;
import java.util.TreeMap;

/**
 * The counts of a finished run, from the operators' accumulators ({@code urldedup.<name>}).
 * Invariant: {@code in = emitted + duplicates + invalid} (forced records count as emitted).
 */
public record RunSummary(
    long in,
    long emitted,
    long duplicates,
    long invalid,
    long forced,
    Map<String, Long> invalidByReason) {

  static final String PREFIX = "urldedup.";
  static final String REASON_PREFIX = PREFIX + "invalid_";

  public static RunSummary of(Map<String, Object> accumulators) {
    Map<String, Long> reasons = new TreeMap<>();
    for (Map.Entry<String, Object> e : accumulators.entrySet()) {
      if (e.getKey().startsWith(REASON_PREFIX)
          && e.getValue() instanceof Number n
          && n.longValue() != 0) {
        reasons.put(e.getKey().substring(REASON_PREFIX.length()), n.longValue());
      }
    }
    return new RunSummary(
        get(accumulators, "recordsIn"),
        get(accumulators, "emitted"),
        get(accumulators, "duplicates"),
        get(accumulators, "invalid"),
        get(accumulators, "forced"),
        reasons);
  }

  private static long get(Map<String, Object> acc, String name) {
    Object v = acc.get(PREFIX + name);
    return v instanceof Number n ? n.longValue() : 0;
  }

  public boolean balanced() {
    return in == emitted + duplicates + invalid;
  }

  String render(boolean deadLettersDropped) {
    StringBuilder b = new StringBuilder();
    b.append("urldedup: in=")
        .append(in)
        .append(" emitted=")
        .append(emitted)
        .append(" duplicates=")
        .append(duplicates)
        .append(" invalid=")
        .append(invalid)
        .append(" forced=")
        .append(forced)
        .append('\n');
    if (!invalidByReason.isEmpty()) {
      b.append("urldedup: invalid by reason:");
      invalidByReason.forEach((r, n) -> b.append(' ').append(r).append('=').append(n));
      b.append('\n');
    }
    if (invalid > 0 && deadLettersDropped) {
      b.append(
          "urldedup: dead letters were counted, not written (use --dlq PATH|- to keep them)\n");
    }
    if (!balanced()) {
      b.append("urldedup: warning: in != emitted + duplicates + invalid\n");
    }
    return b.toString();
  }
}
