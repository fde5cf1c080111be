package io.urldedup.state;

import java.util.Arrays;

/**
 * Aged filter layout 1 (header layout 3): the slices are interleaved by 64-bit word. Row w is R = k
 * + l consecutive words after a page's word 0, word c of the row being word w of the slice in ring
 * column c; a URL sets (tests) one bit of each of its k (its anchors' and runs') words. Word 0 of
 * each page stamps the generation at which the page was last brought up to date; an insert into a
 * page stamped earlier zeroes the recycled columns of every row of the page (strided over the page)
 * and restamps it.
 *
 * <p>A false query reads words across the whole row: 7-8 cache lines at the default sizing (R ~ 57
 * words). {@link AgedLineRowFilter} replaced it for new filters; this class stays so that state
 * written with it (golden files pin it) restores and decides exactly as before.
 */
final class AgedWordRowFilter extends AgedBloomFilter {

  AgedWordRowFilter(
      FilterHeader header,
      AgedMath.Geometry geometry,
      AgedClock clock,
      boolean timed,
      PageStore store) {
    super(header, geometry, clock, timed, store);
    if (geometry.layout() != 1) {
      throw new IllegalArgumentException("not a layout 1 geometry: " + geometry);
    }
  }

  /**
   * Answers whether the URL is (probably) present; inserts it if not. A {@code true} writes
   * nothing.
   */
  @Override
  public boolean testAndAdd(long h1, long h2) {
    long row = UrlHasher.reduce(h1, rows);
    long pageId = row / rowsPerPage;
    long[] page = store.page(pageId);
    int off = 1 + (int) (row - pageId * rowsPerPage) * r;
    if (contains(page, off, h1, h2)) {
      return true;
    }
    insert(pageId, page, off, h1, h2);
    return false;
  }

  @Override
  public boolean mightContain(long h1, long h2) {
    long row = UrlHasher.reduce(h1, rows);
    long pageId = row / rowsPerPage;
    long[] page = store.page(pageId);
    return contains(page, 1 + (int) (row - pageId * rowsPerPage) * r, h1, h2);
  }

  /** Inserts without asking (a forced record): the URL's window starts again now. */
  @Override
  public void add(long h1, long h2) {
    long row = UrlHasher.reduce(h1, rows);
    long pageId = row / rowsPerPage;
    insert(pageId, store.page(pageId), 1 + (int) (row - pageId * rowsPerPage) * r, h1, h2);
  }

  private void insert(long pageId, long[] page, int off, long h1, long h2) {
    long g = beginInsert();
    if (page[0] != g) {
      normalize(page, staleColumns(page[0], g), g);
    }
    int base = base(g);
    long step = BlockedBloomFilter.step(h1);
    for (int i = 0; i < k; i++) {
      int col = base + i;
      if (col >= r) {
        col -= r;
      }
      page[off + col] |= 1L << bit(h2, step, col);
    }
    store.markDirty(pageId);
    endInsert(h1, h2);
  }

  /**
   * k consecutive matching positions exist iff one of the anchors l, l - k, l - 2k, ... (>= 0)
   * matches and the run through it is k long: any k consecutive positions of 0..R-1 contain an
   * anchor. Anchors from the newest, where recent repeats are; a miss costs one word.
   */
  private boolean contains(long[] page, int off, long h1, long h2) {
    long g = clock.generation;
    long stale = page[0] == g ? 0 : staleColumns(page[0], g);
    int base = base(g);
    long step = BlockedBloomFilter.step(h1);
    for (int anchor = l % k; anchor <= l; anchor += k) {
      if (!match(page, off, stale, base, anchor, h2, step)) {
        continue;
      }
      int run = 1;
      for (int p = anchor + 1;
          p < r && run < k && match(page, off, stale, base, p, h2, step);
          p++) {
        run++;
      }
      for (int p = anchor - 1;
          p >= 0 && run < k && match(page, off, stale, base, p, h2, step);
          p--) {
        run++;
      }
      if (run >= k) {
        return true;
      }
    }
    return false;
  }

  private boolean match(
      long[] page, int off, long stale, int base, int position, long h2, long step) {
    int col = base + position;
    if (col >= r) {
      col -= r;
    }
    if ((stale >>> col & 1) != 0) {
      return false;
    }
    return (page[off + col] >>> bit(h2, step, col) & 1) != 0;
  }

  /** {@inheritDoc} Here a segment is the row's word of the column, stale by the page's stamp. */
  @Override
  public boolean census(long pageId, long[] words, CensusSink to) {
    long g = clock.generation;
    long stale = staleColumns(words[0], g);
    int base = base(g);
    int[] set = new int[r];
    long first = pageId * rowsPerPage;
    for (int row = 0; row < rowsPerPage && first + row < rows; row++) {
      int off = 1 + row * r;
      for (int i = 0; i < r; i++) {
        int col = base + i;
        if (col >= r) {
          col -= r;
        }
        set[i] = (stale >>> col & 1) != 0 ? 0 : Long.bitCount(words[off + col]);
      }
      to.row(set);
    }
    return true;
  }

  private void normalize(long[] page, long stale, long g) {
    if (stale == allColumns) {
      Arrays.fill(page, 1, PageStore.PAGE_WORDS, 0L);
    } else {
      for (long m = stale; m != 0; m &= m - 1) {
        int col = Long.numberOfTrailingZeros(m);
        for (int w = 1 + col, end = 1 + rowsPerPage * r; w < end; w += r) {
          page[w] = 0;
        }
      }
    }
    page[0] = g;
  }

  /** Bit of the URL's word in ring column c: independent across columns through the finalizer. */
  static int bit(long h2, long step, int col) {
    return (int) (BlockedBloomFilter.probeMix(h2 + col * step) >>> 58);
  }
}
