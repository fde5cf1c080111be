package io.urldedup.job;

import java.util.Collection;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * The job's RocksDB options, set by {@link JobEnvironment} whenever {@code --state-backend rocksdb}:
 * compact L0 into L1 after every memtable flush ({@code level0_file_num_compaction_trigger = 1};
 * RocksDB's default is 4).
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
 */
public final class PageStateRocksDBOptions implements RocksDBOptionsFactory {

  private static final long serialVersionUID = 1L;

  /** RocksDB's {@code level0_file_num_compaction_trigger} for the filter pages. */
  public static final int L0_COMPACTION_TRIGGER = 1;

  @Override
  public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handlesToClose) {
    return current;
  }

  @Override
  public ColumnFamilyOptions createColumnOptions(
      ColumnFamilyOptions current, Collection<AutoCloseable> handlesToClose) {
    return current.setLevel0FileNumCompactionTrigger(L0_COMPACTION_TRIGGER);
  }
}
