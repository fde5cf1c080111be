package io.urldedup.state;

/**
 * An age-partitioned blocked Bloom filter (Shtul, Baquero, Almeida 2020, arXiv 2001.03147): k + l
 * slices in a ring; a new URL sets one bit in each of the k newest slices; a URL is seen when k
 * consecutive slices hold it; every generation the ring turns by one and the oldest slice becomes
 * the new, empty, newest one. A URL is therefore always seen during the l generations after the one
 * it was inserted in (no false negative inside the window) and fades out over the next k
 * generations ({@link AgedMath}). A repeat is a read: only a URL answered unseen is inserted, so a
 * URL comes back one window after it was last emitted, however often it was linked since.
 *
 * <p>Blocked: a URL uses one row (from h1) and one bit of the row's segment of each slice (from h2
 * and the slice's ring column, through the nonlinear probe finalizer of {@link
 * BlockedBloomFilter}); rows never straddle 4 KiB pages, so a URL touches one page of the {@link
 * PageStore}. The rows are laid out by one of two classes ({@link AgedMath.Geometry#layout}):
 * {@link AgedLineRowFilter} (layout 2, today's: rows of 1-4 cache lines, each stamped with its own
 * generation) and {@link AgedWordRowFilter} (layout 1: a row is one 64-bit word of every slice,
 * pages stamped; kept so that state written with it restores and decides exactly as before).
 *
 * <p>Lazy clearing: turning the ring must empty a slice, a segment of every row; doing that eagerly
 * would rewrite the whole filter each generation, which defeats the page cache and incremental
 * checkpoints. Instead a stamp records the generation at which a row (or page) was last brought up
 * to date; a column recycled since then reads as zero, and the next insert there zeroes those
 * columns and restamps. Advancing is O(1); rows nobody touches stay untouched.
 *
 * <p>This class holds what both layouts share: the ring (base column, stale columns), the clock,
 * the planned generation size and early advances. Determinism: decisions and pages are a function
 * of the starting pages and {@link AgedClock} and of the sequence of calls (inserts and advances)
 * in order; both are persisted at every checkpoint. Allocation-free.
 */
public abstract sealed class AgedBloomFilter implements DedupFilter
    permits AgedWordRowFilter, AgedLineRowFilter {

  final FilterHeader header;
  final AgedMath.Geometry geometry;
  final AgedClock clock;
  final PageStore store;
  final boolean timed;
  final int k;
  final int l;
  final int r;
  final long rows;
  final int rowsPerPage;
  final long generationSize;
  final long allColumns;
  InsertLog log;

  AgedBloomFilter(
      FilterHeader header,
      AgedMath.Geometry geometry,
      AgedClock clock,
      boolean timed,
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

  /**
   * A filter of a bare geometry and clock (tests, benchmarks, reference models): no header.
   *
   * @param timed whether generations advance on time ({@link #advanceToEpoch}); then reaching the
   *     planned generation size advances early and is counted in {@link AgedClock#earlyAdvances()}
   */
  public static AgedBloomFilter open(
      AgedMath.Geometry geometry, AgedClock clock, boolean timed, PageStore store) {
    return open(null, geometry, clock, timed, store);
  }

  /** The filter a header describes; inserts and advances update the header's {@link AgedClock}. */
  public static AgedBloomFilter open(FilterHeader header, PageStore store) {
    return open(
        header, header.agedGeometry(), header.agedClock(), header.generationMillis() > 0, store);
  }

  private static AgedBloomFilter open(
      FilterHeader header,
      AgedMath.Geometry geometry,
      AgedClock clock,
      boolean timed,
      PageStore store) {
    return geometry.layout() == 1
        ? new AgedWordRowFilter(header, geometry, clock, timed, store)
        : new AgedLineRowFilter(header, geometry, clock, timed, store);
  }

  /**
   * Time windows: advances to time step {@code epoch} (floor(time / generation length)), one shift
   * per step since the last one (at most R matter: the ring is then empty); the first call only
   * sets the step, and a step at or before the current one changes nothing. Returns the shifts.
   */
  public long advanceToEpoch(long epoch) {
    if (clock.epoch == AgedClock.NO_EPOCH) {
      clock.epoch = epoch;
      if (log != null) {
        log.advance(epoch);
      }
      return 0;
    }
    if (epoch <= clock.epoch) {
      return 0;
    }
    long shifts = epoch - clock.epoch;
    clock.epoch = epoch;
    turn(shifts);
    if (log != null) {
      log.advance(epoch);
    }
    return shifts;
  }

  /**
   * Turns the ring by {@code n} generations (O(1): rows are cleared lazily). Not logged: callers
   * that log changes advance with {@link #advanceToEpoch}.
   */
  public void shift(long n) {
    turn(n);
  }

  private void turn(long n) {
    if (n > 0) {
      clock.generation += n;
      clock.count = 0;
    }
  }

  /**
   * Before an insert: a generation that holds its planned g inserts turns the ring first (count
   * windows: that is the generation step; time windows: an early advance, counted). Returns the
   * generation to insert into.
   */
  final long beginInsert() {
    if (clock.count >= generationSize) {
      if (timed) {
        clock.earlyAdvances++;
      }
      turn(1);
    }
    return clock.generation;
  }

  /** After an insert of (h1, h2). */
  final void endInsert(long h1, long h2) {
    clock.count++;
    clock.inserts++;
    if (log != null) {
      log.insert(h1, h2);
    }
  }

  @Override
  public void logTo(InsertLog log) {
    this.log = log;
  }

  /**
   * An insert is {@link #add} (the unseen element's insert); an advance {@link #advanceToEpoch}.
   */
  @Override
  public void redo(int op, long a, long b) {
    InsertLog l = log;
    log = null;
    try {
      switch (op) {
        case InsertLog.INSERT -> add(a, b);
        case InsertLog.ADVANCE -> advanceToEpoch(a);
        default ->
            throw new IllegalStateException(
                "an aged filter logs inserts and advances only; got op " + op);
      }
    } finally {
      log = l;
    }
  }

  /** Ring column of position 0 (the newest slice) at generation g. */
  final int base(long g) {
    return (int) Math.floorMod(-g, (long) r);
  }

  /** Columns recycled by the shifts to generations stamp+1 .. g. */
  final long staleColumns(long stamp, long g) {
    return staleAfter(g - stamp, g);
  }

  /**
   * Columns recycled by the last {@code d} shifts up to generation g: a cyclic run of d columns
   * starting at base(g) (each shift moves base down by one), or all of them.
   */
  final long staleAfter(long d, long g) {
    return staleFrom(d, base(g));
  }

  /** {@link #staleAfter} with base(g) given (a caller that has it saves the division). */
  final long staleFrom(long d, int b) {
    if (d <= 0) {
      return 0;
    }
    if (d >= r) {
      return allColumns;
    }
    long run = (1L << d) - 1;
    if (b == 0) {
      return run;
    }
    return ((run << b) | (run >>> (r - b))) & allColumns;
  }

  /**
   * Census of a stored page ({@link PageCensus}) at the clock's generation: each of its rows with
   * the set bits of each ring position's segment, position i (0 the newest) being ring column (base
   * + i) mod (k + l); columns recycled since the row's (layout 1: the page's) stamp read as zero,
   * as {@code contains} reads them.
   */
  public abstract boolean census(long pageId, long[] words, CensusSink to);

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
    double missPerLoad = Math.log1p(-1.0 / geometry.segmentBits());
    double set = 0;
    for (int i = 0; i < r; i++) {
      double load = i < k ? i * lambda + current : k * lambda;
      set += -Math.expm1(load * missPerLoad);
    }
    return set / r;
  }

  /**
   * The model's FPR at the end of a full generation: the most the filter has (generations never
   * exceed g inserts).
   */
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
