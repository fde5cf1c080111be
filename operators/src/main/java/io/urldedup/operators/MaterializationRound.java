package io.urldedup.operators;

import java.util.List;

/**
 * One round of materializations ahead of an epoch (issue 23): the shards to write, and how many are
 * due at a moment. The round runs over the first {@link #SHARE} of the checkpoint interval measured
 * between the last two barriers, so that its page writes are spread between records and the
 * compaction that follows has the rest of the interval to run on a background thread. The first
 * shard is due at once; with no measured interval every shard is.
 *
 * @param <S> what a shard is to the operator
 */
final class MaterializationRound<S> {

  /** Records between two checks of the clock while a round runs. */
  static final int CHECK_RECORDS = 256;

  /** Share of the interval the round's writes are spread over. */
  static final double SHARE = 0.5;

  private final List<S> shards;
  private final long startNanos;
  private final long budgetNanos;
  private int written;
  private long writeNanos;

  MaterializationRound(List<S> shards, long startNanos, long intervalNanos) {
    this.shards = List.copyOf(shards);
    this.startNanos = startNanos;
    this.budgetNanos = (long) (intervalNanos * SHARE);
  }

  /** How many shards should be written by {@code nowNanos}: linear in the time since the start. */
  int due(long nowNanos) {
    int n = shards.size();
    long elapsed = nowNanos - startNanos;
    if (budgetNanos <= 0 || elapsed >= budgetNanos) {
      return n;
    }
    return (int) Math.min(n, 1 + Math.max(0, elapsed) * n / budgetNanos);
  }

  S next() {
    return shards.get(written++);
  }

  int written() {
    return written;
  }

  boolean finished() {
    return written == shards.size();
  }

  int size() {
    return shards.size();
  }

  long startNanos() {
    return startNanos;
  }

  void wrote(long nanos) {
    writeNanos += nanos;
  }

  /** Time spent writing the round's shards, on the task thread. */
  long writeNanos() {
    return writeNanos;
  }
}
