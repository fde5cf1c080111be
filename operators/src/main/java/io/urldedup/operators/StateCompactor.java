package io.urldedup.operators;

import java.util.List;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;

/**
 * Compacts the filter's column families right after an epoch wrote its pages, before the barrier
 * (issue 23). On RocksDB an incremental checkpoint uploads every SST file it has not uploaded
 * before. An epoch rewrites nearly every page; left to RocksDB, its flush becomes an L0 file (one
 * upload of the filter) that a later compaction merges with L1 into a new L1 (a second upload),
 * and the insert log's small L0 files would be merged into a growing L1 at every checkpoint.
 * Compacting here, with the automatic trigger set above an epoch's L0 files ({@code
 * PageStateRocksDBOptions}), leaves one new L1 file of pages per epoch (the filter uploaded once)
 * and an emptied log (its chunks were deleted by the epoch): a checkpoint between epochs uploads
 * only its interval's log chunks.
 *
 * <p>The price: the compaction runs in the barrier's synchronous part (it reads and writes the
 * filter once, on the task thread). Elsewhere (the heap backend) it does nothing.
 */
final class StateCompactor {

  private final RocksDBKeyedStateBackend<?> rocks;
  private final List<StateDescriptor<?, ?>> states;

  StateCompactor(KeyedStateBackend<?> backend, List<StateDescriptor<?, ?>> states) {
    this.rocks = backend instanceof RocksDBKeyedStateBackend<?> r ? r : null;
    this.states = List.copyOf(states);
  }

  /** Whether {@link #compact} does anything: the backend is RocksDB. */
  boolean active() {
    return rocks != null;
  }

  void compact() throws Exception {
    if (rocks == null) {
      return;
    }
    for (StateDescriptor<?, ?> s : states) {
      rocks.compactState(s);
    }
  }
}
