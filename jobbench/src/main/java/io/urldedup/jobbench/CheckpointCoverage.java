package io.urldedup.jobbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;

/** What each completed checkpoint of a benchmark run covered: lines, unique URLs and bytes. */
final class CheckpointCoverage {

  private CheckpointCoverage() {}

  /**
   * Every completed checkpoint as {@code
   * id:linesCovered:uniquesCovered:stateSize:checkpointedSize}; the final one (the whole stream);
   * and the mean and max bytes per unique URL over those covering at least half the stream (an
   * incremental RocksDB checkpoint also references stale versions until compaction, so its size
   * swings between checkpoints).
   */
  static void put(Map<String, Object> r, TruthBits truth, CheckpointStatsSnapshot stats) {
    long covered = covered(r, truth);
    List<AbstractCheckpointStats> done = new ArrayList<>();
    for (AbstractCheckpointStats s : stats.getHistory().getCheckpoints()) {
      if (s.getStatus() == CheckpointStatsStatus.COMPLETED) {
        done.add(s);
      }
    }
    done.sort((a, b) -> Long.compare(a.getCheckpointId(), b.getCheckpointId()));
    StringBuilder all = new StringBuilder();
    AbstractCheckpointStats last = null;
    long lastLines = 0;
    long lastUniques = 0;
    double max = 0;
    double sum = 0;
    int half = 0;
    for (AbstractCheckpointStats s : done) {
      // the lines read before the barrier: each reader's range [first, next); one reader: a prefix
      List<long[]> ranges = BenchProbe.rangesAtCheckpoint.get(s.getCheckpointId());
      long l = 0;
      long u = 0;
      if (ranges == null) {
        l = covered;
        u = truth.uniquesBefore(l);
      } else {
        synchronized (ranges) {
          for (long[] range : ranges) {
            l += range[1] - range[0];
            u += truth.uniquesIn(range[0], range[1]);
          }
        }
      }
      all.append(s.getCheckpointId())
          .append(':')
          .append(l)
          .append(':')
          .append(u)
          .append(':')
          .append(s.getStateSize())
          .append(':')
          .append(s.getCheckpointedSize())
          .append(' ');
      if (l >= lastLines) {
        last = s;
        lastLines = l;
        lastUniques = u;
      }
      if (2 * l >= covered(r, truth) && u > 0) {
        double b = (double) s.getStateSize() / u;
        max = Math.max(max, b);
        sum += b;
        half++;
      }
    }
    r.put("checkpointsCompleted", done.size());
    r.put("checkpoints", all.toString().trim());
    if (last != null) {
      long u = lastUniques;
      r.put("ckptId", last.getCheckpointId());
      r.put("ckptLines", lastLines);
      r.put("ckptUniques", u);
      r.put("ckptStateBytes", last.getStateSize());
      r.put("ckptIncrementalBytes", last.getCheckpointedSize());
      r.put(
          "ckptBytesPerUnique",
          String.format(Locale.ROOT, "%.3f", u == 0 ? 0.0 : (double) last.getStateSize() / u));
    }
    if (half > 0) {
      r.put("ckptSecondHalfCount", half);
      r.put("ckptSecondHalfMeanBytesPerUnique", String.format(Locale.ROOT, "%.3f", sum / half));
      r.put("ckptSecondHalfMaxBytesPerUnique", String.format(Locale.ROOT, "%.3f", max));
    }
  }

  static long covered(Map<String, Object> r, TruthBits truth) {
    return r.containsKey("partialLines") ? (Long) r.get("partialLines") : truth.lines;
  }
}
