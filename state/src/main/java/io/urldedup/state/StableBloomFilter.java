package io.urldedup.state;

/**
 * A blocked stable Bloom filter (Deng & Rafiei 2006) over d-bit cells, Max = 2^d - 1.
 *
 * <p>An element maps to one block (8..512 words, a power of two, inside one 4 KiB page) and all of
 * its work stays there: {@code testAndAdd} reads its K cells (the answer is "seen" iff all were
 * non-zero), decrements P cells of the block, then sets its K cells to Max. The block is then an
 * independent small stable filter, so the per-block formulas hold with m = cells per block
 * ({@link FilterMath#stableZeroFraction}). The P decremented cells are a run of consecutive cells
 * (wrapping inside the block) starting at a cell derived from the element's hash, as the paper
 * allows: each cell of the block is decremented with probability P/mb per insert, decay is
 * deterministic (replaying the input replays the decisions) and the run is decremented a word at a
 * time with SWAR arithmetic. Cells never straddle words (d = 3: 21 cells per word, bit 63 unused).
 *
 * <p>Allocation-free; one page lookup per element.
 */
public final class StableBloomFilter implements DedupFilter {

  private final FilterHeader header;
  private final PageStore store;
  private final FilterMath.StableGeometry geometry;
  private final int d;
  private final long max;
  private final int k;
  private final int p;
  private final int cpw;
  private final int blockWords;
  private final int wordBits;
  private final int blocksPerPageBits;
  private final long blocks;
  /** The lowest bit of every cell of a word. */
  private final long lowBits;

  private long cachedAt = -1;
  private double cachedFpr;
  private double cachedFill;

  public StableBloomFilter(FilterHeader header, PageStore store) {
    this.header = header;
    this.store = store;
    this.geometry = header.stableGeometry();
    this.d = geometry.cellBits();
    this.max = geometry.max();
    this.k = geometry.k();
    this.p = geometry.p();
    this.cpw = FilterMath.cellsPerWord(d);
    this.blockWords = geometry.blockWords();
    this.wordBits = Integer.numberOfTrailingZeros(blockWords);
    this.blocksPerPageBits = Integer.numberOfTrailingZeros(PageStore.PAGE_WORDS / blockWords);
    this.blocks = geometry.blocks();
    long low = 0;
    for (int i = 0; i < cpw; i++) {
      low |= 1L << (i * d);
    }
    this.lowBits = low;
  }

  @Override
  public boolean testAndAdd(long h1, long h2) {
    long block = UrlHasher.reduce(h1, blocks);
    long pageId = block >>> blocksPerPageBits;
    long[] page = store.page(pageId);
    int base = (int) (block & ((1 << blocksPerPageBits) - 1)) << wordBits;
    long step = BlockedBloomFilter.step(h1);
    boolean seen = true;
    long g = h2;
    for (int i = 0; i < k; i++) {
      if (((page[base + word(g)] >>> shift(g)) & max) == 0) {
        seen = false;
      }
      g += step;
    }
    insert(page, base, h2, step, g);
    store.markDirty(pageId);
    header.inserts++;
    return seen;
  }

  @Override
  public boolean mightContain(long h1, long h2) {
    long block = UrlHasher.reduce(h1, blocks);
    long[] page = store.page(block >>> blocksPerPageBits);
    int base = (int) (block & ((1 << blocksPerPageBits) - 1)) << wordBits;
    long step = BlockedBloomFilter.step(h1);
    long g = h2;
    for (int i = 0; i < k; i++) {
      if (((page[base + word(g)] >>> shift(g)) & max) == 0) {
        return false;
      }
      g += step;
    }
    return true;
  }

  @Override
  public void add(long h1, long h2) {
    long block = UrlHasher.reduce(h1, blocks);
    long pageId = block >>> blocksPerPageBits;
    long[] page = store.page(pageId);
    int base = (int) (block & ((1 << blocksPerPageBits) - 1)) << wordBits;
    long step = BlockedBloomFilter.step(h1);
    insert(page, base, h2, step, h2 + k * step);
    store.markDirty(pageId);
    header.inserts++;
  }

  /** Decrements P consecutive cells from the cell of {@code decay}, then sets the K cells to Max. */
  private void insert(long[] page, int base, long h2, long step, long decay) {
    int w = word(decay);
    int slot = slot(decay);
    int remaining = p;
    int wordMask = blockWords - 1;
    while (remaining > 0) {
      int n = Math.min(cpw - slot, remaining);
      int at = base + w;
      page[at] = decrement(page[at], rangeLowBits(slot, n));
      remaining -= n;
      slot = 0;
      w = (w + 1) & wordMask;
    }
    long g = h2;
    for (int i = 0; i < k; i++) {
      page[base + word(g)] |= max << shift(g);
      g += step;
    }
  }

  /** Word of the block: the top bits of the probe value. */
  private int word(long g) {
    return wordBits == 0 ? 0 : (int) (g >>> (64 - wordBits));
  }

  /** Cell of the word: the next 32 bits, reduced onto [0, cells per word) by multiply-shift. */
  private int slot(long g) {
    return (int) ((((g << wordBits) >>> 32) * cpw) >>> 32);
  }

  private int shift(long g) {
    return slot(g) * d;
  }

  /** The lowest bit of each of the cells [slot, slot + n) of a word. */
  private long rangeLowBits(int slot, int n) {
    int hiBit = (slot + n) * d;
    long upTo = hiBit >= 64 ? -1L : (1L << hiBit) - 1;
    return upTo & (-1L << (slot * d)) & lowBits;
  }

  /**
   * Saturating decrement of the selected cells of a word (SWAR): a cell's lowest bit in {@code nz}
   * is the OR of its d bits, so subtracting nz takes 1 from exactly the non-zero selected cells and
   * never borrows across cells.
   */
  private long decrement(long x, long range) {
    long t = x;
    if (d > 1) {
      t |= x >>> 1;
    }
    if (d > 2) {
      t |= x >>> 2;
    }
    if (d > 3) {
      t |= x >>> 3;
    }
    return x - (t & range);
  }

  @Override
  public FilterHeader header() {
    return header;
  }

  public FilterMath.StableGeometry geometry() {
    return geometry;
  }

  /** Model estimate from the insert counter (per-cell chain); it converges to 1 - stable zero fraction. */
  @Override
  public double fillRatio() {
    refresh();
    return cachedFill;
  }

  /** Model estimate from the insert counter; converges to the stable FPR. */
  @Override
  public double estimatedFpr() {
    refresh();
    return cachedFpr;
  }

  private void refresh() {
    if (cachedAt != header.inserts) {
      cachedAt = header.inserts;
      cachedFill = FilterMath.stableFillAfter(geometry, cachedAt);
      cachedFpr = FilterMath.stableFprAfter(geometry, cachedAt);
    }
  }

  @Override
  public long sizeBytes() {
    return pages() * PageStore.PAGE_BYTES;
  }

  public long pages() {
    return (blocks * blockWords + PageStore.PAGE_WORDS - 1) / PageStore.PAGE_WORDS;
  }

  @Override
  public int sliceCount() {
    return 1;
  }
}
