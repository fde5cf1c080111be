package io.urldedup.state;

/**
 * A blocked stable Bloom filter (Deng & Rafiei 2006) over d-bit cells, Max = 2^d - 1.
 *
 * <p>An element maps to one block (8..512 words, a power of two, inside one 4 KiB page) and all of
 * its work stays there: {@code testAndAdd} reads its K cells; if all are non-zero the answer is
 * "seen" and nothing is written, otherwise it decrements P cells of the block, then sets its K
 * cells to Max. The block is then an independent small stable filter, so the per-block formulas
 * hold with m = cells per block ({@link StableMath#zeroFraction}). The K cells lie in K distinct
 * words of the block and the P decrements are spread over the words as rotated runs (see {@link
 * #insert}), decremented a word at a time with SWAR arithmetic; one consecutive run of P cells
 * would be cheaper but makes nearby cells decay together, and with P/mb near 0.4 that raised the
 * measured FPR 15-20% above the independent-cell model. Cells never straddle words (d = 3: 21 cells
 * per word, bit 63 unused).
 *
 * <p>A repeat is a read. Deng and Rafiei insert every arrival, and their analysis assumes that each
 * arrival sets K cells drawn afresh. A crawl stream is mostly repeats of hot URLs (the sample
 * generator: 70%, Zipf): inserting them decays P cells per repeat while setting cells that are
 * already set, so the filter forgets other URLs far faster than the model says (300,000 sample
 * lines, 128 shards of 32 KiB: 283 URLs re-emitted against 51 predicted). Inserting only what is
 * answered unseen makes the filter see exactly the stream the model assumes, the stream of new
 * URLs, so the FPR, the zero fraction and the forgetting follow {@link FilterMath} with "arrivals"
 * read as "inserts". What it changes for crawlers: a URL is forgotten after about {@code retention}
 * new URLs since it was last emitted, however often it was linked since; hot pages come back for
 * recrawl too. It also makes a duplicate free of writes.
 *
 * <p>Re-inserts of an element (forgotten, then inserted again; or {@link #add}) must decay cells
 * chosen independently of its earlier inserts: decay positions drawn from the element's hash alone
 * made every repeat of a hot URL decrement the same P cells (StableBloomFilterTest measures it). So
 * the decay seed mixes the element's hash with the filter's insert counter ({@link
 * FilterHeader#inserts()}, the number of inserts before this one).
 *
 * <p>Determinism, precisely: the decisions and the cells are a function of the starting state
 * (pages and header, including the counter) and the sequence of arrivals in order. The counter is
 * persisted in the header, written with the pages at every checkpoint, so restoring a checkpoint
 * and replaying the shard's arrivals in the same order replays the same decisions and the same
 * bytes. The same elements in another order give other cells; that was always so, since which cells
 * are zero when an element is tested depends on the order of the arrivals before it.
 *
 * <p>Allocation-free; one page lookup per element.
 */
public final class StableBloomFilter implements DedupFilter {

  private final FilterHeader header;
  private final PageStore store;
  private final StableMath.Geometry geometry;
  private final int d;
  private final long max;
  private final int k;
  private final int p;
  private final int cpw;
  private final int blockWords;
  private final int wordBits;
  private final int blocksPerPageBits;
  private final long blocks;
  private final int usedBits;
  private final long usedMask;

  /** runMasks[n]: the lowest bit of each of cells 0..n-1 of a word. */
  private final long[] runMasks;

  /** RUN_MASKS[d][n], shared so that opening a filter does not allocate. */
  private static final long[][] RUN_MASKS = new long[5][];

  static {
    for (int d = 1; d <= 4; d++) {
      int cpw = StableMath.cellsPerWord(d);
      RUN_MASKS[d] = new long[cpw + 1];
      for (int n = 1; n <= cpw; n++) {
        RUN_MASKS[d][n] = RUN_MASKS[d][n - 1] | (1L << ((n - 1) * d));
      }
    }
  }

  /** Sink of the batch's touching loads (its value means nothing). */
  long touched;

  private InsertLog log;

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
    this.cpw = StableMath.cellsPerWord(d);
    this.blockWords = geometry.blockWords();
    this.wordBits = Integer.numberOfTrailingZeros(blockWords);
    this.blocksPerPageBits = Integer.numberOfTrailingZeros(PageStore.PAGE_WORDS / blockWords);
    this.blocks = geometry.blocks();
    if (k > blockWords) {
      throw new IllegalArgumentException(
          "K = " + k + " needs blocks of at least K words; got " + blockWords);
    }
    this.usedBits = cpw * d;
    this.usedMask = usedBits == 64 ? -1L : (1L << usedBits) - 1;
    this.runMasks = RUN_MASKS[d];
  }

  @Override
  public boolean testAndAdd(long h1, long h2) {
    long block = UrlHasher.reduce(h1, blocks);
    long pageId = block >>> blocksPerPageBits;
    long[] page = store.page(pageId);
    int base = blockBase(block);
    if (contains(page, base, h1, h2)) {
      return true;
    }
    insert(page, base, h1, h2);
    store.markDirty(pageId);
    header.inserts++;
    if (log != null) {
      log.insert(h1, h2);
    }
    return false;
  }

  @Override
  public boolean mightContain(long h1, long h2) {
    long block = UrlHasher.reduce(h1, blocks);
    long[] page = store.page(block >>> blocksPerPageBits);
    int base = blockBase(block);
    return contains(page, base, h1, h2);
  }

  @Override
  public void add(long h1, long h2) {
    long block = UrlHasher.reduce(h1, blocks);
    long pageId = block >>> blocksPerPageBits;
    long[] page = store.page(pageId);
    int base = blockBase(block);
    insert(page, base, h1, h2);
    store.markDirty(pageId);
    header.inserts++;
    if (log != null) {
      log.insert(h1, h2);
    }
  }

  @Override
  public void logTo(InsertLog log) {
    this.log = log;
  }

  /**
   * An insert is an unseen element's insert: decay with the counter, set, count (as {@link #add}).
   */
  @Override
  public void redo(int op, long h1, long h2) {
    if (op != InsertLog.INSERT) {
      throw new IllegalStateException("a stable filter logs inserts only; got op " + op);
    }
    InsertLog l = log;
    log = null;
    add(h1, h2);
    log = l;
  }

  /**
   * {@code seen[i] = testAndAdd(h1[i], h2[i])} for i = 0..n-1 in order; the second pass is those
   * calls, so answers, cells and the insert counter are those of the single calls. The first pass
   * loads every eighth word and the last word of each element's block, which covers every line of
   * the block however the page array is aligned ({@code BlockedBloomFilter.touch}); the loads are
   * independent, so their misses overlap (memory-level parallelism; group prefetching as in Chen et
   * al., ICDE 2004); see {@link BlockedBloomFilter#testAndAdd(long[], long[], int, boolean[])} for
   * why. Allocation-free.
   */
  @Override
  public void testAndAdd(long[] h1, long[] h2, int n, boolean[] seen) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
      long block = UrlHasher.reduce(h1[i], blocks);
      long[] page = store.page(block >>> blocksPerPageBits);
      int base = blockBase(block);
      for (int w = 0; w < blockWords; w += BlockedBloomFilter.BLOCK_WORDS) {
        sum += page[base + w];
      }
      sum += page[base + blockWords - 1];
    }
    touched = sum;
    for (int i = 0; i < n; i++) {
      seen[i] = testAndAdd(h1[i], h2[i]);
    }
  }

  /**
   * Probe i is cell slot(g_i) of word (w0 + i * ws) mod W: the K cells lie in K distinct words (ws
   * odd, W a power of two, K <= W), so they never share a word's decay.
   */
  private boolean contains(long[] page, int base, long h1, long h2) {
    long step = BlockedBloomFilter.step(h1);
    int wordMask = blockWords - 1;
    int w = firstWord(h2);
    int ws = wordStep(step);
    long g = h2;
    for (int i = 0; i < k; i++) {
      if (((page[base + w] >>> (slot(g) * d)) & max) == 0) {
        return false;
      }
      g += step;
      w = (w + ws) & wordMask;
    }
    return true;
  }

  /**
   * Decay, then set. Decay: word w of the block loses one from each non-zero cell of a run of n_w
   * cells at a uniformly random rotation o_w inside the word; n_w = floor(P/W) + [w is one of the P
   * mod W words after a random start], so exactly P cells are decremented and every cell is hit
   * with probability P/mb, independently across words: the per-cell model of {@link
   * StableMath#cellChain} holds for cells of distinct words, which is where an element's K cells
   * are. The randomness is SplitMix64 of the element's hash and the insert counter, so re-inserts
   * of one element decay fresh cells (see the class comment); the counter is the SplitMix64 state,
   * i.e. the counter times the golden gamma, finalized.
   */
  private void insert(long[] page, int base, long h1, long h2) {
    long seed =
        h2 ^ Long.rotateLeft(h1, 21) ^ SplitMix64.mix((header.inserts + 1) * SplitMix64.GAMMA);
    int wordMask = blockWords - 1;
    int q = p >>> wordBits;
    int rem = p & wordMask;
    int rot = (int) (SplitMix64.mix(seed) >>> (64 - Math.max(1, wordBits))) & wordMask;
    long r = 0;
    for (int w = 0; w < blockWords; w++) {
      if ((w & 3) == 0) {
        r = SplitMix64.mix(seed + (w + 1) * SplitMix64.GAMMA);
      }
      int n = q + (((w - rot) & wordMask) < rem ? 1 : 0);
      int off = (int) (((r & 0xFFFFL) * cpw) >>> 16);
      r >>>= 16;
      if (n != 0) {
        int at = base + w;
        page[at] = decrement(page[at], rotate(runMasks[n], off));
      }
    }
    long step = BlockedBloomFilter.step(h1);
    int w = firstWord(h2);
    int ws = wordStep(step);
    long g = h2;
    for (int i = 0; i < k; i++) {
      page[base + w] |= max << (slot(g) * d);
      g += step;
      w = (w + ws) & wordMask;
    }
  }

  /** Index in its page of the block's first word. */
  private int blockBase(long block) {
    return (int) (block & ((1 << blocksPerPageBits) - 1)) << wordBits;
  }

  private int firstWord(long h2) {
    return (int) (h2 >>> (64 - wordBits));
  }

  /** Odd word stride from bits of the step that the slots do not use. */
  private int wordStep(long step) {
    return ((int) (step >>> 48) << 1 | 1) & (blockWords - 1);
  }

  /**
   * Cell of the word for probe value g: a one-multiply finalizer, then multiply-shift onto [0,
   * cells per word). Without the finalizer the K slots form an arithmetic progression, a small
   * family of patterns inside a 168-cell block: inserts then hit several cells of the same
   * non-member together and the measured FPR was 4% above the independent-cell model.
   */
  private int slot(long g) {
    long y = BlockedBloomFilter.probeMix(g);
    return (int) (((y >>> 32) * cpw) >>> 32);
  }

  /**
   * Rotates a low-bits mask by {@code off} cells inside the used bits of a word (63 bits for d =
   * 3).
   */
  private long rotate(long mask, int off) {
    int s = off * d;
    if (usedBits == 64) {
      return Long.rotateLeft(mask, s);
    }
    return ((mask << s) | (mask >>> (usedBits - s))) & usedMask;
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

  /**
   * Census of a stored page ({@link PageCensus}): each of its blocks (slice 0) with its non-zero
   * cells. A cell is non-zero iff the OR of its d bits, folded onto its lowest bit as in {@link
   * #decrement}, is set; {@code runMasks[cpw]} holds the lowest bit of every cell of a word.
   */
  public boolean census(long pageId, long[] words, CensusSink to) {
    long low = runMasks[cpw];
    int blocksPerPage = 1 << blocksPerPageBits;
    long first = pageId * blocksPerPage;
    for (int b = 0; b < blocksPerPage && first + b < blocks; b++) {
      int nonZero = 0;
      for (int w = 0; w < blockWords; w++) {
        long x = words[b * blockWords + w];
        long t = x;
        for (int s = 1; s < d; s++) {
          t |= x >>> s;
        }
        nonZero += Long.bitCount(t & low);
      }
      to.block(0, nonZero);
    }
    return true;
  }

  /** Zero cells over the whole filter, read from the pages (tests; not for the hot path). */
  long countZeroCells() {
    long zeros = 0;
    long words = blocks * blockWords;
    for (long w = 0; w < words; w++) {
      long x = store.page(w / PageStore.PAGE_WORDS)[(int) (w % PageStore.PAGE_WORDS)];
      for (int c = 0; c < cpw; c++) {
        if (((x >>> (c * d)) & max) == 0) {
          zeros++;
        }
      }
    }
    return zeros;
  }

  @Override
  public FilterHeader header() {
    return header;
  }

  public StableMath.Geometry geometry() {
    return geometry;
  }

  /**
   * Model estimate from the insert counter (per-cell chain); it converges to 1 - stable zero
   * fraction.
   */
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
      cachedFill = StableMath.fillAfter(geometry, cachedAt);
      cachedFpr = StableMath.fprAfter(geometry, cachedAt);
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
