package io.urldedup.stateops;

import io.urldedup.state.AgedMath;
import io.urldedup.state.AgedModel;
import io.urldedup.state.BlockedBloomFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.PageStore;
import io.urldedup.state.StableMath;

/**
 * What one shard's bits say, page by page (pages in any order; absent pages are zeros): per slice
 * the fraction of set bits (stable: non-zero cells), the distinct count the bits imply and its
 * variance, and the false-positive rate those bits give a fresh URL. Independent of the header's
 * counters, so {@code inspect} can show both.
 *
 * <p>Blocked slices (scalable): a block of m = 512 bits holding j elements of k probes each has, in
 * expectation, m (1 - (1 - 1/m)^{kj}) bits set (the probes are uniform in the block, with
 * replacement), so x set bits estimate j = ln(1 - x/m) / (k ln(1 - 1/m)), with variance about
 * (m/k^2)(e^{kj/m} - 1 - kj/m) (Swamidass & Baldi, J. Chem. Inf. Model. 47, 2007, eq. for the
 * variance of the cardinality estimate); blocks are independent given their loads and are summed,
 * each less its second-order bias ({@link #corrected}). A fresh URL lands in a uniform block and is
 * a false positive with probability (x/m)^k there, so the mean over blocks is the slice's FPR as
 * the bits stand.
 *
 * <p>Stable: non-zero cells, and the mean over blocks of (non-zero fraction)^K.
 *
 * <p>Aged (layout of {@link io.urldedup.state.AgedBloomFilter}: rows of k + l words, one per ring
 * column, word 0 of each page its generation stamp): slice position i (0 the newest) is ring column
 * (base + i) mod (k + l), base = floorMod(-generation, k + l); a column recycled since the page's
 * stamp reads as zero. Each insert sets one bit of one word in each of k slices, so per word the
 * estimate above holds with m = 64, k = 1, and the sum over positions divided by k estimates the
 * URLs whose bits are still in the ring. The FPR is the mean over rows of the probability that k
 * consecutive positions match, position i matching with probability popcount(word_i) / 64
 * (independent bit positions per column): a run-length recursion per row. Aged layout 2 ({@code
 * AgedLineRowFilter}: rows of 8 L words tiling the page, each with a 48-bit stamp in its first word
 * and a B-bit segment per ring column): the same per row, with the row's own stamp, segments for
 * words and m = B.
 */
final class ShardBits {

  private static final long PAGE_MASK = (1L << FilterHeader.SLICE_SHIFT) - 1;
  private static final double LN_BLOCK_BIT = Math.log1p(-1.0 / FilterMath.BLOCK_BITS);
  private static final double LN_WORD_BIT = Math.log1p(-1.0 / AgedMath.WORD_BITS);

  private final FilterHeader h;
  private final FilterSpec.Kind kind;
  private final int slices;
  private final long[] set;
  private final double[] est;
  private final double[] var;
  private final double[] fprSum;
  private long storedPages;

  // aged
  private final int agedK;
  private final int ring;
  private final long generation;
  private final double[] runProb;
  private final double[] p;

  ShardBits(FilterHeader h) {
    this.h = h;
    this.kind = h.kind();
    this.slices = h.slices();
    set = new long[slices];
    est = new double[slices];
    var = new double[slices];
    fprSum = new double[kind == FilterSpec.Kind.AGED ? 1 : slices];
    if (kind == FilterSpec.Kind.AGED) {
      AgedMath.Geometry g = h.agedGeometry();
      agedK = g.k();
      ring = g.slices();
      generation = h.agedClock().generation();
      runProb = new double[agedK];
      p = new double[ring];
    } else {
      agedK = 0;
      ring = 0;
      generation = 0;
      runProb = null;
      p = null;
    }
  }

  void page(long pageId, long[] words) {
    switch (kind) {
      case SCALABLE -> {
        int slice = (int) (pageId >>> FilterHeader.SLICE_SHIFT);
        if (slice < slices) {
          storedPages++;
          blockedPage(words, pageId & PAGE_MASK, h.sliceBlocks(slice), h.sliceK(slice), slice);
        }
      }
      case STABLE -> {
        storedPages++;
        stablePage(words, pageId, h.stableGeometry());
      }
      case AGED -> {
        storedPages++;
        if (h.agedGeometry().layout() == 1) {
          agedPage(words, pageId, h.agedGeometry());
        } else {
          agedLinePage(words, pageId, h.agedGeometry());
        }
      }
    }
  }

  ShardReport report(int shard) {
    ShardReport r = new ShardReport();
    r.shard = shard;
    r.header = FilterStates.encode(h);
    r.storedPages = storedPages;
    r.setFraction = new double[slices];
    r.bitEstimate = est;
    r.bitEstimateVariance = var;
    r.measuredFpr = new double[fprSum.length];
    for (int i = 0; i < slices; i++) {
      r.setFraction[i] = set[i] / bitsOf(i);
    }
    for (int i = 0; i < fprSum.length; i++) {
      r.measuredFpr[i] = fprSum[i] / unitsOf(i);
    }
    return r;
  }

  /** Bits (stable: cells) of slice i. */
  private double bitsOf(int i) {
    return switch (kind) {
      case SCALABLE -> h.sliceBlocks(i) * (double) FilterMath.BLOCK_BITS;
      case STABLE -> h.stableGeometry().cells();
      case AGED -> h.agedGeometry().rows() * (double) h.agedGeometry().segmentBits();
    };
  }

  /** What an FPR sum is averaged over: blocks of slice i, or rows. */
  private double unitsOf(int i) {
    return switch (kind) {
      case SCALABLE -> h.sliceBlocks(i);
      case STABLE -> h.stableGeometry().blocks();
      case AGED -> h.agedGeometry().rows();
    };
  }

  private void blockedPage(long[] words, long page, long blocks, int k, int slice) {
    double m = FilterMath.BLOCK_BITS;
    for (int b = 0; b < BlockedBloomFilter.BLOCKS_PER_PAGE; b++) {
      long block = page * BlockedBloomFilter.BLOCKS_PER_PAGE + b;
      if (block >= blocks) {
        break;
      }
      int x = 0;
      for (int w = 0; w < BlockedBloomFilter.BLOCK_WORDS; w++) {
        x += Long.bitCount(words[b * BlockedBloomFilter.BLOCK_WORDS + w]);
      }
      if (x == 0) {
        continue;
      }
      double j =
          corrected(Math.log1p(-Math.min(x, m - 0.5) / m) / (k * LN_BLOCK_BIT), m, k, LN_BLOCK_BIT);
      double kj = k * j / m;
      set[slice] += x;
      est[slice] += j;
      var[slice] += m / ((double) k * k) * (Math.expm1(kj) - kj);
      fprSum[slice] += Math.pow(x / m, k);
    }
  }

  private void stablePage(long[] words, long page, StableMath.Geometry g) {
    int d = g.cellBits();
    int cpw = StableMath.cellsPerWord(d);
    long low = 0;
    for (int c = 0; c < cpw; c++) {
      low |= 1L << (c * d);
    }
    int blocksPerPage = PageStore.PAGE_WORDS / g.blockWords();
    double cellsPerBlock = g.cellsPerBlock();
    for (int b = 0; b < blocksPerPage; b++) {
      long block = page * blocksPerPage + b;
      if (block >= g.blocks()) {
        break;
      }
      int nz = 0;
      for (int w = 0; w < g.blockWords(); w++) {
        long x = words[b * g.blockWords() + w];
        long t = x;
        for (int s = 1; s < d; s++) {
          t |= x >>> s;
        }
        nz += Long.bitCount(t & low);
      }
      set[0] += nz;
      fprSum[0] += Math.pow(nz / cellsPerBlock, g.k());
    }
  }

  private void agedPage(long[] words, long page, AgedMath.Geometry g) {
    int rowsPerPage = g.rowsPerPage();
    long stale = staleColumns(words[0], generation);
    int base = (int) Math.floorMod(-generation, (long) ring);
    double m = AgedMath.WORD_BITS;
    for (int r = 0; r < rowsPerPage; r++) {
      long row = page * rowsPerPage + r;
      if (row >= g.rows()) {
        break;
      }
      int off = 1 + r * ring;
      for (int i = 0; i < ring; i++) {
        int col = base + i;
        if (col >= ring) {
          col -= ring;
        }
        int x = (stale >>> col & 1) != 0 ? 0 : Long.bitCount(words[off + col]);
        p[i] = x / m;
        if (x != 0) {
          double j =
              corrected(Math.log1p(-Math.min(x, m - 0.5) / m) / LN_WORD_BIT, m, 1, LN_WORD_BIT);
          set[i] += x;
          est[i] += j;
          var[i] += m * (Math.expm1(j / m) - j / m);
        }
      }
      fprSum[0] += AgedModel.runProbability(p, agedK, runProb);
    }
  }

  /**
   * Layout 2: as {@link #agedPage}, per row of the page with the row's own stamp and B-bit
   * segments.
   */
  private void agedLinePage(long[] words, long page, AgedMath.Geometry g) {
    int rowsPerPage = g.rowsPerPage();
    int rowWords = g.rowWords();
    int bits = g.segmentBits();
    long stampMask = (1L << AgedMath.STAMP_BITS) - 1;
    int base = (int) Math.floorMod(-generation, (long) ring);
    double m = bits;
    double lnBit = Math.log1p(-1.0 / m);
    for (int r = 0; r < rowsPerPage; r++) {
      long row = page * rowsPerPage + r;
      if (row >= g.rows()) {
        break;
      }
      int off = r * rowWords;
      long stale = staleColumns(words[off] & stampMask, generation & stampMask);
      for (int i = 0; i < ring; i++) {
        int col = base + i;
        if (col >= ring) {
          col -= ring;
        }
        int from = AgedMath.STAMP_BITS + col * bits;
        int x = (stale >>> col & 1) != 0 ? 0 : bitCount(words, off, from, from + bits);
        p[i] = x / m;
        if (x != 0) {
          double j = corrected(Math.log1p(-Math.min(x, m - 0.5) / m) / lnBit, m, 1, lnBit);
          set[i] += x;
          est[i] += j;
          var[i] += m * (Math.expm1(j / m) - j / m);
        }
      }
      fprSum[0] += AgedModel.runProbability(p, agedK, runProb);
    }
  }

  /** Set bits [from, to) of the row at {@code off}. */
  private static int bitCount(long[] words, int off, int from, int to) {
    int n = 0;
    for (int w = from >>> 6; w <= (to - 1) >>> 6; w++) {
      long mask = -1L;
      if (w == from >>> 6) {
        mask &= -1L << from;
      }
      if (w == (to - 1) >>> 6) {
        mask &= -1L >>> (63 - ((to - 1) & 63));
      }
      n += Long.bitCount(words[off + w] & mask);
    }
    return n;
  }

  /**
   * The estimate j = ln(1 - x/m) / (k ln q), q = 1 - 1/m, less its second-order (delta method)
   * bias: j is convex in x, so E[j] = f(E x) + f''(E x) Var(x) / 2 with f'' = 1 / ((m - x)^2 k |ln
   * q|); with t = kj probes, E(m - x) = m q^t and Var(x) = m(m-1)(1 - 2/m)^t + m q^t - m^2 q^{2t}
   * (occupancy of m cells by t uniform throws). Uncorrected, the sum over blocks drifts above the
   * truth by about 0.04% (4 sd at 10^7 URLs).
   */
  private static double corrected(double j, double m, int k, double lnQ) {
    double t = k * j;
    double qt = Math.exp(t * lnQ);
    double var = m * (m - 1) * Math.exp(t * Math.log1p(-2 / m)) + m * qt - m * m * qt * qt;
    double empty = m * qt;
    return j - Math.max(0, var) / (2 * empty * empty * k * -lnQ);
  }

  /**
   * Columns recycled between the page's stamp and generation g (as {@code AgedBloomFilter} clears
   * them lazily).
   */
  private long staleColumns(long stamp, long g) {
    long d = g - stamp;
    if (d <= 0) {
      return 0;
    }
    long all = ring == 64 ? -1L : (1L << ring) - 1;
    if (d >= ring) {
      return all;
    }
    long run = (1L << d) - 1;
    int b = (int) Math.floorMod(-g, (long) ring);
    return b == 0 ? run : ((run << b) | (run >>> (ring - b))) & all;
  }
}
