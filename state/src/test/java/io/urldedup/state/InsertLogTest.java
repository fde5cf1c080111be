package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/**
 * A log recorded while a filter runs, replayed onto the pages and header it started from, yields
 * the same pages and header, bit for bit, for every filter kind: stable (decay from the insert
 * counter), scalable (slice growth and the memory cap's counted repeats), aged by count and by time
 * (generation shifts).
 */
class InsertLogTest {

  private static final UrlMapping MAPPING = new UrlMapping(7, 4, 9, "");

  @Test
  void stableReplaysExactly() {
    check(FilterSpec.stable(0.01, 16 << 10, 3).newHeader(MAPPING), 5_000, false);
  }

  @Test
  void scalableReplaysExactlyAcrossGrowthAndCap() {
    // 64 URLs in the first slice: several slices, then the 64 KiB cap saturates it
    FilterHeader h = FilterSpec.scalable(0.01, 64, 2, 0.5, 64 << 10).newHeader(MAPPING);
    FilterHeader end = check(h, 20_000, false);
    assertTrue(end.saturated(), "the run must reach the cap, where repeats are counted: " + end);
  }

  @Test
  void agedByCountReplaysExactly() {
    check(FilterSpec.agedCount(0.01, 500, 4).newHeader(MAPPING), 5_000, false);
  }

  @Test
  void agedByTimeReplaysExactly() {
    FilterSpec spec = FilterSpec.agedTime(0.01, 40_000, 4, 100);
    check(spec.newHeader(MAPPING), 5_000, true);
  }

  /**
   * Runs {@code n} mixed records (new URLs, repeats, forced) on half the stream, snapshots pages
   * and header, logs the second half, replays it onto the snapshot and compares.
   */
  private static FilterHeader check(FilterHeader h, int n, boolean timed) {
    HeapPageStore pages = new HeapPageStore();
    DedupFilter f = Filters.open(h, pages);
    run(f, 0, n / 2, timed);
    FilterHeader baseHeader = h.copy();
    HeapPageStore basePages = copy(pages);
    InsertLog log = new InsertLog();
    f.logTo(log);
    run(f, n / 2, n, timed);
    f.logTo(null);
    assertTrue(log.words() > 0);

    // through the serializer, as a chunk in state
    InsertLog chunk = roundTrip(log);
    assertEquals(log, chunk);
    DedupFilter replayed = Filters.open(baseHeader, basePages);
    long ops = chunk.replay(replayed);
    assertTrue(ops > 0);
    assertEquals(h, baseHeader, "header after replay");
    assertSamePages(pages, basePages);
    return h;
  }

  private static void run(DedupFilter f, int from, int to, boolean timed) {
    for (int i = from; i < to; i++) {
      if (timed && i % 97 == 0) {
        ((AgedBloomFilter) f).advanceToEpoch(i / 300);
      }
      long key = i % 3 == 0 ? i / 7 : i; // a third are repeats of earlier keys
      long h1 = Keys.h1(1, key);
      long h2 = Keys.h2(1, key);
      if (i % 50 == 0) {
        f.add(h1, h2);
      } else {
        f.testAndAdd(h1, h2);
      }
    }
  }

  @Test
  void anInsertWhoseHashIsTheEscapeIsEscaped() {
    InsertLog log = new InsertLog();
    log.insert(InsertLog.ESCAPE, 5);
    log.insert(1, 2);
    log.advance(77);
    log.present(3, 4);
    assertEquals(4 + 2 + 4 + 4, log.words());
    long[][] seen = new long[4][];
    int[] at = {0};
    log.replay(new Recorder(seen, at));
    assertArrayEquals(new long[] {InsertLog.INSERT, InsertLog.ESCAPE, 5}, seen[0]);
    assertArrayEquals(new long[] {InsertLog.INSERT, 1, 2}, seen[1]);
    assertArrayEquals(new long[] {InsertLog.ADVANCE, 77, 0}, seen[2]);
    assertArrayEquals(new long[] {InsertLog.PRESENT, 3, 4}, seen[3]);
  }

  /**
   * Scalable pages written back before their shard was materialized (a page cache eviction) hold
   * bits of inserts that are also in the log: replay still reaches the same pages and counters.
   */
  @Test
  void scalableReplayOverPagesWrittenEarly() {
    FilterHeader h = FilterSpec.scalable(0.01, 64, 2, 0.5, 1 << 20).newHeader(MAPPING);
    HeapPageStore pages = new HeapPageStore();
    DedupFilter f = Filters.open(h, pages);
    run(f, 0, 1000, false);
    FilterHeader baseHeader = h.copy();
    InsertLog log = new InsertLog();
    f.logTo(log);
    run(f, 1000, 3000, false);
    // base header, but the pages as they are now (every page "evicted" after the last insert)
    HeapPageStore early = copy(pages);
    log.replay(Filters.open(baseHeader, early));
    assertEquals(h, baseHeader);
    assertSamePages(pages, early);
  }

  static InsertLog roundTrip(InsertLog log) {
    try {
      DataOutputSerializer out = new DataOutputSerializer(64);
      InsertLogSerializer.INSTANCE.serialize(log, out);
      assertEquals(1 + 4 + log.bytes(), out.length());
      return InsertLogSerializer.INSTANCE.deserialize(
          new DataInputDeserializer(out.getCopyOfBuffer()));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  static HeapPageStore copy(HeapPageStore pages) {
    HeapPageStore c = new HeapPageStore();
    pages.forEachPageId(
        id -> System.arraycopy(pages.page(id), 0, c.page(id), 0, PageStore.PAGE_WORDS));
    return c;
  }

  static void assertSamePages(HeapPageStore expected, HeapPageStore actual) {
    expected.forEachPageId(
        id ->
            assertArrayEquals(expected.page(id), actual.page(id), "page " + Long.toHexString(id)));
    actual.forEachPageId(
        id ->
            assertArrayEquals(expected.page(id), actual.page(id), "page " + Long.toHexString(id)));
  }

  /** Records what replay asks for. */
  private record Recorder(long[][] seen, int[] at) implements DedupFilter {
    @Override
    public void redo(int op, long a, long b) {
      seen[at[0]++] = new long[] {op, a, b};
    }

    @Override
    public void logTo(InsertLog log) {}

    @Override
    public boolean testAndAdd(long h1, long h2) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean mightContain(long h1, long h2) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void add(long h1, long h2) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FilterHeader header() {
      return null;
    }

    @Override
    public double fillRatio() {
      return 0;
    }

    @Override
    public double estimatedFpr() {
      return 0;
    }

    @Override
    public long sizeBytes() {
      return 0;
    }

    @Override
    public int sliceCount() {
      return 1;
    }
  }
}
