package io.urldedup.job;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;

/**
 * Hands out the input's splits (one, or a file's byte ranges, see {@link LineRanges}): range i to
 * reader i when it asks, else any left; then there are no more.
 */
final class LineSplitEnumerator implements SplitEnumerator<LineSplit, Collection<LineSplit>> {

  private final SplitEnumeratorContext<LineSplit> context;
  private final Queue<LineSplit> remaining;

  LineSplitEnumerator(SplitEnumeratorContext<LineSplit> context, Collection<LineSplit> splits) {
    this.context = context;
    this.remaining = new ArrayDeque<>(splits);
  }

  @Override
  public void start() {}

  @Override
  public void handleSplitRequest(int subtask, String requesterHostname) {
    LineSplit next = null;
    for (LineSplit s : remaining) {
      if (s.index == subtask) {
        next = s;
        break;
      }
    }
    next = next != null && remaining.remove(next) ? next : remaining.poll();
    if (next != null) {
      context.assignSplit(next, subtask);
    } else {
      context.signalNoMoreSplits(subtask);
    }
  }

  @Override
  public void addSplitsBack(List<LineSplit> splits, int subtask) {
    remaining.addAll(splits);
  }

  @Override
  public void addReader(int subtask) {}

  @Override
  public Collection<LineSplit> snapshotState(long checkpointId) {
    return new ArrayList<>(remaining);
  }

  @Override
  public void close() {}
}
