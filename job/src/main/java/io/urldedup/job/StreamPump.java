package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.io.FileInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Reads a stream (stdin, or a path that is no regular file: a named pipe, {@code <(cmd)}, a
 * character device) on a thread of its own into a small bounded queue, so that the source task
 * never blocks in {@code open()} or {@code read()}: checkpoints, records and the end of input go on
 * while the producer is quiet ({@code tail -f links.log | urldedup run --input -}). A stream is
 * read once, front to back: it cannot seek. The queue bounds memory (a fast producer waits, as any
 * pipe reader makes it wait); nothing is spooled to disk.
 */
final class StreamPump {

  /** Bytes in flight between the thread and the source (a record costs its bytes + 64). */
  static final int QUEUE_BYTES = 8 << 20;

  private final ConcurrentLinkedQueue<RawRecord> queue = new ConcurrentLinkedQueue<>();
  private final Semaphore room = new Semaphore(QUEUE_BYTES);
  private final Thread thread;
  private final Runnable onData;
  private volatile boolean stopped;
  private volatile boolean ended;

  /**
   * The thread waits in {@code open()} or {@code read()}: the reader's buffer then holds no
   * complete line.
   */
  private volatile boolean reading;

  private volatile IOException error;

  /**
   * @param path {@code -} for stdin, else the stream's path (opened on the pump's thread: a named
   *     pipe's {@code open()} waits for its writer)
   * @param onData called (from the pump's thread) after each record queued and at the end
   */
  StreamPump(String path, LineHook hook, Runnable onData) {
    this.onData = onData;
    this.thread = new Thread(() -> pump(path, hook), "urldedup-input");
    // a thread blocked in open() or read() on a quiet pipe cannot be interrupted; it must not keep
    // the process alive after the run ended
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /**
   * After {@link #stop} the line in hand and the complete lines still in the reader's buffer are
   * queued (they were read: the README promises them to the summary), whatever the queue's bound;
   * then the pump ends without reading again.
   */
  private void pump(String path, LineHook hook) {
    boolean stdin = LineSplit.STDIN.equals(path);
    InputStream in = null;
    try {
      reading = true; // waiting for a writer is waiting for data: nothing read is left behind
      try {
        in = stdin ? System.in : new FileInputStream(path);
      } finally {
        reading = false;
      }
      LineReader lines =
          new LineReader(
              new FilterInputStream(in) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                  reading = true;
                  if (stopped) {
                    onData.run(); // the source may now end: nothing complete is left behind
                  }
                  try {
                    return super.read(b, off, len);
                  } finally {
                    reading = false;
                  }
                }
              },
              0,
              0,
              false,
              Long.MAX_VALUE,
              hook);
      RawRecord r;
      while ((r = stopped ? lines.nextBuffered() : lines.next()) != null) {
        while (!stopped && !room.tryAcquire(cost(r), 100, TimeUnit.MILLISECONDS)) {
          // a fast producer waits for the source, as any pipe reader makes it wait
        }
        queue.add(r);
        onData.run();
      }
    } catch (IOException e) {
      error = e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      ended = true;
      onData.run();
      if (in != null && !stdin) {
        try {
          in.close();
        } catch (IOException ignored) {
          // read to its end or failed: nothing more to lose
        }
      }
    }
  }

  /** The next line read, or null if none is queued now. */
  RawRecord poll() {
    RawRecord r = queue.poll();
    if (r != null) {
      room.release(cost(r));
    }
    return r;
  }

  private static int cost(RawRecord r) {
    return r.value.length + 64;
  }

  boolean hasQueued() {
    return !queue.isEmpty();
  }

  /** End of the stream (or a read error, or {@link #stop}): nothing more will be queued. */
  boolean ended() {
    return ended;
  }

  /** The read error that ended the stream, or null. */
  IOException error() {
    return error;
  }

  /**
   * After {@link #stop}: true when everything read is queued, so the source may end once the queue
   * is empty (the pump ended, or waits in {@code open()} or {@code read()} with no complete line
   * buffered).
   */
  boolean drained() {
    return ended || reading;
  }

  /**
   * Queue nothing more from the stream; the lines already read are still queued (a thread blocked
   * in {@code open()} or {@code read()} stays there until the process ends).
   */
  void stop() {
    stopped = true;
  }
}
