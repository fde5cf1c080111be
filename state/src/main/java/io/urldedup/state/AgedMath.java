package io.urldedup.state;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Sizing and geometry of the age-partitioned blocked Bloom filter ({@link AgedBloomFilter}; Shtul,
 * Baquero, Almeida 2020, arXiv 2001.03147): k and l for a target, the row layout, and the rows for
 * a generation size. The error model they are sized on is {@link AgedModel}. Pure functions;
 * deterministic (the Monte Carlo parts use fixed seeds).
 *
 * <p>Notation: k slices hold a new URL, l more slices age it, R = k + l slices; a generation is g
 * inserts (or a time step); a URL is inserted into slice positions 0..k-1 (0 = newest) and is
 * "seen" when k consecutive positions hold it. Every generation shifts the positions by one and
 * clears the oldest slice. So a URL is seen for the l shifts after the generation it was inserted
 * in (l g inserts at least: the guaranteed window), then fades: after s > l shifts only positions
 * s..R-1 still hold it and it is seen only if s - l neighbouring positions answer falsely; after s
 * >= R shifts it is gone.
 *
 * <p>Blocked layout: a URL uses one row, and one bit of that row's B-bit segment of every slice.
 * Two layouts ({@link Geometry#layout}): 1, a row is one 64-bit word of every slice (B = 64, R
 * words, page-level generation stamps: header layout 3); 2, a row is L cache lines of which the
 * first 48 bits stamp the row's generation and each slice owns a B = floor((512 L - 48) / R)-bit
 * segment, at most 64 (header layout 4). Slice position i at the end of a generation holds the
 * generations j = max(0, i-k+1) .. i (j = 0 the current one), so its segment in a row has load S_i
 * = sum of those generations' loads L_j of the row, L_j ~ Poisson(lambda) with lambda = g / rows,
 * and is a false match with probability 1 - (1 - 1/B)^S_i. Given the loads, matches are independent
 * across slices (each slice its own bit position), so FPR = E_L[ P(some run of k consecutive
 * matches among R positions | p_i(L)) ]. The paper's recursion F(k, l, a, i) is that run
 * probability with the unblocked fills (i+1)/(2k) and 1/2; here the expectation over the row loads
 * (which makes neighbouring slices' errors correlated, as in any blocked filter, Putze et al. 2007)
 * is taken by Monte Carlo with common random numbers, so the estimate is monotone in lambda and
 * bisection on it is exact for the sample.
 */
public final class AgedMath {

  public static final int WORD_BITS = 64;

  /** Slices are bits of a 64-bit mask (a row's stale columns). */
  public static final int MAX_SLICES = 64;

  public static final int MAX_K = 32;

  /**
   * Layout 2: bits of a row's first word that stamp its generation (2^48 generations before it
   * wraps).
   */
  public static final int STAMP_BITS = 48;

  /** Layout 2: bits per cache line. */
  public static final int LINE_BITS = 512;

  /**
   * Layout 2: the row sizes (cache lines) sizing chooses from. A row is the most a query can touch,
   * and the paper's blocked filter costs 2-4 lines per query: rows of more than 4 lines are never
   * chosen (8 lines would save no memory at the default sizing, see docs/benchmarks.md).
   */
  static final int[] ROW_LINES = {1, 2, 4};

  /**
   * A smaller row (fewer lines touched) is chosen unless a larger one saves more than this share of
   * memory.
   */
  static final double ROW_LINES_TIE = 0.02;

  /**
   * Samples of row loads for the FPR and forgetting; sizing and reports use the same samples.
   * Relative MC standard error 1% (FPR 1%) to 3% (FPR 1e-6), measured by AgedMathTest. Sizing keeps
   * the mean {@link #SIZING_STANDARD_ERRORS} standard errors below the target, so the reported FPR
   * (the mean) is 2-6% below --fpr.
   */
  public static final int SAMPLES = 1 << 13;

  /** Share of URLs that must be forgotten at "forgotten by" (the slack's definition). */
  public static final double FORGOTTEN_SHARE = 0.99;

  public static final double DEFAULT_SLACK = 0.10;

  private AgedMath() {}

  /**
   * The concrete layout: the row layout (1: a word per slice, page stamps; 2: rows of {@code
   * rowLines} cache lines with their own stamp and a segment per slice), k, l, rows, and the
   * planned generation size g (inserts per generation per shard: the count window's step, or the
   * time window's planned rate x generation length; reaching it advances early).
   *
   * @param rowLines layout 2: cache lines per row (1, 2, 4 or 8); layout 1: 0
   */
  public record Geometry(int layout, int rowLines, int k, int l, long rows, long generationSize) {
    public Geometry {
      if (k < 1 || l < 1 || k + l > MAX_SLICES || rows < 1 || generationSize < 1) {
        throw new IllegalArgumentException(
            "aged geometry needs k, l >= 1, k + l <= "
                + MAX_SLICES
                + ", rows >= 1, generation size >= 1; got k="
                + k
                + " l="
                + l
                + " rows="
                + rows
                + " g="
                + generationSize);
      }
      if (layout == 1
          ? rowLines != 0
          : layout != 2 || Integer.bitCount(rowLines) != 1 || rowLines > 8) {
        throw new IllegalArgumentException(
            "aged layout 1 has no row lines, layout 2 rows of 1, 2, 4 or 8 lines;"
                + " got layout "
                + layout
                + " with "
                + rowLines);
      }
      if (rows > Long.MAX_VALUE / PageStore.PAGE_BYTES) {
        throw new IllegalArgumentException("aged geometry of " + rows + " rows");
      }
    }

    /** Layout 1 (header layout 3): a row is one 64-bit word of every slice. */
    public Geometry(int k, int l, long rows, long generationSize) {
      this(1, 0, k, l, rows, generationSize);
    }

    /** Layout 2 (header layout 4): rows of {@code rowLines} cache lines, stamped. */
    public static Geometry lineRows(int rowLines, int k, int l, long rows, long generationSize) {
      return new Geometry(2, rowLines, k, l, rows, generationSize);
    }

    public int slices() {
      return k + l;
    }

    /** B: bits of a row per slice, of which a URL sets or tests one. */
    public int segmentBits() {
      return AgedMath.segmentBits(rowLines, slices());
    }

    /** 64-bit words of a row. */
    public int rowWords() {
      return layout == 1 ? slices() : 8 * rowLines;
    }

    /**
     * Rows per 4 KiB page; rows never straddle pages. Layout 1: word 0 of a page is its generation
     * stamp; layout 2: rows tile the page.
     */
    public int rowsPerPage() {
      return layout == 1
          ? (PageStore.PAGE_WORDS - 1) / slices()
          : PageStore.PAGE_WORDS / rowWords();
    }

    public long pages() {
      return (rows + rowsPerPage() - 1) / rowsPerPage();
    }

    public long bytes() {
      return pages() * PageStore.PAGE_BYTES;
    }

    /** Mean inserts per row per generation at the planned generation size. */
    public double lambda() {
      return (double) generationSize / rows;
    }

    /** Inserts after a URL's own during which it is always seen (count window): l g. */
    public long guaranteedInserts() {
      return (long) l * generationSize;
    }

    /** Bits of memory (whole pages) per URL of the guaranteed window. */
    public double bitsPerWindowUrl() {
      return 8.0 * bytes() / guaranteedInserts();
    }

    /**
     * FPR at the end of a full generation (the worst point of the cycle); memoised (shards share a
     * geometry).
     */
    public double fpr() {
      Double f = FPRS.get(this);
      if (f == null) {
        f = AgedModel.fpr(k, l, lambda(), segmentBits(), SAMPLES);
        if (FPRS.size() < 1024) {
          FPRS.put(this, f);
        }
      }
      return f;
    }

    /**
     * Probability that a URL is still seen s shifts after the generation it was inserted in (1 for
     * s <= l).
     */
    public double seenAfter(int shifts) {
      return AgedModel.seenAfter(k, l, lambda(), segmentBits(), shifts, SAMPLES);
    }

    /** Shifts after which at least {@link #FORGOTTEN_SHARE} of URLs are forgotten. */
    public int forgottenByShifts() {
      return AgedModel.forgottenBy(k, l, lambda(), segmentBits(), FORGOTTEN_SHARE, SAMPLES);
    }

    /** (forgotten-by shifts) / l - 1: how far beyond the window a URL may still be suppressed. */
    public double slack() {
      return (double) forgottenByShifts() / l - 1;
    }
  }

  /** B for rows of {@code rowLines} cache lines (0: layout 1, a word per slice) and R slices. */
  public static int segmentBits(int rowLines, int slices) {
    return rowLines == 0
        ? WORD_BITS
        : Math.min(WORD_BITS, (LINE_BITS * rowLines - STAMP_BITS) / slices);
  }

  /** Bits of memory per row, page waste included (layout 1 rows do not tile a page). */
  static double rowBits(int rowLines, int slices) {
    return rowLines == 0
        ? 8.0 * PageStore.PAGE_BYTES / ((PageStore.PAGE_WORDS - 1) / slices)
        : (double) LINE_BITS * rowLines;
  }

  /**
   * The row size (0: layout 1), k, lambda (inserts per row per generation) for a target, and the l
   * they were chosen with.
   */
  public record Sizing(int rowLines, int k, int l, double lambda) {
    /** Bits of memory per URL of the guaranteed window: row bits / (l lambda). */
    public double bitsPerWindowUrl() {
      return rowBits(rowLines, k + l) / (l * lambda);
    }
  }

  private static final ConcurrentHashMap<String, Sizing> SIZINGS = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<Geometry, Double> FPRS = new ConcurrentHashMap<>();

  /**
   * Layout 2, the row size chosen by rule: of rows of 1, 2 and 4 cache lines ({@link #ROW_LINES}),
   * each sized by {@link #sizing(double, int, double, int)}, the one with the least memory per
   * window URL, unless a smaller row is within {@link #ROW_LINES_TIE} of it (fewer lines per
   * operation win near-ties). At the default 10% slack (R ~ 57 slices) 4 lines win: 2-line rows
   * leave 17-bit segments, whose correlated fills cost 10-45% more memory. Memoised.
   */
  public static Sizing sizing(double eps, int generations, double slack) {
    String key = eps + "/" + generations + "/" + slack;
    Sizing s = SIZINGS.get(key);
    if (s == null) {
      Sizing best = null;
      for (int lines : ROW_LINES) {
        Sizing c = trySizing(eps, generations, slack, lines);
        if (c != null
            && (best == null
                || c.bitsPerWindowUrl() < best.bitsPerWindowUrl() * (1 - ROW_LINES_TIE))) {
          best = c;
        }
      }
      if (best == null) {
        throw noSizing(eps, generations, slack);
      }
      s = best;
      if (SIZINGS.size() < 1024) {
        SIZINGS.put(key, s);
      }
    }
    return s;
  }

  /**
   * The k, l and lambda with the least memory per guaranteed-window URL, rowBits / (l lambda), for
   * rows of {@code rowLines} cache lines (0: layout 1, a word per slice), such that the FPR is at
   * most eps and, when l is not given ({@code generations} 0), at least 99% of URLs are forgotten
   * by (1 + slack) x the window. The search runs on the uncorrelated (mean-field) model; lambda is
   * then set with the blocked Monte Carlo model, on its mean plus {@link #SIZING_STANDARD_ERRORS}
   * standard errors ({@link #upperBound}). Memoised.
   */
  public static Sizing sizing(double eps, int generations, double slack, int rowLines) {
    String key = eps + "/" + generations + "/" + slack + "/" + rowLines;
    Sizing s = SIZINGS.get(key);
    if (s == null) {
      s = trySizing(eps, generations, slack, rowLines);
      if (s == null) {
        throw noSizing(eps, generations, slack);
      }
      if (SIZINGS.size() < 1024) {
        SIZINGS.put(key, s);
      }
    }
    return s;
  }

  private static InvalidSpecException noSizing(double eps, int generations, double slack) {
    return new InvalidSpecException(
        "no aged filter with at most "
            + MAX_SLICES
            + " slices reaches {fpr} "
            + eps
            + (generations > 0
                ? " with {generations} " + generations
                : " with a " + Math.round(slack * 100) + "% slack")
            + "; use a larger {fpr} or fewer {generations}");
  }

  /** {@link #sizing(double, int, double, int)} or null if no k and l reach the targets. */
  private static Sizing trySizing(double eps, int generations, double slack, int rowLines) {
    int bestK = 0;
    int bestL = 0;
    double bestCost = Double.MAX_VALUE;
    int lLo = generations > 0 ? generations : 2;
    int lHi = generations > 0 ? generations : MAX_SLICES - 1;
    double constraintSlack = generations > 0 ? -1 : slack;
    for (int l = lLo; l <= lHi; l++) {
      double previous = Double.MAX_VALUE;
      int rising = 0;
      for (int k = 1; k <= MAX_K && k + l <= MAX_SLICES && rising < 3; k++) {
        int bits = segmentBits(rowLines, k + l);
        if (bits < 2) {
          break;
        }
        double lambda = maxLambda(k, l, bits, eps, constraintSlack, 0, bits);
        if (lambda <= 0) {
          continue;
        }
        double cost = rowBits(rowLines, k + l) / (l * lambda);
        // the cost is unimodal in k: stop a few steps past its minimum
        rising = cost > previous ? rising + 1 : 0;
        previous = cost;
        // a 2% smaller filter is not worth more slices: prefer fewer bits per row to visit
        if (cost < bestCost * 0.98) {
          bestCost = cost;
          bestK = k;
          bestL = l;
        }
      }
    }
    if (bestK == 0) {
      return null;
    }
    int bits = segmentBits(rowLines, bestK + bestL);
    // the blocked model's FPR is above the mean field's (correlated fills): lambda only falls
    double upper = maxLambda(bestK, bestL, bits, eps, constraintSlack, 0, bits);
    double lambda = maxLambda(bestK, bestL, bits, eps, constraintSlack, SAMPLES, upper);
    return lambda <= 0 ? null : new Sizing(rowLines, bestK, bestL, lambda);
  }

  /**
   * Largest lambda with FPR <= eps and (slack >= 0) seen-after(floor(l (1 + slack))) <= 1 - 99%,
   * both on the Monte Carlo {@link #upperBound}; 0 if none. {@code samples} 0 uses the mean-field
   * model. B-bit segments; {@code upper} bounds the search (B: lambda = B already sets half a
   * segment per generation).
   */
  static double maxLambda(
      int k, int l, int bits, double eps, double slack, int samples, double upper) {
    double lambda = bisect(x -> upperBound(k, l, x, bits, 0, samples) <= eps, upper, bits);
    if (slack >= 0) {
      int s = (int) Math.floor(l * (1 + slack) + 1e-9);
      if (s <= l) {
        return 0;
      }
      lambda =
          Math.min(
              lambda,
              bisect(
                  x -> upperBound(k, l, x, bits, s, samples) <= 1 - FORGOTTEN_SHARE, upper, bits));
    }
    return lambda;
  }

  /** Layout 1 (64-bit segments). */
  static double maxLambda(int k, int l, double eps, double slack, int samples) {
    return maxLambda(k, l, WORD_BITS, eps, slack, samples, WORD_BITS);
  }

  /**
   * Standard errors of the Monte Carlo mean that sizing keeps between the estimate and the target:
   * bisecting on the mean itself puts the true rate above the target for about half of the
   * settings; mean + 2 SE leaves it above for about 2.3% (one-sided normal tail).
   */
  static final double SIZING_STANDARD_ERRORS = 2;

  /**
   * The run probability's Monte Carlo mean plus {@link #SIZING_STANDARD_ERRORS} standard errors
   * (the mean field, {@code samples} 0, has none); {@code heldFrom} as in {@link
   * AgedModel#runMoments}.
   */
  static double upperBound(int k, int l, double lambda, int bits, int heldFrom, int samples) {
    if (samples == 0) {
      return heldFrom > 0
          ? AgedModel.seenAfter(k, l, lambda, bits, heldFrom, 0)
          : AgedModel.fpr(k, l, lambda, bits, 0);
    }
    double[] m = AgedModel.runMoments(k, l, lambda, bits, heldFrom, samples, AgedModel.seed(k, l));
    return m[0] + SIZING_STANDARD_ERRORS * m[1] / Math.sqrt(samples);
  }

  private interface Ok {
    boolean at(double lambda);
  }

  /**
   * Largest lambda in (0, upper] with ok(lambda), ok falling in lambda, to a relative 1e-3 (the
   * mean-field search, {@code upper} = B) or 1e-4 (the final, bracketed, Monte Carlo step); 0 if
   * not even a tiny lambda is ok.
   */
  private static double bisect(Ok ok, double upper, int bits) {
    boolean bracketed = upper < bits;
    double lo = bracketed ? upper / 8 : 1e-3;
    double hi = upper;
    if (!ok.at(lo)) {
      lo = 1e-3;
      if (!ok.at(lo)) {
        return 0;
      }
    }
    if (ok.at(hi)) {
      return hi;
    }
    double tolerance = bracketed ? 1e-4 : 1e-3;
    for (int i = 0; i < 40 && hi / lo > 1 + tolerance; i++) {
      double mid = Math.sqrt(lo * hi);
      if (ok.at(mid)) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /**
   * Layout 2 with the row size by rule ({@link #sizing(double, int, double)}): generations of g
   * inserts (per shard).
   */
  public static Geometry geometry(double eps, int generations, double slack, long g) {
    return geometry(sizing(eps, generations, slack), g);
  }

  /** Rows of {@code rowLines} cache lines (0: layout 1, tests and benchmarks of the old layout). */
  public static Geometry geometry(double eps, int generations, double slack, long g, int rowLines) {
    return geometry(sizing(eps, generations, slack, rowLines), g);
  }

  static Geometry geometry(Sizing s, long g) {
    long rows = Math.max(1, (long) Math.ceil(g / s.lambda()));
    return s.rowLines() == 0
        ? new Geometry(s.k(), s.l(), rows, g)
        : Geometry.lineRows(s.rowLines(), s.k(), s.l(), rows, g);
  }
}
