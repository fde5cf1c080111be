package io.urldedup.jobbench;

import java.util.Collection;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;

/**
 * RocksDB options for urldedup's page state: compact L0 into L1 after every flush
 * ({@code level0_file_num_compaction_trigger = 1}, RocksDB's default is 4). Every checkpoint rewrites
 * almost every filter page, so each memtable flush makes an L0 file holding a new version of most
 * pages; with the default trigger an incremental checkpoint references up to four stale copies. For
 * a few MB of pages the compaction is cheap. Not for the exact peer: its keys are written once, and
 * an L0 compaction per flush would rewrite its whole (large) L1 every checkpoint.
 */
public final class CompactEagerly implements RocksDBOptionsFactory {

  private static final long serialVersionUID = 1L;

  @Override
  public DBOptions createDBOptions(DBOptions current, Collection<AutoCloseable> handlesToClose) {
    return current;
  }

  @Override
  public ColumnFamilyOptions createColumnOptions(
      ColumnFamilyOptions current, Collection<AutoCloseable> handlesToClose) {
    return current.setLevel0FileNumCompactionTrigger(1);
  }
}
