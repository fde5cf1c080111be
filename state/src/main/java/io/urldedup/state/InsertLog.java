package io.urldedup.state;

import java.util.Arrays;

/**
 * The changes made to one shard's filter since its pages and header were last written to state, in
 * order, compact enough to checkpoint instead of the pages: a checkpoint then carries 16 bytes per
 * new URL rather than every page the interval touched (issue 23: inserts land on random pages, so
 * one interval dirties nearly all of them).
 *
 * <p>Entries are pairs of 64-bit words. An insert is its hash pair (h1, h2), 16 B. Anything else is
 * an escape: a pair (ESCAPE, op) followed by the op's pair:
 *
 * <ul>
 *   <li>{@link #INSERT}: (h1, h2), an insert whose h1 happens to equal {@link #ESCAPE};
 *   <li>{@link #PRESENT}: (h1, h2), a scalable filter's "seen" answer that still counts toward its
 *       slice (at the memory cap, or just above the slice's capacity);
 *   <li>{@link #ADVANCE}: (epoch, 0), an aged filter's {@link AgedBloomFilter#advanceToEpoch}.
 * </ul>
 *
 * Answers that change nothing are not logged. A filter writes here through {@link
 * DedupFilter#logTo}; {@link #replay} redoes the entries through {@link DedupFilter#redo}, which is
 * exact when the filter starts from the pages and header the log was recorded against: the stable
 * filter's decay and the aged filter's lazy clearing depend on them (a stable insert decrements
 * cells, so replaying it twice is not replaying it once).
 *
 * <p>Appends allocate only when the buffer grows (doubling). Not thread-safe.
 */
public final class InsertLog {

  /** Marks an escape pair; chosen as a value that hashes are no likelier to take than any other. */
  public static final long ESCAPE = 0x8000_0000_0000_0000L;

  public static final int INSERT = 1;
  public static final int PRESENT = 2;
  public static final int ADVANCE = 3;

  /** Bytes per logged word in memory and in a chunk. */
  public static final int WORD_BYTES = Long.BYTES;

  private long[] words;
  private int size;

  public InsertLog() {
    this(64);
  }

  public InsertLog(int initialWords) {
    this.words = new long[Math.max(4, initialWords)];
  }

  /**
   * A log holding {@code words[0, size)} (a chunk read from state); the array is taken, not copied.
   */
  public static InsertLog of(long[] words, int size) {
    if ((size & 1) != 0 || size > words.length) {
      throw new IllegalArgumentException("an insert log holds pairs of words; got " + size);
    }
    InsertLog log = new InsertLog(0);
    log.words = words;
    log.size = size;
    return log;
  }

  /** An element inserted (answered unseen, or forced). */
  public void insert(long h1, long h2) {
    if (h1 == ESCAPE) {
      escape(INSERT, h1, h2);
    } else {
      pair(h1, h2);
    }
  }

  /** A scalable filter counted an element it answered "seen" (see the class comment). */
  public void present(long h1, long h2) {
    escape(PRESENT, h1, h2);
  }

  /** An aged filter advanced (or first set) its time step to {@code epoch}. */
  public void advance(long epoch) {
    escape(ADVANCE, epoch, 0);
  }

  private void escape(int op, long a, long b) {
    pair(ESCAPE, op);
    pair(a, b);
  }

  private void pair(long a, long b) {
    if (size + 2 > words.length) {
      words = Arrays.copyOf(words, Math.max(words.length * 2, size + 2));
    }
    words[size] = a;
    words[size + 1] = b;
    size += 2;
  }

  /** Redoes every entry on {@code filter} in order; returns the operations redone. */
  public long replay(DedupFilter filter) {
    long ops = 0;
    for (int i = 0; i < size; i += 2) {
      long a = words[i];
      if (a == ESCAPE) {
        int op = (int) words[i + 1];
        if (op < INSERT || op > ADVANCE || i + 3 >= size) {
          throw new IllegalStateException(
              "corrupt insert log: escape op " + words[i + 1] + " at word " + i);
        }
        filter.redo(op, words[i + 2], words[i + 3]);
        i += 2;
      } else {
        filter.redo(INSERT, a, words[i + 1]);
      }
      ops++;
    }
    return ops;
  }

  /** Appends every entry of {@code other}. */
  public void appendAll(InsertLog other) {
    if (size + other.size > words.length) {
      words = Arrays.copyOf(words, Math.max(words.length * 2, size + other.size));
    }
    System.arraycopy(other.words, 0, words, size, other.size);
    size += other.size;
  }

  /** A copy holding exactly the entries (a chunk to hand to state). */
  public InsertLog copy() {
    return of(Arrays.copyOf(words, size), size);
  }

  /** Forgets every entry; keeps the buffer. */
  public void clear() {
    size = 0;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Words held (two per insert, four per escape). */
  public int words() {
    return size;
  }

  /** Bytes the entries take in a chunk, without its small prefix. */
  public long bytes() {
    return (long) size * WORD_BYTES;
  }

  /** Word {@code i}, {@code 0 <= i < words()}. */
  public long word(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException(i);
    }
    return words[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof InsertLog l && Arrays.equals(words, 0, size, l.words, 0, l.size);
  }

  @Override
  public int hashCode() {
    int h = 1;
    for (int i = 0; i < size; i++) {
      h = 31 * h + Long.hashCode(words[i]);
    }
    return h;
  }

  @Override
  public String toString() {
    return "InsertLog{" + size / 2 + " pairs}";
  }
}
