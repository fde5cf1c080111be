package io.urldedup.state;

import java.util.Arrays;

/**
 * An age-partitioned blocked Bloom filter (Shtul, Baquero, Almeida 2020, arXiv 2001.03147): k + l
 * slices in a ring; a new URL sets one bit in each of the k newest slices; a URL is seen when k
 * consecutive slices hold it; every generation the ring turns by one and the oldest slice becomes
 * the new, empty, newest one. A URL is therefore always seen during the l generations after the
 * one it was inserted in (no false negative inside the window) and fades out over the next k
 * generations ({@link AgedMath}). A repeat is a read: only a URL answered unseen is inserted, so
 * a URL comes back one window after it was last emitted, however often it was linked since.
 *
 * <p>Blocked layout (the paper's blocked variant): the slices are interleaved by 64-bit word. Row
 * w is R = k + l consecutive words, word c of the row being word w of the slice in ring column c;
 * a URL uses one row (from h1) and one bit of each word (from h2 and the column, through the same
 * nonlinear probe finalizer as {@link BlockedBloomFilter}). An insert writes k consecutive words
 * of one row (2-3 cache lines for k ~ 10-20), a query reads a few words of it; rows never
 * straddle 4 KiB pages, so an element touches one page of the {@link PageStore}.
 *
 * <p>Lazy clearing: turning the ring must empty a slice, which is one word of every row, i.e.
 * every page; doing that eagerly would rewrite the whole filter each generation, which defeats
 * the page cache and incremental checkpoints. Instead word 0 of each page stamps the generation
 * at which the page was last brought up to date; a column recycled since then reads as zero, and
 * the first insert into the page in a later generation zeroes those columns and restamps it.
 * Advancing is O(1); pages nobody touches stay untouched.
 *
 * <p>Determinism: decisions and pages are a function of the starting pages and {@link AgedClock}
 * and of the sequence of calls (inserts and advances) in order; both are persisted at every
 * checkpoint. Allocation-free.
 */
public final class AgedBloomFilter implements DedupFilter {

  private final FilterHeader header;
  private final AgedMath.Geometry geometry;
  private final AgedClock clock;
  private final PageStore store;
  private final boolean timed;
  private final int k;
  private final int l;
  private final int r;
  private final long rows;
  private final int rowsPerPage;
  private final long generationSize;
  private final long allColumns;

  /**
   * @param timed whether generations advance on time ({@link #advanceToEpoch}); then reaching the
   *     planned generation size advances early and is counted in {@link AgedClock#earlyAdvances()}
   */
  public AgedBloomFilter(AgedMath.Geometry geometry, AgedClock clock, boolean timed, PageStore store) {
    this(null, geometry, clock, timed, store);
  }

  /**
   * A filter of a bare geometry and clock (tests, benchmarks, reference models): no header.
   *
   * @param timed whether generations advance on time; then reaching the planned generation size
   *     advances early and is counted in {@link AgedClock#earlyAdvances()}
   */
  public static AgedBloomFilter open(AgedMath.Geometry geometry, AgedClock clock, boolean timed, PageStore store) {
    return new AgedBloomFilter(geometry, clock, timed, store);
  }

  /** The filter a header describes; inserts and advances update the header's {@link AgedClock}. */
  public AgedBloomFilter(FilterHeader header, PageStore store) {
    this(header, header.agedGeometry(), header.agedClock(), header.generationMillis() > 0, store);
  }

  private AgedBloomFilter(FilterHeader header, AgedMath.Geometry geometry, AgedClock clock, boolean timed,
      PageStore store) {
    this.header = header;
    this.geometry = geometry;
    this.clock = clock;
    this.store = store;
    this.timed = timed;
    this.k = geometry.k();
    this.l = geometry.l();
    this.r = geometry.slices();
    this.rows = geometry.rows();
    this.rowsPerPage = geometry.rowsPerPage();
    this.generationSize = geometry.generationSize();
    this.allColumns = r == 64 ? -1L : (1L << r) - 1;
  }

  /** Answers whether the URL is (probably) present; inserts it if not. A {@code true} writes nothing. */
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

  /**
   * Time windows: advances to time step {@code epoch} (floor(time / generation length)), one shift
   * per step since the last one (at most R matter: the ring is then empty); the first call only
   * sets the step, and a step at or before the current one changes nothing. Returns the shifts.
   */
  public long advanceToEpoch(long epoch) {
    if (clock.epoch == AgedClock.NO_EPOCH) {
      clock.epoch = epoch;
      return 0;
    }
    if (epoch <= clock.epoch) {
      return 0;
    }
    long shifts = epoch - clock.epoch;
    clock.epoch = epoch;
    shift(shifts);
    return shifts;
  }

  /** Turns the ring by {@code n} generations (O(1): pages are cleared lazily). */
  public void shift(long n) {
    if (n > 0) {
      clock.generation += n;
      clock.count = 0;
    }
  }

  private void insert(long pageId, long[] page, int off, long h1, long h2) {
    if (clock.count >= generationSize) {
      if (timed) {
        clock.earlyAdvances++;
      }
      shift(1);
    }
    long g = clock.generation;
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
    clock.count++;
    clock.inserts++;
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
      for (int p = anchor + 1; p < r && run < k && match(page, off, stale, base, p, h2, step); p++) {
        run++;
      }
      for (int p = anchor - 1; p >= 0 && run < k && match(page, off, stale, base, p, h2, step); p--) {
        run++;
      }
      if (run >= k) {
        return true;
      }
    }
    return false;
  }

  private boolean match(long[] page, int off, long stale, int base, int position, long h2, long step) {
    int col = base + position;
    if (col >= r) {
      col -= r;
    }
    if ((stale >>> col & 1) != 0) {
      return false;
    }
    return (page[off + col] >>> bit(h2, step, col) & 1) != 0;
  }

  /** Ring column of position 0 (the newest slice) at generation g. */
  private int base(long g) {
    return (int) Math.floorMod(-g, (long) r);
  }

  /**
   * Columns recycled by the shifts to generations stamp+1 .. g: a cyclic run of g - stamp columns
   * starting at base(g) (each shift moves base down by one), or all of them.
   */
  long staleColumns(long stamp, long g) {
    long d = g - stamp;
    if (d <= 0) {
      return 0;
    }
    if (d >= r) {
      return allColumns;
    }
    long run = (1L << d) - 1;
    int b = base(g);
    if (b == 0) {
      return run;
    }
    return ((run << b) | (run >>> (r - b))) & allColumns;
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
  private static int bit(long h2, long step, int col) {
    return (int) (BlockedBloomFilter.probeMix(h2 + col * step) >>> 58);
  }

  public AgedMath.Geometry geometry() {
    return geometry;
  }

  public AgedClock clock() {
    return clock;
  }

  public boolean timed() {
    return timed;
  }

  /**
   * Expected share of set bits over the slices now (mean-field over the row loads): full slices
   * hold k generations, position i < k holds i full ones and the current one.
   */
  @Override
  public double fillRatio() {
    double lambda = geometry.lambda();
    double current = (double) Math.min(clock.count, generationSize) / rows;
    double set = 0;
    for (int i = 0; i < r; i++) {
      double load = i < k ? i * lambda + current : k * lambda;
      set += -Math.expm1(load * Math.log1p(-1.0 / AgedMath.WORD_BITS));
    }
    return set / r;
  }

  /** The model's FPR at the end of a full generation: the most the filter has (generations never exceed g inserts). */
  @Override
  public double estimatedFpr() {
    return geometry.fpr();
  }

  @Override
  public long sizeBytes() {
    return geometry.bytes();
  }

  /** k + l. */
  @Override
  public int sliceCount() {
    return r;
  }

  /** The header (null for a filter built from a bare geometry: tests and benchmarks). */
  @Override
  public FilterHeader header() {
    return header;
  }
}
