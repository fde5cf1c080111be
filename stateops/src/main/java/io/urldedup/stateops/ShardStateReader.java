package io.urldedup.stateops;

import io.urldedup.state.BlockedBloomFilter;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.PageStore;
import java.util.Map;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.state.api.functions.KeyedStateReaderFunction;
import org.apache.flink.util.Collector;

/**
 * Reads one shard's header and pages and summarizes the bits (see {@link ShardReport}).
 *
 * <p>Blocked slices: a block of 512 bits holding j elements with k probes each has, in
 * expectation, 512 (1 - (1 - 1/512)^{kj}) bits set, so x set bits estimate j = ln(1 - x/512) /
 * (k ln(1 - 1/512)) with variance about (m/k^2)(e^{kj/m} - 1 - kj/m), m = 512 (Swamidass & Baldi,
 * J. Chem. Inf. Model. 2007); blocks are summed. A fresh URL lands in a uniform block and is a
 * false positive with probability (x/512)^k there, so the mean over blocks is the slice's FPR as
 * the bits stand. Stable filters: non-zero cells, and the mean over blocks of (non-zero fraction)^K.
 */
final class ShardStateReader extends KeyedStateReaderFunction<Integer, ShardReport> {

  private static final long serialVersionUID = 1L;
  private static final long PAGE_MASK = (1L << FilterHeader.SLICE_SHIFT) - 1;
  private static final double LN_BIT = Math.log1p(-1.0 / FilterMath.BLOCK_BITS);

  private transient ValueState<FilterHeader> header;
  private transient MapState<Long, long[]> pages;

  @Override
  public void open(OpenContext context) {
    header = getRuntimeContext().getState(FilterStates.header());
    pages = getRuntimeContext().getMapState(FilterStates.pages());
  }

  @Override
  public void readKey(Integer shard, Context ctx, Collector<ShardReport> out) throws Exception {
    FilterHeader h = header.value();
    if (h == null) {
      return;
    }
    ShardReport r = new ShardReport();
    r.shard = shard;
    r.header = FilterStates.encode(h);
    // bit statistics for the kinds whose page layout is known here; other kinds report the header only
    boolean known = h.kind() == FilterSpec.Kind.SCALABLE || h.kind() == FilterSpec.Kind.STABLE;
    int slices = !known ? 0 : h.kind() == FilterSpec.Kind.SCALABLE ? h.slices() : 1;
    long[] set = new long[slices];
    double[] est = new double[slices];
    double[] var = new double[slices];
    double[] fprSum = new double[slices];
    long stored = 0;
    for (Map.Entry<Long, long[]> e : pages.entries()) {
      long id = e.getKey();
      int slice = (int) (id >>> FilterHeader.SLICE_SHIFT);
      if (slice >= slices) {
        continue;
      }
      stored++;
      long page = id & PAGE_MASK;
      if (h.kind() == FilterSpec.Kind.SCALABLE) {
        blockedPage(e.getValue(), page, h.sliceBlocks(slice), h.sliceK(slice), slice, set, est, var, fprSum);
      } else {
        stablePage(e.getValue(), page, h.stableGeometry(), set, fprSum);
      }
    }
    r.storedPages = stored;
    r.setFraction = new double[slices];
    r.measuredFpr = new double[slices];
    r.bitEstimate = est;
    r.bitEstimateVariance = var;
    for (int i = 0; i < slices; i++) {
      double units;
      double blocks;
      if (h.kind() == FilterSpec.Kind.SCALABLE) {
        blocks = h.sliceBlocks(i);
        units = blocks * FilterMath.BLOCK_BITS;
      } else {
        blocks = h.stableGeometry().blocks();
        units = h.stableGeometry().cells();
      }
      r.setFraction[i] = set[i] / units;
      r.measuredFpr[i] = fprSum[i] / blocks;
    }
    out.collect(r);
  }

  private static void blockedPage(long[] words, long page, long blocks, int k, int slice, long[] set,
      double[] est, double[] var, double[] fprSum) {
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
      double m = FilterMath.BLOCK_BITS;
      double j = Math.log1p(-Math.min(x, m - 0.5) / m) / (k * LN_BIT);
      double kj = k * j / m;
      set[slice] += x;
      est[slice] += j;
      var[slice] += m / ((double) k * k) * (Math.expm1(kj) - kj);
      fprSum[slice] += Math.pow(x / m, k);
    }
  }

  private static void stablePage(long[] words, long page, FilterMath.StableGeometry g, long[] set,
      double[] fprSum) {
    int d = g.cellBits();
    int cpw = FilterMath.cellsPerWord(d);
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
}
