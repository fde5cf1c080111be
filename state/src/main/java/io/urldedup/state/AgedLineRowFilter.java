package io.urldedup.state;

/**
 * Aged filter layout 2 (header layout 4), the blocked layout of the paper's Age-Partitioned Blocked
 * Bloom Filter: a row is L = {@link AgedMath.Geometry#rowLines} cache lines (8 L words, 64-byte
 * aligned within the 4 KiB page, which rows tile exactly). The low {@value AgedMath#STAMP_BITS}
 * bits of the row's first word stamp the generation the row was last brought up to date at; ring
 * column c owns the B-bit segment at bits 48 + c B .. 48 + (c+1) B - 1 of the row (B = {@link
 * AgedMath.Geometry#segmentBits}; segments may cross word boundaries, a bit never does). A URL sets
 * (tests) one bit of each of its columns' segments.
 *
 * <p>Lazy clearing per row: an insert into a row stamped at an earlier generation first zeroes the
 * segments of the columns recycled since (one or two contiguous bit ranges, or the whole row) and
 * restamps it; a query computes the same stale columns from the stamp and writes nothing. An insert
 * therefore touches its row only: the stamp's line and the lines of its k consecutive segments (2-3
 * lines at 4-line rows); a query touches the lines of the anchors it reads (up to the whole row, L
 * lines, one more where the page array is not 64-byte aligned on the heap). The stamp wraps after
 * 2^48 generations (a row untouched for that long would read stale columns as current: at one
 * generation a millisecond, 8,900 years).
 */
final class AgedLineRowFilter extends AgedBloomFilter {

  static final int STAMP_BITS = AgedMath.STAMP_BITS;
  static final long STAMP_MASK = (1L << STAMP_BITS) - 1;

  private final int rowWords;
  private final int bits;

  /** Rows per page and words per row are powers of two (64 / L and 8 L): shifts, not divisions. */
  private final int pageShift;

  private final long rowMask;
  private final int rowShift;

  /** base(g) of the generation it was computed for (a long division per call otherwise). */
  private long baseGeneration = Long.MIN_VALUE;

  private int baseColumn;

  AgedLineRowFilter(
      FilterHeader header,
      AgedMath.Geometry geometry,
      AgedClock clock,
      boolean timed,
      PageStore store) {
    super(header, geometry, clock, timed, store);
    if (geometry.layout() != 2) {
      throw new IllegalArgumentException("not a layout 2 geometry: " + geometry);
    }
    this.rowWords = geometry.rowWords();
    this.bits = geometry.segmentBits();
    this.pageShift = Integer.numberOfTrailingZeros(rowsPerPage);
    this.rowMask = rowsPerPage - 1;
    this.rowShift = Integer.numberOfTrailingZeros(rowWords);
  }

  /** Ring column of position 0 at generation g, cached per generation. */
  private int baseAt(long g) {
    if (g != baseGeneration) {
      baseColumn = base(g);
      baseGeneration = g;
    }
    return baseColumn;
  }

  /**
   * Answers whether the URL is (probably) present; inserts it if not. A {@code true} writes
   * nothing.
   */
  @Override
  public boolean testAndAdd(long h1, long h2) {
    long row = UrlHasher.reduce(h1, rows);
    long pageId = row >>> pageShift;
    long[] page = store.page(pageId);
    int off = (int) (row & rowMask) << rowShift;
    if (contains(page, off, h1, h2)) {
      return true;
    }
    insert(pageId, page, off, h1, h2);
    return false;
  }

  @Override
  public boolean mightContain(long h1, long h2) {
    long row = UrlHasher.reduce(h1, rows);
    return contains(store.page(row >>> pageShift), (int) (row & rowMask) << rowShift, h1, h2);
  }

  /** Inserts without asking (a forced record): the URL's window starts again now. */
  @Override
  public void add(long h1, long h2) {
    long row = UrlHasher.reduce(h1, rows);
    long pageId = row >>> pageShift;
    insert(pageId, store.page(pageId), (int) (row & rowMask) << rowShift, h1, h2);
  }

  private void insert(long pageId, long[] page, int off, long h1, long h2) {
    long g = beginInsert();
    int base = baseAt(g);
    long stamp = page[off] & STAMP_MASK;
    long now = g & STAMP_MASK;
    if (stamp != now) {
      clearStale(page, off, (now - stamp) & STAMP_MASK, base);
      page[off] = (page[off] & ~STAMP_MASK) | now;
    }
    long step = BlockedBloomFilter.step(h1);
    for (int i = 0; i < k; i++) {
      int col = base + i;
      if (col >= r) {
        col -= r;
      }
      int b = bitIndex(h2, step, col);
      page[off + (b >>> 6)] |= 1L << b;
    }
    store.markDirty(pageId);
    endInsert(h1, h2);
  }

  /**
   * k consecutive matching positions exist iff one of the anchors l, l - k, l - 2k, ... (>= 0)
   * matches and the run through it is k long: any k consecutive positions of 0..R-1 contain an
   * anchor. Anchors from the newest, where recent repeats are; a miss costs one segment.
   */
  private boolean contains(long[] page, int off, long h1, long h2) {
    long g = clock.generation;
    int base = baseAt(g);
    long d = ((g & STAMP_MASK) - (page[off] & STAMP_MASK)) & STAMP_MASK;
    long stale = d == 0 ? 0 : staleFrom(d, base);
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
    int b = bitIndex(h2, step, col);
    return (page[off + (b >>> 6)] >>> b & 1) != 0;
  }

  /**
   * {@inheritDoc} Here a segment is the column's B bits of the row, stale by the row's own stamp
   * (read as {@link #contains} reads it).
   */
  @Override
  public boolean census(long pageId, long[] words, CensusSink to) {
    long g = clock.generation;
    int base = base(g);
    int[] set = new int[r];
    long first = pageId * rowsPerPage;
    for (int row = 0; row < rowsPerPage && first + row < rows; row++) {
      int off = row * rowWords;
      long d = ((g & STAMP_MASK) - (words[off] & STAMP_MASK)) & STAMP_MASK;
      long stale = d == 0 ? 0 : staleFrom(d, base);
      for (int i = 0; i < r; i++) {
        int col = base + i;
        if (col >= r) {
          col -= r;
        }
        int from = STAMP_BITS + col * bits;
        set[i] = (stale >>> col & 1) != 0 ? 0 : countBits(words, off, from, from + bits);
      }
      to.row(set);
    }
    return true;
  }

  /**
   * Bit of the row (0 .. 64 L - 1) the URL uses in ring column c: its segment's start plus a
   * position in 0..B-1 from the top 32 bits of the probe finalizer (multiply-shift: uniform for any
   * B), independent across columns.
   */
  int bitIndex(long h2, long step, int col) {
    long x = BlockedBloomFilter.probeMix(h2 + col * step) >>> 32;
    return STAMP_BITS + col * bits + (int) ((x * bits) >>> 32);
  }

  /**
   * Zeroes the segments of the columns recycled by the last {@code d} shifts up to the generation
   * whose base column is {@code first}: the cyclic run of columns first .. first + d - 1 (mod R),
   * one or two bit ranges; all segments if d >= R. The stamp bits are kept (the caller restamps).
   */
  private void clearStale(long[] page, int off, long d, int first) {
    if (d >= r) {
      clearBits(page, off, STAMP_BITS, STAMP_BITS + r * bits);
      return;
    }
    int end = first + (int) d;
    if (end <= r) {
      clearBits(page, off, STAMP_BITS + first * bits, STAMP_BITS + end * bits);
    } else {
      clearBits(page, off, STAMP_BITS + first * bits, STAMP_BITS + r * bits);
      clearBits(page, off, STAMP_BITS, STAMP_BITS + (end - r) * bits);
    }
  }

  /** Set bits [from, to) of the row at {@code off} (from < to), masked as {@link #clearBits}. */
  static int countBits(long[] page, int off, int from, int to) {
    int w = from >>> 6;
    int last = (to - 1) >>> 6;
    long head = -1L << from;
    long tail = -1L >>> (63 - ((to - 1) & 63));
    if (w == last) {
      return Long.bitCount(page[off + w] & head & tail);
    }
    int n = Long.bitCount(page[off + w] & head);
    for (int i = w + 1; i < last; i++) {
      n += Long.bitCount(page[off + i]);
    }
    return n + Long.bitCount(page[off + last] & tail);
  }

  /** Zeroes bits [from, to) of the row at {@code off} (from < to). */
  static void clearBits(long[] page, int off, int from, int to) {
    int w = from >>> 6;
    int last = (to - 1) >>> 6;
    long head = -1L << from;
    long tail = -1L >>> (63 - ((to - 1) & 63));
    if (w == last) {
      page[off + w] &= ~(head & tail);
      return;
    }
    page[off + w] &= ~head;
    for (int i = w + 1; i < last; i++) {
      page[off + i] = 0;
    }
    page[off + last] &= ~tail;
  }
}
