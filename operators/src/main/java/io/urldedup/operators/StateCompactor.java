package io.urldedup.operators;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.flink.api.common.state.StateDescriptor;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.state.rocksdb.RocksDBKeyedStateBackend;

/**
 * Compacts the filter's column families after an epoch wrote its pages, before the epoch's
 * checkpoint (issue 23). On RocksDB an incremental checkpoint uploads every SST file it has not
 * uploaded before. An epoch rewrites nearly every page; left to RocksDB, its flush becomes L0 files
 * (one upload of the filter) that a later compaction merges with L1 into a new L1 (a second
 * upload), and the insert log's small L0 files would be merged into a growing L1 at every
 * checkpoint. Compacting before the epoch's checkpoint, with the automatic trigger set above an
 * epoch's L0 files ({@code PageStateRocksDBOptions}), leaves one set of bottom-level files of pages
 * per epoch (the filter uploaded once) and an emptied log (its chunks were deleted by the epoch): a
 * checkpoint between epochs uploads only its interval's log chunks.
 *
 * <p>The compaction reads and writes the whole filter once, so it runs on its own thread, started
 * when a round has written its shards ({@link #start}) and awaited by the epoch's barrier ({@link
 * #await}); RocksDB takes writes from the task thread meanwhile. {@link #close} waits for it: the
 * database must outlive it. Elsewhere (the heap backend) it does nothing.
 */
final class StateCompactor implements AutoCloseable {

  private final RocksDBKeyedStateBackend<?> rocks;
  private final List<StateDescriptor<?, ?>> states;
  private ExecutorService thread;
  private Future<?> running;
  private volatile long lastMillis;

  StateCompactor(KeyedStateBackend<?> backend, List<StateDescriptor<?, ?>> states) {
    this.rocks = backend instanceof RocksDBKeyedStateBackend<?> r ? r : null;
    this.states = List.copyOf(states);
  }

  /** Starts compacting, unless a compaction is still running or the backend is not RocksDB. */
  void start() {
    if (rocks == null || running != null) {
      return;
    }
    if (thread == null) {
      thread =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, "urldedup-state-compaction");
                t.setDaemon(true);
                return t;
              });
    }
    running =
        thread.submit(
            () -> {
              long t0 = System.nanoTime();
              for (StateDescriptor<?, ?> s : states) {
                rocks.compactState(s);
              }
              lastMillis = (System.nanoTime() - t0) / 1_000_000;
              return null;
            });
  }

  /** Waits for the compaction started last, if any; returns the milliseconds waited. */
  long await() throws Exception {
    if (running == null) {
      return 0;
    }
    long t0 = System.nanoTime();
    try {
      running.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception cause ? cause : e;
    } finally {
      running = null;
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  /** How long the last compaction took. */
  long lastMillis() {
    return lastMillis;
  }

  @Override
  public void close() throws Exception {
    try {
      if (running != null) {
        running.get();
      }
    } catch (ExecutionException e) {
      // the job is closing anyway; the failure was the compaction's, not the state's
    } finally {
      running = null;
      if (thread != null) {
        thread.shutdownNow();
      }
    }
  }
}
