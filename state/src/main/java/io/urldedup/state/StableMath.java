package io.urldedup.state;

/**
 * Sizing and error functions of the stable Bloom filter (Deng & Rafiei 2006): the stable point, the
 * choice of K, P and block size, and the per-cell Markov chain that gives the false-negative
 * (forgetting) probability after a gap of inserts. No state, no I/O; unit-tested against the closed
 * forms and against simulation.
 *
 * <p>Notation: d bits per cell, Max = 2^d - 1, K cells set per insert, P cells decremented per
 * insert, mb cells per block, eps target stable false-positive rate.
 */
public final class StableMath {

  /** Largest K considered when optimising. */
  static final int MAX_K = 16;

  private StableMath() {}

  /** Cells in one 64-bit word: cells never straddle words (d = 3: 21 cells, bit 63 unused). */
  public static int cellsPerWord(int cellBits) {
    return 64 / cellBits;
  }

  /**
   * Stable-point zero fraction (Deng & Rafiei 2006, Thm. 2, per block): z = (1 / (1 + 1/(P (1/K -
   * 1/mb))))^Max. It is the stationary P(cell = 0) of the per-cell chain (set w.p. K/mb, else
   * decremented w.p. P/mb): a cell is 0 iff its last Max events were decrements.
   */
  public static double zeroFraction(int p, int k, long mb, int max) {
    return Math.pow(1.0 / (1.0 + 1.0 / (p * (1.0 / k - 1.0 / mb))), max);
  }

  /** Stable FPR: (1 - z)^K. */
  public static double fpr(int p, int k, long mb, int max) {
    return Math.pow(1 - zeroFraction(p, k, mb, max), k);
  }

  /**
   * P for a target stable FPR, ROUNDED UP: P = 1 / ((1/z^{1/Max} - 1)(1/K - 1/mb)) with z^{1/Max} =
   * (1 - eps^{1/K})^{1/Max}. More decrements means more zeros and a lower FPR, so the ceiling meets
   * the target while flooring overshoots it. Returns Integer.MAX_VALUE if K >= mb.
   */
  public static int decrementsFor(double eps, int k, long mb, int max) {
    if (k >= mb) {
      return Integer.MAX_VALUE;
    }
    double zRoot = Math.pow(1 - Math.pow(eps, 1.0 / k), 1.0 / max);
    double p = 1.0 / ((1.0 / zRoot - 1.0) * (1.0 / k - 1.0 / mb));
    if (!(p < Integer.MAX_VALUE)) {
      return Integer.MAX_VALUE;
    }
    // the tolerance keeps an exact integer solution from rounding one up through float noise
    return (int) Math.max(1, Math.ceil(p - 1e-9));
  }

  /** The concrete layout of a stable filter. */
  public record Geometry(int cellBits, int k, int p, int blockWords, long blocks) {
    public int max() {
      return (1 << cellBits) - 1;
    }

    public long cellsPerBlock() {
      return (long) blockWords * cellsPerWord(cellBits);
    }

    public long cells() {
      return blocks * cellsPerBlock();
    }

    public long bytes() {
      return blocks * blockWords * 8L;
    }

    public double stableFpr() {
      return StableMath.fpr(p, k, cellsPerBlock(), max());
    }

    public double stableZeroFraction() {
      return StableMath.zeroFraction(p, k, cellsPerBlock(), max());
    }
  }

  /**
   * Block sizes tried, in words: one 64-byte line up to a whole 4 KiB page; always a power of two.
   */
  static final int[] BLOCK_WORDS = {8, 16, 32, 64, 128, 256, 512};

  /**
   * Chooses K and the block size for d-bit cells in {@code memoryBytes}. For each K the block is
   * the smallest power-of-two number of words W (8 = one cache line, up to a 4 KiB page) with K <=
   * W (the K cells go to distinct words) and P <= mb (the P decrements of one insert stay inside
   * the block); the smallest keeps an insert to one or two cache lines. Among those the K with the
   * longest median retention (inserts, i.e. new elements, until the FN probability of an element
   * reaches 1/2) wins.
   */
  public static Geometry geometry(double eps, long memoryBytes, int cellBits) {
    int max = (1 << cellBits) - 1;
    Geometry best = null;
    double bestRetention = -1;
    for (int k = 1; k <= MAX_K; k++) {
      for (int words : BLOCK_WORDS) {
        long blocks = memoryBytes / (words * 8L);
        long mb = (long) words * cellsPerWord(cellBits);
        int p = decrementsFor(eps, k, mb, max);
        if (blocks < 1 || k > words || p > mb) {
          continue;
        }
        double retention = blocks * medianRetentionBlockArrivals(k, p, mb, max);
        if (retention > bestRetention * (1 + 1e-9)) {
          bestRetention = retention;
          best = new Geometry(cellBits, k, p, words, blocks);
        }
        break;
      }
    }
    if (best == null) {
      throw new InvalidSpecException(
          "no stable filter with {cellBits} "
              + cellBits
              + " reaches {fpr} "
              + eps
              + " within one 4 KiB block; use more {cellBits} or a larger {fpr}");
    }
    return best;
  }

  // per-cell chain

  /**
   * Per-cell Markov chain over values 0..Max for one arrival to the cell's block: the insert first
   * decrements P of the mb cells (each cell w.p. p = P/mb), then sets its K cells to Max (this cell
   * w.p. q = K/mb). So from v: Max w.p. q; max(v-1, 0) w.p. (1-q)p; v otherwise.
   */
  static double[][] cellChain(int k, int p, long mb, int max) {
    double q = Math.min(1.0, (double) k / mb);
    double dec = (1 - q) * Math.min(1.0, (double) p / mb);
    double[][] t = new double[max + 1][max + 1];
    for (int v = 0; v <= max; v++) {
      t[v][max] += q;
      t[v][Math.max(v - 1, 0)] += dec;
      t[v][v] += 1 - q - dec;
    }
    return t;
  }

  static double[][] multiply(double[][] a, double[][] b) {
    int n = a.length;
    double[][] c = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int l = 0; l < n; l++) {
        double ail = a[i][l];
        if (ail == 0) {
          continue;
        }
        for (int j = 0; j < n; j++) {
          c[i][j] += ail * b[l][j];
        }
      }
    }
    return c;
  }

  static double[][] power(double[][] t, long e) {
    int n = t.length;
    double[][] r = new double[n][n];
    for (int i = 0; i < n; i++) {
      r[i][i] = 1;
    }
    double[][] b = t;
    while (e > 0) {
      if ((e & 1) != 0) {
        r = multiply(r, b);
      }
      e >>>= 1;
      if (e > 0) {
        b = multiply(b, b);
      }
    }
    return r;
  }

  static double[] step(double[] v, double[][] t) {
    int n = v.length;
    double[] r = new double[n];
    for (int i = 0; i < n; i++) {
      double vi = v[i];
      if (vi == 0) {
        continue;
      }
      for (int j = 0; j < n; j++) {
        r[j] += vi * t[i][j];
      }
    }
    return r;
  }

  /** FN probability after exactly j arrivals to the element's block: 1 - (1 - P(cell = 0))^K. */
  static double fnAfterBlockArrivals(int k, int p, long mb, int max, long j) {
    double p0 = power(cellChain(k, p, mb, max), j)[max][0];
    return -Math.expm1(k * Math.log1p(-Math.min(p0, 1 - 1e-300)));
  }

  /**
   * Block arrivals until the FN probability reaches 1/2 (linear interpolation between integers).
   */
  static double medianRetentionBlockArrivals(int k, int p, long mb, int max) {
    long hi = 1;
    while (fnAfterBlockArrivals(k, p, mb, max, hi) < 0.5) {
      if (hi > (1L << 40)) {
        return hi;
      }
      hi <<= 1;
    }
    long lo = hi >>> 1;
    if (lo == 0 || fnAfterBlockArrivals(k, p, mb, max, lo) >= 0.5) {
      lo = 0;
    }
    while (hi - lo > 1) {
      long mid = (lo + hi) >>> 1;
      if (fnAfterBlockArrivals(k, p, mb, max, mid) < 0.5) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    double flo = lo == 0 ? 0 : fnAfterBlockArrivals(k, p, mb, max, lo);
    double fhi = fnAfterBlockArrivals(k, p, mb, max, hi);
    return lo + (0.5 - flo) / Math.max(1e-300, fhi - flo);
  }

  /**
   * False-negative probability of a stable filter for an element last inserted {@code gap} inserts
   * ago (inserts into the whole filter: other elements answered unseen; a repeat is a read, see
   * {@link StableBloomFilter}). Inserts into the element's block ~ Binomial(gap, 1/blocks); given j
   * of them each of its K cells follows the per-cell chain from Max, and the element is forgotten
   * iff some cell reached 0: FN(g) = sum_j Binom(j; g, 1/blocks) (1 - (1 - (T^j)[Max][0])^K). T^j
   * by squaring for the lowest j, then one vector step per j, so g = 1e9 costs a few thousand
   * 16-state steps. Cells are treated as independent given j (the model's approximation).
   */
  public static double falseNegative(Geometry g, long gap) {
    return expectOverBlockArrivals(g, gap, FN);
  }

  /**
   * Probability that some cell of an element inserted {@code gap} inserts ago has been 0 at least
   * once since: {@link #falseNegative} with 0 made absorbing in the per-cell chain (a cell at 0
   * that another element's insert sets again still counts). An element arriving often is re-emitted
   * at its first arrival after that event, one arriving once is re-emitted with probability FN(gap)
   * <= this; the two bracket the forgetting time that {@link ForgettingModel} replays.
   */
  public static double forgottenBy(Geometry g, long gap) {
    return expectOverBlockArrivals(g, gap, FORGOTTEN);
  }

  /**
   * Expected FPR of a stable filter after {@code inserts} inserts from empty (rises to {@link
   * Geometry#stableFpr()}).
   */
  public static double fprAfter(Geometry g, long inserts) {
    return expectOverBlockArrivals(g, inserts, FPR);
  }

  /** Expected fraction of non-zero cells after {@code inserts} inserts from empty. */
  public static double fillAfter(Geometry g, long inserts) {
    return expectOverBlockArrivals(g, inserts, FILL);
  }

  private static final int FN = 0;
  private static final int FPR = 1;
  private static final int FILL = 2;
  private static final int FORGOTTEN = 3;

  private static double expectOverBlockArrivals(Geometry g, long n, int what) {
    int max = g.max();
    int k = g.k();
    long mb = g.cellsPerBlock();
    double[][] t = cellChain(k, g.p(), mb, max);
    if (what == FORGOTTEN) {
      t[0] = new double[max + 1];
      t[0][0] = 1;
    }
    int start = what == FN || what == FORGOTTEN ? max : 0;
    if (n <= 0) {
      return 0;
    }
    long blocks = g.blocks();
    long lo;
    long hi;
    if (blocks == 1) {
      lo = n;
      hi = n;
    } else {
      double pr = 1.0 / blocks;
      double mean = n * pr;
      double sd = Math.sqrt(n * pr * (1 - pr));
      lo = Math.max(0, (long) Math.floor(mean - 10 * sd - 10));
      hi = Math.min(n, (long) Math.ceil(mean + 10 * sd + 10));
    }
    if ((what == FPR || what == FILL) && lo * (double) Math.min(g.k(), g.p()) / mb > 60) {
      // from empty, every cell has been set or fully decayed since: e^-60 from the stable point
      return what == FPR ? g.stableFpr() : 1 - g.stableZeroFraction();
    }
    double[] v = power(t, lo)[start].clone();
    double sum = 0;
    double weight = 0;
    for (long j = lo; j <= hi; j++) {
      double w = blocks == 1 ? 1 : Math.exp(FilterMath.logBinomialPmf(n, j, 1.0 / blocks));
      double p0 = Math.min(v[0], 1 - 1e-300);
      double value =
          switch (what) {
            case FN, FORGOTTEN -> -Math.expm1(k * Math.log1p(-p0));
            case FPR -> Math.exp(k * Math.log1p(-p0));
            default -> 1 - p0;
          };
      sum += w * value;
      weight += w;
      if (j < hi) {
        v = step(v, t);
      }
    }
    return weight > 0 ? sum / weight : 0;
  }
}
