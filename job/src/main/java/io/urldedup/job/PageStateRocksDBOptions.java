package io.urldedup.job;

import java.util.Collection;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.state.rocksdb.ConfigurableRocksDBOptionsFactory;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;

/**
 * The job's RocksDB options, set by {@link JobEnvironment} whenever {@code --state-backend
 * rocksdb}: compact L0 into L1 after every memtable flush ({@code
 * level0_file_num_compaction_trigger = 1}; RocksDB's default is 4).
 *
 * <p>Why: the job's keyed state is filter pages, and between two checkpoints a Bloom filter's
 * writes reach nearly every page, so each checkpoint's flush makes an L0 file holding a new version
 * of most pages. An incremental checkpoint references every live SST file, so with the default
 * trigger it carries up to four stale copies of the filter besides the current one. Measured
 * (docs/benchmarks-job.md, scalable on RocksDB, 10^6 records): 5.97 -> 3.20 checkpoint bytes per
 * unique URL (mean over the second half of the stream).
 *
 * <p>The price: each flush triggers a compaction that rewrites L1, i.e. the whole filter, once per
 * checkpoint interval, on RocksDB's background threads (for a 16 MiB filter a fraction of a second
 * of CPU every 10 s; it grows with the filter and falls with a longer interval). Filter pages are
 * few and rewritten anyway; state whose keys are written once (an exact {@code ValueState} per URL)
 * would rather keep the default, since it would rewrite its large L1 at every checkpoint for no
 * gain.
 *
 * <p>With insert logs ({@code --materialize-every N} above 1) the opposite: a checkpoint between
 * epochs writes only log chunks, one small L0 file, and a compaction then would merge them into a
 * log L1 that grows until the next epoch and is uploaded whole each time. The operator compacts the
 * filter's state itself once per epoch, after a round has written the changed pages ({@code
 * StateCompactor}), so the automatic trigger is set above the L0 files that can wait for it: the
 * log's, at least one flush per checkpoint and a few more, 2N + 4, plus a round's pages, up to
 * {@link #ROUND_FILES} memtables. Measured at 7 x 10^8 URLs (docs/scale/README.md): a 1.6 GB round
 * of pages flushed 25 memtables, passed the earlier trigger of 2N + 4 = 24, and RocksDB compacted
 * the filter on its own in the middle of the round, on top of the operator's compaction. The write
 * slowdown and stop triggers (RocksDB's 20 and 36) are at least 2x and 4x the trigger, so that the
 * files waiting for the epoch never throttle writes.
 *
 * <p>RocksDB also compacts L0 when its bytes pass {@code max_bytes_for_level_base} (256 MiB by
 * default), whatever the file count. Measured at 10^8 URLs, unthrottled: 70-110 MB of log per
 * interval passed it every 3 to 4 checkpoints, and each time the checkpoint re-uploaded the whole
 * state (380 MB at a 410 MB state). It is raised to {@link #ROUND_FILES} memtables as well.
 *
 * <p>Compression is off with logs: filter pages and logged 64-bit hashes are random bits that no
 * compressor shrinks, and Snappy (Flink's default, {@code
 * state.backend.rocksdb.compression.per.level}) would try on every block of every flush and
 * compaction.
 */
public final class PageStateRocksDBOptions implements ConfigurableRocksDBOptionsFactory {

  private static final long serialVersionUID = 2L;

  /**
   * RocksDB's {@code level0_file_num_compaction_trigger} for the filter pages without insert logs.
   */
  public static final int L0_COMPACTION_TRIGGER = 1;

  /** The job's {@code --materialize-every}, set by {@link JobEnvironment} for this factory. */
  public static final ConfigOption<Integer> MATERIALIZE_EVERY =
      ConfigOptions.key("urldedup.materialize-every")
          .intType()
          .defaultValue(1)
          .withDescription("the job's --materialize-every");

  private int materializeEvery = 1;

  @Override
  public RocksDBOptionsFactory configure(ReadableConfig configuration) {
    materializeEvery = configuration.get(MATERIALIZE_EVERY);
    return this;
  }

  /**
   * Memtables of pages one round may flush before the operator compacts them: 8 GiB of pages at
   * RocksDB's 64 MiB write buffer, the page cache one slot has in the capacity model
   * (docs/capacity.md).
   */
  static final int ROUND_FILES = 128;

  /** RocksDB's and Flink's default write buffer (memtable) size. */
  static final long WRITE_BUFFER_BYTES = 64L << 20;

  /** The automatic L0 compaction trigger: 1 without logs, 2N + 4 + {@link #ROUND_FILES} with. */
  int compactionTrigger() {
    return materializeEvery == 1 ? L0_COMPACTION_TRIGGER : 2 * materializeEvery + 4 + ROUND_FILES;
  }

  @Override
  public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handlesToClose) {
    return current;
  }

  @Override
  public ColumnFamilyOptions createColumnOptions(
      ColumnFamilyOptions current, Collection<AutoCloseable> handlesToClose) {
    int trigger = compactionTrigger();
    current.setLevel0FileNumCompactionTrigger(trigger);
    if (materializeEvery > 1) {
      current.setLevel0SlowdownWritesTrigger(
          Math.max(current.level0SlowdownWritesTrigger(), 2 * trigger));
      current.setLevel0StopWritesTrigger(Math.max(current.level0StopWritesTrigger(), 4 * trigger));
      current.setMaxBytesForLevelBase(
          Math.max(current.maxBytesForLevelBase(), ROUND_FILES * WRITE_BUFFER_BYTES));
      current.setCompressionType(CompressionType.NO_COMPRESSION);
      current.setCompressionPerLevel(List.of(CompressionType.NO_COMPRESSION));
      current.setBottommostCompressionType(CompressionType.NO_COMPRESSION);
    }
    return current;
  }
}
