package io.urldedup.job;

import io.urldedup.state.ByteSize;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The cluster a dedup job needs for a filter of {@code filterBytes} at {@code rate} records per
 * second ({@code plan --rate}), and what its checkpoints and restores then cost. docs/capacity.md
 * derives each figure; the per-slot rates are this project's measurements, named below.
 *
 * <p>Worst case throughout: every record is taken as a new URL (an insert, 16 bytes of insert log).
 * A crawl stream repeats most links, so its checkpoints carry less; its records/s still cost a
 * slot's CPU each.
 *
 * <ul>
 *   <li>slots: enough for the rate ({@link #RECORDS_PER_SLOT}) and for the filter's pages to stay
 *       in the page caches ({@link #CACHE_PER_SLOT}); at most the job's max parallelism.
 *   <li>checkpoint bytes per interval, mean: {@code 16 B x rate x interval + filterBytes / N} (the
 *       insert log of the interval, and one N-th of the filter materialized per interval on
 *       average: every N-th checkpoint writes the shards changed since the last one).
 *   <li>restore: download the last materialized pages and at most N intervals of log over the
 *       TaskManagers ({@link #DOWNLOAD_PER_TM} each), then replay at most N intervals of inserts
 *       over the slots ({@link #REPLAY_PER_SLOT} each).
 * </ul>
 */
record ClusterShape(
    double rate,
    long filterBytes,
    int materializeEvery,
    double intervalSeconds,
    int slots,
    int taskManagers,
    long cachePerSlot,
    double checkpointBytesMean,
    double logBytesMax,
    double restoreSeconds) {

  /**
   * Records per second one slot (one core) takes in Kafka mode: 1 / the TaskManager's CPU per
   * record, 3.65 us for scalable in docs/benchmarks-job.md (kafka-bench.sh, one TaskManager of 2
   * slots, on a loaded machine), rounded down.
   */
  static final double RECORDS_PER_SLOT = 250_000;

  /**
   * Logged inserts one slot replays per second on restore: an insert without the URL's parsing, one
   * at a time, out of cache (docs/benchmarks.md: 585 ns per blocked insert into 256 MiB, hash
   * included), rounded down.
   */
  static final double REPLAY_PER_SLOT = 1_500_000;

  /**
   * Bytes per second one TaskManager downloads its state with: not measured here (local disk only);
   * a conservative figure for object storage with Flink's 4 transfer threads per TaskManager.
   * docs/capacity.md scales the restore times for other figures.
   */
  static final double DOWNLOAD_PER_TM = 200e6;

  static final int SLOTS_PER_TM = 4;

  /**
   * Page cache (managed memory) per slot: the filter's pages stay in memory up to this much per
   * slot.
   */
  static final long CACHE_PER_SLOT = 8L << 30;

  /** Heap, framework and RocksDB overhead per slot on top of its cache. */
  static final long OVERHEAD_PER_SLOT = 2L << 30;

  static final int LOG_BYTES_PER_INSERT = 16;

  static ClusterShape of(
      double rate,
      long filterBytes,
      int materializeEvery,
      double intervalSeconds,
      int maxParallelism) {
    int forRate = (int) Math.ceil(rate / RECORDS_PER_SLOT);
    int forMemory = (int) Math.ceil((double) filterBytes / CACHE_PER_SLOT);
    int slots = Math.max(1, Math.min(maxParallelism, Math.max(forRate, forMemory)));
    int tms = (slots + SLOTS_PER_TM - 1) / SLOTS_PER_TM;
    long cache = Math.min(CACHE_PER_SLOT, (filterBytes + slots - 1) / slots);
    double logPerInterval = (double) LOG_BYTES_PER_INSERT * rate * intervalSeconds;
    // N = 1 logs nothing: every checkpoint writes every changed page, which is every page, and
    // RocksDB's compaction of them is uploaded too: 2x the filter (docs/benchmarks-job.md)
    double mean =
        materializeEvery == 1
            ? 2.0 * filterBytes
            : logPerInterval + (double) filterBytes / materializeEvery;
    double logMax = materializeEvery == 1 ? 0 : logPerInterval * materializeEvery;
    double download = (filterBytes + logMax) / (tms * DOWNLOAD_PER_TM);
    double replay = logMax / LOG_BYTES_PER_INSERT / (slots * REPLAY_PER_SLOT);
    return new ClusterShape(
        rate,
        filterBytes,
        materializeEvery,
        intervalSeconds,
        slots,
        tms,
        cache,
        mean,
        logMax,
        download + replay);
  }

  /** Slots the rate alone needs; more than the max parallelism means more shards. */
  int slotsForRate() {
    return (int) Math.ceil(rate / RECORDS_PER_SLOT);
  }

  long memoryPerTaskManager() {
    return (long) Math.min(slots, SLOTS_PER_TM) * (cachePerSlot + OVERHEAD_PER_SLOT);
  }

  String render() {
    StringBuilder b =
        new StringBuilder("\nCluster shape at --rate ")
            .append(String.format(Locale.ROOT, "%,.0f", rate))
            .append(" records/s (each taken as a new URL)\n");
    b.append("  slots:            ")
        .append(slots)
        .append(" (")
        .append(slotsForRate())
        .append(" for the rate at ")
        .append(String.format(Locale.ROOT, "%,.0f", RECORDS_PER_SLOT))
        .append(" records/s per slot; ")
        .append(ByteSize.format(filterBytes))
        .append(" of filter in caches of at most ")
        .append(ByteSize.format(CACHE_PER_SLOT))
        .append(" per slot)\n");
    if (slotsForRate() > slots) {
      b.append("  warning:          the rate needs ")
          .append(slotsForRate())
          .append(" slots, more than the max parallelism: raise --shards\n");
    }
    b.append("  TaskManagers:     ")
        .append(taskManagers)
        .append(" x ")
        .append(Math.min(slots, SLOTS_PER_TM))
        .append(" slots, about ")
        .append(ByteSize.format(memoryPerTaskManager()))
        .append(" each (")
        .append(ByteSize.format(cachePerSlot))
        .append(" page cache per slot)\n");
    if (materializeEvery == 1) {
      b.append(
          String.format(
              Locale.ROOT,
              "  checkpoints:      %s/s mean (%s per %.0f s interval: every page,"
                  + " and RocksDB's compaction of them; --materialize-every N logs the inserts instead)%n",
              bytes(checkpointBytesMean / intervalSeconds),
              bytes(checkpointBytesMean),
              intervalSeconds));
    } else {
      b.append(
          String.format(
              Locale.ROOT,
              "  checkpoints:      %s/s mean (%s per %.0f s interval: %s of"
                  + " insert log + 1/%d of the filter)%n",
              bytes(checkpointBytesMean / intervalSeconds),
              bytes(checkpointBytesMean),
              intervalSeconds,
              bytes(LOG_BYTES_PER_INSERT * rate * intervalSeconds),
              materializeEvery));
    }
    if (materializeEvery == 1) {
      b.append(
          String.format(
              Locale.ROOT,
              "  restore:          about %.0f s (download the filter at %s/s per TaskManager)%n",
              restoreSeconds,
              bytes(DOWNLOAD_PER_TM)));
    } else {
      b.append(
          String.format(
              Locale.ROOT,
              "  restore:          at most %.0f s (download the filter and up to %s of"
                  + " log at %s/s per TaskManager, replay up to %,.0f inserts at %,.0f/s per slot)%n",
              restoreSeconds,
              bytes(logBytesMax),
              bytes(DOWNLOAD_PER_TM),
              logBytesMax / LOG_BYTES_PER_INSERT,
              REPLAY_PER_SLOT));
    }
    return b.toString();
  }

  /** The model's bytes are fractional; they print like every other size. */
  private static String bytes(double bytes) {
    return ByteSize.format(Math.round(bytes));
  }

  /** For {@code plan --json}: the {@code cluster} object (see docs/plan-json.md). */
  Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rate", rate);
    m.put("slots", slots);
    m.put("slotsForRate", slotsForRate());
    m.put("taskManagers", taskManagers);
    m.put("slotsPerTaskManager", Math.min(slots, SLOTS_PER_TM));
    m.put("cacheBytesPerSlot", cachePerSlot);
    m.put("memoryBytesPerTaskManager", memoryPerTaskManager());
    m.put("checkpointBytesPerIntervalMean", Math.round(checkpointBytesMean));
    m.put("checkpointBytesPerSecondMean", Math.round(checkpointBytesMean / intervalSeconds));
    m.put("logBytesMax", Math.round(logBytesMax));
    m.put("restoreSecondsMax", Math.round(restoreSeconds * 10) / 10.0);
    return m;
  }
}
