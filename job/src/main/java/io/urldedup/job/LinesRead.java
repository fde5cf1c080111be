package io.urldedup.job;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which lines of its input an embedded run's readers got through, per range ({@link LineRanges}):
 * when a stop signal ends a file read as parallel byte ranges, the lines read are not the first N
 * but a prefix of each range begun, and the stop message says which. Kept by run (a {@link
 * LineFileSource}'s token) in this JVM, which is the driver's: the embedded mode's cluster runs in
 * the driver's process, as {@link HoldAtEndSource}'s signal does.
 */
final class LinesRead {

  /** By run token, by range index: {first line, end line} (0-based, end exclusive). */
  private static final Map<String, Map<Integer, long[]>> RUNS = new ConcurrentHashMap<>();

  private LinesRead() {}

  /**
   * A reader opened range {@code index} at line {@code first} (after a restore within the run,
   * later than where the range began: the earlier start is kept).
   */
  static void opened(String run, int index, long first) {
    RUNS.computeIfAbsent(run, r -> new ConcurrentHashMap<>())
        .merge(
            index,
            new long[] {first, first},
            (was, now) -> new long[] {Math.min(was[0], first), was[1]});
  }

  /**
   * The reader of range {@code index} finished it (its end, or a stop signal) at line {@code end}.
   */
  static void reached(String run, int index, long end) {
    RUNS.computeIfAbsent(run, r -> new ConcurrentHashMap<>())
        .merge(
            index, new long[] {end, end}, (was, now) -> new long[] {was[0], Math.max(was[1], end)});
  }

  /** The spans read ({first, end}, none empty) in file order; forgets the run. */
  static List<long[]> take(String run) {
    Map<Integer, long[]> ranges = RUNS.remove(run);
    List<long[]> spans = new ArrayList<>();
    if (ranges != null) {
      for (long[] s : ranges.values()) {
        if (s[1] > s[0]) {
          spans.add(s);
        }
      }
    }
    spans.sort(Comparator.comparingLong(s -> s[0]));
    return spans;
  }

  /**
   * The stop message's tail: {@code after N lines} when they are the input's first N, else which
   * lines, 1-based as origins count ({@code after 41000 lines, read as parallel byte ranges: lines
   * 1-17600, 100001-123400}).
   */
  static String describe(List<long[]> spans, long in) {
    if (spans.isEmpty() || (spans.size() == 1 && spans.get(0)[0] == 0)) {
      return "after " + in + " lines";
    }
    StringBuilder b =
        new StringBuilder("after ")
            .append(in)
            .append(" lines, read as parallel byte ranges: lines ");
    for (int i = 0; i < spans.size(); i++) {
      b.append(i == 0 ? "" : ", ").append(spans.get(i)[0] + 1).append('-').append(spans.get(i)[1]);
    }
    return b.toString();
  }
}
