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
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;

/** The job's RocksDB options reach the backend Flink loads from the job's configuration. */
class PageStateRocksDBOptionsTest {

  private static Configuration conf(String backend) {
    return JobEnvironment.configuration(JobConfig.parse(
        new String[] {"--input", "x", "--output", "-", "--state-backend", backend}, Map.of()));
  }

  @Test
  void rocksdbBackendLoadedFromTheJobConfigurationCompactsL0AtEveryFlush() throws Exception {
    StateBackend loaded = StateBackendLoader.loadStateBackendFromConfig(
        conf("rocksdb"), getClass().getClassLoader(), null);
    EmbeddedRocksDBStateBackend rocks = assertInstanceOf(EmbeddedRocksDBStateBackend.class, loaded);
    RocksDBOptionsFactory factory = rocks.getRocksDBOptions();
    assertInstanceOf(PageStateRocksDBOptions.class, factory);

    RocksDB.loadLibrary();
    List<AutoCloseable> handles = new ArrayList<>();
    try (ColumnFamilyOptions defaults = new ColumnFamilyOptions();
        ColumnFamilyOptions cf = factory.createColumnOptions(new ColumnFamilyOptions(), handles);
        DBOptions db = factory.createDBOptions(new DBOptions(), handles)) {
      assertEquals(4, defaults.level0FileNumCompactionTrigger(), "RocksDB's default changed: re-measure");
      assertEquals(PageStateRocksDBOptions.L0_COMPACTION_TRIGGER, cf.level0FileNumCompactionTrigger());
    }
  }

  @Test
  void hashmapBackendSetsNoRocksDBOptions() {
    assertFalse(conf("hashmap").contains(RocksDBOptions.OPTIONS_FACTORY));
  }
}
