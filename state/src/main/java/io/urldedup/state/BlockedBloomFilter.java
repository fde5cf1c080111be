package io.urldedup.state;

/**
 * A cache-line blocked Bloom filter (Putze, Sanders, Singler 2007): an element's k bits all lie in
 * one 512-bit block (8 words, one 64-byte line), so a test or insert costs one cache miss and one
 * page lookup. Block = reduce(h1, blocks); probe i sets bit top9(mix(h2 + i * step)) of the block,
 * with an odd 64-bit step from h1 (double hashing, Kirsch and Mitzenmacher 2006) and a cheap
 * nonlinear finalizer per probe (see {@link #bitInBlock}). Sized with {@link
 * FilterMath#blockedSizing}, which accounts for the uneven block loads.
 *
 * <p>This is one slice: it owns pages {@code pageBase .. pageBase + pages - 1} of a {@link
 * PageStore} and keeps no counters; {@link ScalableBloomFilter} chains slices and counts.
 * Allocation-free.
 */
public final class BlockedBloomFilter {

  public static final int BLOCK_WORDS = 8;
  public static final int BLOCKS_PER_PAGE = PageStore.PAGE_WORDS / BLOCK_WORDS;

  private final PageStore store;
  private final long pageBase;
  private final long blocks;
  private final int k;
  private final long salt;

  /** Sink of the batch's touching loads (its value means nothing). */
  long touched;

  public BlockedBloomFilter(PageStore store, long pageBase, long blocks, int k) {
    this(store, pageBase, blocks, k, 0);
  }

  /**
   * @param salt added to h2 before probing: slices of a scalable filter use different salts so that
   *     an element's bit pattern is independent across slices (with one shared pattern, an element
   *     with colliding probes is a false positive in every slice at once, and the slices' errors no
   *     longer combine as 1 - prod(1 - f_i); measured 5% below that model)
   */
  public BlockedBloomFilter(PageStore store, long pageBase, long blocks, int k, long salt) {
    if (blocks < 1 || k < 1 || k > 64) {
      throw new IllegalArgumentException(
          "blocks must be >= 1 and k in 1..64; got " + blocks + ", " + k);
    }
    this.store = store;
    this.pageBase = pageBase;
    this.blocks = blocks;
    this.k = k;
    this.salt = salt;
  }

  /** A filter for n elements at false-positive rate eps, on pages 0.. of {@code store}. */
  public static BlockedBloomFilter forCapacity(PageStore store, long n, double eps) {
    return new BlockedBloomFilter(
        store, 0, FilterMath.blockedBlocks(n, eps), FilterMath.blockedSizing(eps).k());
  }

  /**
   * Sets the element's bits; returns whether all of them were already set (a probable duplicate).
   */
  public boolean testAndAdd(long h1, long h2) {
    long block = blockIndex(h1, blocks);
    long pageId = pageBase + pageOfBlock(block);
    long[] page = store.page(pageId);
    int base = wordOfBlock(block);
    long step = step(h1);
    long g = h2 + salt;
    long missing = 0;
    for (int i = 0; i < k; i++) {
      int bit = bitInBlock(g);
      int w = base + (bit >>> 6);
      long mask = 1L << bit;
      long old = page[w];
      if ((old & mask) == 0) {
        // only bits that change are stored: a store of the same value still dirties the line, and
        // a written-back line costs DRAM bandwidth that a duplicate's reads do not
        page[w] = old | mask;
        missing = mask;
      }
      g += step;
    }
    if (missing != 0) {
      store.markDirty(pageId);
      return false;
    }
    return true;
  }

  /** Whether all of the element's bits are set. */
  public boolean mightContain(long h1, long h2) {
    long block = blockIndex(h1, blocks);
    long[] page = store.page(pageBase + pageOfBlock(block));
    int base = wordOfBlock(block);
    long step = step(h1);
    long g = h2 + salt;
    for (int i = 0; i < k; i++) {
      int bit = bitInBlock(g);
      if ((page[base + (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
      g += step;
    }
    return true;
  }

  /** Sets the element's bits; returns whether any bit changed. */
  public boolean add(long h1, long h2) {
    return !testAndAdd(h1, h2);
  }

  /**
   * {@code seen[i] = testAndAdd(h1[i], h2[i])} for i = 0..n-1 in order, with the same answers and
   * the same bits as the n single calls, which the second pass literally makes.
   *
   * <p>Why: a single operation's probes all lie in one block, so out of cache it waits for one
   * dependent DRAM miss (page lookup, then the block) and the next operation's hashing fills the
   * out-of-order window before its own miss can start; that latency is the floor of any
   * one-at-a-time loop. The first pass loads each element's block (both lines when it straddles
   * two, see {@link #touch}) and its page array's header (read by the bounds check); these loads
   * are independent, so the core keeps several misses in flight (memory-level parallelism, Glew
   * 1998) and the second pass finds the lines in cache. This is group prefetching (Chen, Ailamaki,
   * Gibbons, Mowry, "Improving hash join performance through prefetching", ICDE 2004) with loads in
   * place of prefetch instructions, which Java lacks; the loaded words are summed into {@link
   * #touched} so that the JIT cannot drop them. Allocation-free.
   */
  public void testAndAdd(long[] h1, long[] h2, int n, boolean[] seen) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
      sum += touch(h1[i]);
    }
    touched = sum;
    for (int i = 0; i < n; i++) {
      seen[i] = testAndAdd(h1[i], h2[i]);
    }
  }

  /**
   * The first and last words of the element's block: loads that bring the block into cache. Both,
   * because on the heap a block is rarely one line: HotSpot aligns objects to 8 bytes and a
   * long[]'s data starts 16 bytes after its header, so a page's blocks are line-aligned only if its
   * array happens to be (about 1 page in 4 when 4112-byte page arrays are allocated back to back).
   */
  long touch(long h1) {
    long block = blockIndex(h1, blocks);
    long[] page = store.page(pageBase + pageOfBlock(block));
    int base = wordOfBlock(block);
    return page[base] + page[base + BLOCK_WORDS - 1];
  }

  /**
   * Census of page {@code pageId} of this slice ({@code words}, given): each of its blocks with the
   * bits set in it, reported as blocks of slice {@code slice} (the caller's label).
   */
  public void census(long pageId, long[] words, int slice, CensusSink to) {
    long first = (pageId - pageBase) * BLOCKS_PER_PAGE;
    for (int b = 0; b < BLOCKS_PER_PAGE && first + b < blocks; b++) {
      int set = 0;
      for (int w = 0; w < BLOCK_WORDS; w++) {
        set += Long.bitCount(words[b * BLOCK_WORDS + w]);
      }
      to.block(slice, set);
    }
  }

  public long blocks() {
    return blocks;
  }

  public int k() {
    return k;
  }

  public long pages() {
    return FilterMath.pagesForBlocks(blocks);
  }

  public long sizeBytes() {
    return pages() * PageStore.PAGE_BYTES;
  }

  // ---- index math, 64-bit throughout (tests exercise it over a 2^34-bit space without allocating)

  /** The element's block in [0, blocks): multiply-high reduction, no 32-bit truncation. */
  static long blockIndex(long h1, long blocks) {
    return UrlHasher.reduce(h1, blocks);
  }

  static long pageOfBlock(long block) {
    return block >>> 6;
  }

  /** First word of the block inside its page. */
  static int wordOfBlock(long block) {
    return ((int) block & (BLOCKS_PER_PAGE - 1)) << 3;
  }

  /** Odd double-hashing step; its high half is h1's low half, which block choice barely uses. */
  static long step(long h1) {
    return Long.rotateLeft(h1, 32) | 1L;
  }

  /**
   * Bit 0..511 of the block for probe value g: the top 9 bits after a one-multiply finalizer. Plain
   * double hashing puts the k bits on an arithmetic progression mod 512, a small family of patterns
   * that elements of one block share: measured FPR was 6% (eps 1%) and 47% (eps 0.1%) above the
   * Putze model, which assumes independent bits. The finalizer breaks the linearity.
   */
  static int bitInBlock(long g) {
    return (int) (probeMix(g) >>> 55);
  }

  /** xor-shift-multiply (the first round of a Murmur3/SplitMix finalizer): cheap, nonlinear. */
  static long probeMix(long g) {
    return (g ^ (g >>> 32)) * 0xD6E8FEB86659FD93L;
  }

  /** The global bit address of probe i: block * 512 + bit (used by the index-math test). */
  static long bitAddress(long h1, long h2, int i, long blocks) {
    long block = blockIndex(h1, blocks);
    return block * FilterMath.BLOCK_BITS + bitInBlock(h2 + i * step(h1));
  }
}
