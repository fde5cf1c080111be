package io.urldedup.job;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.core.io.InputStatus;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * A bounded source that, at the end of its input, stays open instead of finishing and tells the
 * embedded driver so (same JVM: the MiniCluster runs in the driver's process). The driver then
 * stops the job with a savepoint ({@code run --state}): a finished job's final checkpoint is
 * discarded by Flink, and a savepoint needs running tasks. Every record read is before the
 * savepoint's barrier, so the savepoint holds the decisions for the whole input.
 */
final class HoldAtEndSource<T, S extends SourceSplit, E> implements Source<T, S, E> {

  private static final long serialVersionUID = 1L;

  /** End-of-input signals by run token (one per embedded run). */
  private static final Map<String, CompletableFuture<Void>> ENDED = new ConcurrentHashMap<>();

  private final Source<T, S, E> delegate;
  private final String token;

  HoldAtEndSource(Source<T, S, E> delegate, String token) {
    this.delegate = delegate;
    this.token = token;
  }

  /** Completes when the source of run {@code token} has read all its input. */
  static CompletableFuture<Void> ended(String token) {
    return ENDED.computeIfAbsent(token, t -> new CompletableFuture<>());
  }

  static void forget(String token) {
    ENDED.remove(token);
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.CONTINUOUS_UNBOUNDED;
  }

  @Override
  public SourceReader<T, S> createReader(SourceReaderContext context) throws Exception {
    return new Reader<>(delegate.createReader(context), token);
  }

  @Override
  public SplitEnumerator<S, E> createEnumerator(SplitEnumeratorContext<S> context)
      throws Exception {
    return delegate.createEnumerator(context);
  }

  @Override
  public SplitEnumerator<S, E> restoreEnumerator(SplitEnumeratorContext<S> context, E checkpoint)
      throws Exception {
    return delegate.restoreEnumerator(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<S> getSplitSerializer() {
    return delegate.getSplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<E> getEnumeratorCheckpointSerializer() {
    return delegate.getEnumeratorCheckpointSerializer();
  }

  private static final class Reader<T, S extends SourceSplit> implements SourceReader<T, S> {
    private final SourceReader<T, S> delegate;
    private final String token;
    private final CompletableFuture<Void> never = new CompletableFuture<>();
    private boolean ended;

    Reader(SourceReader<T, S> delegate, String token) {
      this.delegate = delegate;
      this.token = token;
    }

    @Override
    public void start() {
      delegate.start();
    }

    @Override
    public InputStatus pollNext(ReaderOutput<T> output) throws Exception {
      if (ended) {
        return InputStatus.NOTHING_AVAILABLE;
      }
      InputStatus s = delegate.pollNext(output);
      if (s == InputStatus.END_OF_INPUT) {
        ended = true;
        ended(token).complete(null);
        return InputStatus.NOTHING_AVAILABLE;
      }
      return s;
    }

    @Override
    public List<S> snapshotState(long checkpointId) {
      return delegate.snapshotState(checkpointId);
    }

    @Override
    public CompletableFuture<Void> isAvailable() {
      return ended ? never : delegate.isAvailable();
    }

    @Override
    public void addSplits(List<S> splits) {
      delegate.addSplits(splits);
    }

    @Override
    public void notifyNoMoreSplits() {
      delegate.notifyNoMoreSplits();
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
      delegate.notifyCheckpointComplete(checkpointId);
    }

    @Override
    public void close() throws Exception {
      never.complete(null);
      delegate.close();
    }
  }
}
