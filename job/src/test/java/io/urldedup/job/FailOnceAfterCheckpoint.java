package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;

/**
 * Test-only identity map on the source stream: once a checkpoint has completed, it lets {@code
 * afterRecords} more records through and then throws, once per JVM (static flags: the mini-cluster
 * runs in this JVM). Output written after that checkpoint is then in an open Kafka transaction that
 * must be aborted, and the replayed records must not be emitted twice.
 */
final class FailOnceAfterCheckpoint
    implements MapFunction<RawRecord, RawRecord>, CheckpointListener {

  static final AtomicBoolean CHECKPOINTED = new AtomicBoolean();
  static final AtomicBoolean FAILED = new AtomicBoolean();
  static final AtomicInteger SINCE = new AtomicInteger();

  private final int afterRecords;

  FailOnceAfterCheckpoint(int afterRecords) {
    this.afterRecords = afterRecords;
  }

  static void reset() {
    CHECKPOINTED.set(false);
    FAILED.set(false);
    SINCE.set(0);
  }

  @Override
  public RawRecord map(RawRecord r) {
    if (CHECKPOINTED.get()
        && !FAILED.get()
        && SINCE.incrementAndGet() > afterRecords
        && FAILED.compareAndSet(false, true)) {
      throw new IllegalStateException("test: injected failure after a completed checkpoint");
    }
    return r;
  }

  @Override
  public void notifyCheckpointComplete(long checkpointId) {
    CHECKPOINTED.set(true);
  }
}
