package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Reads stdin on a thread of its own into a small bounded queue, so that the source task never
 * blocks in {@code read()}: checkpoints, records and the end of input go on while the producer
 * is quiet ({@code tail -f links.log | urldedup run --input -}). The queue bounds memory (a fast
 * producer waits, as any pipe reader makes it wait); nothing is spooled to disk.
 */
final class StdinPump {

  /** Bytes in flight between the thread and the source (a record costs its bytes + 64). */
  static final int QUEUE_BYTES = 8 << 20;

  private final ConcurrentLinkedQueue<RawRecord> queue = new ConcurrentLinkedQueue<>();
  private final Semaphore room = new Semaphore(QUEUE_BYTES);
  private final Thread thread;
  private final Runnable onData;
  private volatile boolean stopped;
  private volatile boolean ended;
  /** The thread waits in {@code read()}: the reader's buffer then holds no complete line. */
  private volatile boolean reading;
  private volatile IOException error;

  /** @param onData called (from the pump's thread) after each record queued and at the end */
  StdinPump(InputStream in, LineHook hook, Runnable onData) {
    this.onData = onData;
    LineReader lines = new LineReader(new FilterInputStream(in) {
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
    }, 0, 0, false, Long.MAX_VALUE, hook);
    this.thread = new Thread(() -> pump(lines), "urldedup-stdin");
    // a thread blocked in read() on a quiet pipe cannot be interrupted; it must not keep the
    // process alive after the run ended
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
  private void pump(LineReader lines) {
    try {
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

  /** End of stdin (or a read error, or {@link #stop}): nothing more will be queued. */
  boolean ended() {
    return ended;
  }

  /** The read error that ended the stream, or null. */
  IOException error() {
    return error;
  }

  /**
   * After {@link #stop}: true when everything read is queued, so the source may end once the
   * queue is empty (the pump ended, or waits in {@code read()} with no complete line buffered).
   */
  boolean drained() {
    return ended || reading;
  }

  /**
   * Queue nothing more from the stream; the lines already read are still queued (a thread blocked
   * in {@code read()} stays there until the process ends).
   */
  void stop() {
    stopped = true;
  }
}
