package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.state.StateBackend;
import org.apache.flink.runtime.state.StateBackendLoader;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.state.rocksdb.RocksDBOptionsFactory;
import org.junit.jupiter.api.Test;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/** The job's RocksDB options reach the backend Flink loads from the job's configuration. */
class PageStateRocksDBOptionsTest {

  private static Configuration conf(String backend, String... more) {
    List<String> args =
        new ArrayList<>(List.of("--input", "x", "--output", "-", "--state-backend", backend));
    args.addAll(List.of(more));
    return JobEnvironment.configuration(JobConfig.parse(args.toArray(new String[0]), Map.of()));
  }

  /**
   * With insert logs the automatic trigger sits above the N checkpoints' L0 files between epochs
   * (2N + 4) plus a round's pages (128 memtables, also in bytes), writes are never throttled before
   * it (slowdown and stop at least 2x and 4x), and nothing is compressed (random bits).
   */
  @Test
  void withInsertLogsL0WaitsForTheEpoch() throws Exception {
    StateBackend loaded =
        StateBackendLoader.loadStateBackendFromConfig(
            conf("rocksdb", "--materialize-every", "10"), getClass().getClassLoader(), null);
    RocksDBOptionsFactory factory = ((EmbeddedRocksDBStateBackend) loaded).getRocksDBOptions();
    RocksDB.loadLibrary();
    List<AutoCloseable> handles = new ArrayList<>();
    try (ColumnFamilyOptions cf = factory.createColumnOptions(new ColumnFamilyOptions(), handles)) {
      assertEquals(24 + 128, cf.level0FileNumCompactionTrigger());
      assertEquals(2 * (24 + 128), cf.level0SlowdownWritesTrigger());
      assertEquals(4 * (24 + 128), cf.level0StopWritesTrigger());
      assertEquals(8L << 30, cf.maxBytesForLevelBase(), "L0 bytes that wait for the epoch");
      assertEquals(CompressionType.NO_COMPRESSION, cf.compressionType());
      assertEquals(List.of(CompressionType.NO_COMPRESSION), cf.compressionPerLevel());
      assertEquals(CompressionType.NO_COMPRESSION, cf.bottommostCompressionType());
    }
  }

  @Test
  void rocksdbBackendLoadedFromTheJobConfigurationCompactsL0AtEveryFlush() throws Exception {
    // without insert logs (--materialize-every 1): every checkpoint writes the changed pages
    StateBackend loaded =
        StateBackendLoader.loadStateBackendFromConfig(
            conf("rocksdb", "--materialize-every", "1"), getClass().getClassLoader(), null);
    EmbeddedRocksDBStateBackend rocks = assertInstanceOf(EmbeddedRocksDBStateBackend.class, loaded);
    RocksDBOptionsFactory factory = rocks.getRocksDBOptions();
    assertInstanceOf(PageStateRocksDBOptions.class, factory);

    RocksDB.loadLibrary();
    List<AutoCloseable> handles = new ArrayList<>();
    try (ColumnFamilyOptions defaults = new ColumnFamilyOptions();
        ColumnFamilyOptions cf = factory.createColumnOptions(new ColumnFamilyOptions(), handles);
        DBOptions db = factory.createDBOptions(new DBOptions(), handles)) {
      assertEquals(
          4, defaults.level0FileNumCompactionTrigger(), "RocksDB's default changed: re-measure");
      assertEquals(
          PageStateRocksDBOptions.L0_COMPACTION_TRIGGER, cf.level0FileNumCompactionTrigger());
      assertEquals(
          defaults.compressionType(),
          cf.compressionType(),
          "without logs Flink's compression stays");
    }
  }

  @Test
  void hashmapBackendSetsNoRocksDBOptions() {
    assertFalse(conf("hashmap").contains(RocksDBOptions.OPTIONS_FACTORY));
  }
}
