package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The filters' censuses ({@link Filters#census}) against the pages read directly: every unit once,
 * its set bits (non-zero cells) as counted word by word, and aged columns recycled since the stamp
 * read as zero.
 */
class PageCensusTest {

  private static final UrlMapping MAPPING = UrlMapping.seedOnly(1);

  /** Collects what a census reports. */
  private static final class Units implements CensusSink {
    final List<int[]> blocks = new ArrayList<>();
    final List<int[]> rows = new ArrayList<>();

    @Override
    public void block(int slice, int set) {
      blocks.add(new int[] {slice, set});
    }

    @Override
    public void row(int[] set) {
      rows.add(set.clone());
    }
  }

  private static void fill(DedupFilter f, int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < n; i++) {
      f.testAndAdd(r.nextLong(), r.nextLong());
    }
  }

  private static Units census(FilterHeader h, HeapPageStore store, long pages) {
    Units u = new Units();
    PageCensus c = Filters.census(h);
    for (long id = 0; id < pages; id++) {
      c.count(id, store.page(id), u);
    }
    return u;
  }

  @Test
  void scalableBlocksHoldTheSlicesBits() {
    FilterHeader h = FilterSpec.scalable(0.01, 2_000, 2, 0.5, 1L << 24).newHeader(MAPPING);
    HeapPageStore store = new HeapPageStore();
    fill(Filters.open(h, store), 20_000, 5);
    PageCensus c = Filters.census(h);
    for (int slice = 0; slice < h.slices(); slice++) {
      long pages = FilterMath.pagesForBlocks(h.sliceBlocks(slice));
      Units u = new Units();
      long popcount = 0;
      for (long p = 0; p < pages; p++) {
        long id = FilterHeader.pageId(slice, p);
        c.count(id, store.page(id), u);
        for (long w : store.page(id)) {
          popcount += Long.bitCount(w);
        }
      }
      assertEquals(h.sliceBlocks(slice), u.blocks.size(), "blocks of slice " + slice);
      long set = 0;
      for (int[] b : u.blocks) {
        assertEquals(slice, b[0]);
        set += b[1];
      }
      assertEquals(popcount, set, "slice " + slice);
    }
    assertFalse(
        c.count(FilterHeader.pageId(h.slices(), 0), new long[PageStore.PAGE_WORDS], new Units()),
        "a slice the header lacks");
  }

  @ParameterizedTest(name = "d = {0}")
  @ValueSource(ints = {1, 2, 3, 4})
  void stableBlocksCountNonZeroCells(int d) {
    FilterHeader h = FilterSpec.stable(0.01, 40_000, d).newHeader(MAPPING);
    HeapPageStore store = new HeapPageStore();
    StableBloomFilter f = (StableBloomFilter) Filters.open(h, store);
    fill(f, 5_000, d);
    Units u = census(h, store, f.pages());
    StableMath.Geometry g = h.stableGeometry();
    assertEquals(g.blocks(), u.blocks.size());
    long nonZero = 0;
    for (int[] b : u.blocks) {
      nonZero += b[1];
    }
    assertEquals(g.cells() - f.countZeroCells(), nonZero);
  }

  /**
   * Aged, both layouts: before a turn the rows hold every bit outside the stamps; one turn later
   * position 0 is the recycled column (zero) and position i + 1 what position i was; a full turn of
   * the ring leaves nothing, though the pages still hold the bits.
   */
  @ParameterizedTest(name = "layout {0}")
  @ValueSource(ints = {1, 2})
  void agedRowsReadRecycledColumnsAsZero(int layout) {
    AgedMath.Geometry g =
        layout == 1
            ? new AgedMath.Geometry(5, 4, 300, 1_000_000)
            : AgedMath.Geometry.lineRows(2, 5, 4, 300, 1_000_000);
    FilterHeader h =
        FilterHeader.aged((AgedSpec) FilterSpec.agedCount(0.01, 1000, 3), MAPPING, g, 0);
    HeapPageStore store = new HeapPageStore();
    AgedBloomFilter f = (AgedBloomFilter) Filters.open(h, store);
    fill(f, 2_000, layout);
    f.shift(1);
    fill(f, 2_000, layout + 10);

    Units before = census(h, store, g.pages());
    assertEquals(g.rows(), before.rows.size());
    long popcount = 0;
    for (long p = 0; p < g.pages(); p++) {
      long[] w = store.page(p);
      for (int i = 0; i < w.length; i++) {
        boolean stamp = layout == 1 ? i == 0 : i % g.rowWords() == 0;
        popcount += Long.bitCount(stamp && layout == 2 ? w[i] >>> AgedMath.STAMP_BITS : w[i]);
        if (stamp && layout == 1) {
          popcount -= Long.bitCount(w[i]);
        }
      }
    }
    long set = 0;
    for (int[] row : before.rows) {
      for (int x : row) {
        set += x;
      }
    }
    assertEquals(popcount, set);

    f.shift(1);
    Units after = census(h, store, g.pages());
    for (int r = 0; r < before.rows.size(); r++) {
      int[] was = before.rows.get(r);
      int[] is = after.rows.get(r);
      int[] expected = new int[was.length];
      System.arraycopy(was, 0, expected, 1, was.length - 1);
      assertArrayEquals(expected, is, "row " + r);
    }

    f.shift(g.slices());
    for (int[] row : census(h, store, g.pages()).rows) {
      assertArrayEquals(new int[g.slices()], row);
    }
  }
}
