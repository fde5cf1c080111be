package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.api.connector.source.ReaderOutput;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.core.io.InputStatus;

/**
 * Reads {@link LineSplit}s: a regular file or a byte range of it in the task's thread, one line per
 * {@link #pollNext} (the range's end, or the file's length at open, bounds it); a stream (stdin, a
 * named pipe, any path that is no regular file: {@link LineFileSource#isStream}) through a {@link
 * StreamPump} (a thread of its own, so a quiet pipe never blocks the task, and no seek). Snapshots
 * hold the byte offset after the last record emitted.
 *
 * <p>{@link #endAllInputs} (a stop signal, see {@link StopSignals}) ends the input of every reader
 * in this JVM: what was read is processed, then the source finishes like at the end of the file.
 */
final class LineSourceReader implements SourceReader<RawRecord, LineSplit> {

  private static final Set<LineSourceReader> LIVE = ConcurrentHashMap.newKeySet();
  private static final CompletableFuture<Void> AVAILABLE = CompletableFuture.completedFuture(null);

  private final SourceReaderContext context;
  private final LineHook hook;

  /** The source's run token ({@link LinesRead}), or null: not recorded. */
  private final String run;

  private final Queue<LineSplit> splits = new ArrayDeque<>();
  private final Object lock = new Object();
  private CompletableFuture<Void> available = new CompletableFuture<>();
  private boolean noMoreSplits;
  private volatile boolean stopped;

  private LineSplit current;
  private FileChannel file;
  private LineReader lines;
  private StreamPump pump;

  /** A stream: records emitted (the pump's reader is ahead of the source by its queue). */
  private long streamLines;

  LineSourceReader(SourceReaderContext context, LineHook hook) {
    this(context, hook, null);
  }

  LineSourceReader(SourceReaderContext context, LineHook hook, String run) {
    this.context = context;
    this.hook = hook;
    this.run = run;
  }

  /** Ends the input of every line source of this JVM; returns how many were running. */
  static int endAllInputs() {
    int n = 0;
    for (LineSourceReader r : LIVE) {
      r.stopped = true;
      if (r.pump != null) {
        r.pump.stop();
      }
      r.signal();
      n++;
    }
    return n;
  }

  @Override
  public void start() {
    LIVE.add(this);
    if (StopSignals.received() != null) {
      stopped = true; // the signal came while the cluster started
    }
    context.sendSplitRequest();
  }

  @Override
  public InputStatus pollNext(ReaderOutput<RawRecord> output) throws IOException {
    if (current == null) {
      LineSplit next = splits.poll();
      if (next == null) {
        return noMoreSplits || stopped ? InputStatus.END_OF_INPUT : InputStatus.NOTHING_AVAILABLE;
      }
      open(next);
    }
    RawRecord r = pump != null ? fromStream() : fromFile();
    if (r == null) {
      if (current != null) {
        return InputStatus.NOTHING_AVAILABLE;
      }
      if (splits.isEmpty() && !noMoreSplits && !stopped) {
        context.sendSplitRequest();
      }
      return splits.isEmpty() && (noMoreSplits || stopped)
          ? InputStatus.END_OF_INPUT
          : InputStatus.NOTHING_AVAILABLE;
    }
    output.collect(r);
    return InputStatus.MORE_AVAILABLE;
  }

  /** The next line, or null at the end of the file (then the split is finished). */
  private RawRecord fromFile() throws IOException {
    RawRecord r = stopped ? null : lines.next();
    if (r == null) {
      finish(lines.lines());
    }
    return r;
  }

  /** The next queued line; null: none yet (split still open) or the end (split finished). */
  private RawRecord fromStream() throws IOException {
    RawRecord r = pump.poll();
    if (r == null && pump.ended()) {
      r = pump.poll(); // queued just before the end
      if (r == null) {
        IOException e = pump.error();
        if (e != null && !stopped) {
          throw new IOException("reading " + current.name + ": " + e.getMessage(), e);
        }
        finish(streamLines);
        return null;
      }
    }
    if (r == null && stopped && pump.drained() && !pump.hasQueued()) {
      finish(streamLines);
      return null;
    }
    if (r != null) {
      streamLines++;
    }
    return r;
  }

  private void open(LineSplit split) throws IOException {
    current = split;
    if (run != null) {
      LinesRead.opened(run, split.index, split.lines);
    }
    if (LineFileSource.isStream(split.path)) {
      if (split.offset != 0 || split.lines != 0) {
        throw new IOException(
            split.name
                + " cannot be re-read (a stream: stdin or a pipe): a run that reads a"
                + " stream cannot be restored");
      }
      streamLines = 0;
      pump = new StreamPump(split.path, hook, this::signal);
      pump.start();
      return;
    }
    file = FileChannel.open(Path.of(split.path), StandardOpenOption.READ);
    long size = file.size();
    boolean afterCr = false;
    if (split.offset > 0 && split.offset <= size) {
      // a checkpoint between the \r and the \n of one line end
      ByteBuffer b = ByteBuffer.allocate(1);
      afterCr = file.read(b, split.offset - 1) == 1 && b.get(0) == '\r';
    }
    file.position(Math.min(split.offset, size));
    InputStream in = Channels.newInputStream(file);
    long end = Math.min(size, split.end);
    lines =
        new LineReader(
            in, split.offset, split.lines, afterCr, Math.max(0, end - split.offset), hook);
  }

  private void finish(long count) throws IOException {
    hook.end(count);
    if (run != null) {
      LinesRead.reached(run, current.index, count);
    }
    current = null;
    lines = null;
    if (pump != null) {
      pump.stop();
      pump = null;
    }
    closeFile();
  }

  private void closeFile() throws IOException {
    if (file != null) {
      FileChannel f = file;
      file = null;
      f.close();
    }
  }

  @Override
  public List<LineSplit> snapshotState(long checkpointId) {
    List<LineSplit> state = new ArrayList<>();
    if (current != null) {
      long n = pump != null ? streamLines : lines.lines();
      state.add(pump != null ? current.at(0, n) : current.at(lines.offset(), n));
      hook.snapshot(checkpointId, n);
    }
    state.addAll(splits);
    return state;
  }

  @Override
  public CompletableFuture<Void> isAvailable() {
    synchronized (lock) {
      if (stopped
          || noMoreSplits
          || (current == null && !splits.isEmpty())
          || (current != null && pump == null)
          || (pump != null && (pump.hasQueued() || pump.ended()))) {
        return AVAILABLE;
      }
      if (available.isDone()) {
        available = new CompletableFuture<>();
      }
      return available;
    }
  }

  private void signal() {
    synchronized (lock) {
      available.complete(null);
    }
  }

  @Override
  public void addSplits(List<LineSplit> newSplits) {
    splits.addAll(newSplits);
    signal();
  }

  @Override
  public void notifyNoMoreSplits() {
    noMoreSplits = true;
    signal();
  }

  @Override
  public void close() throws IOException {
    LIVE.remove(this);
    if (pump != null) {
      pump.stop();
      pump = null;
    }
    closeFile();
  }
}
