package io.urldedup.state;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Sizing and error model of the age-partitioned blocked Bloom filter ({@link AgedBloomFilter};
 * Shtul, Baquero, Almeida 2020, arXiv 2001.03147). Pure functions; deterministic (the Monte Carlo
 * parts use fixed seeds).
 *
 * <p>Notation: k slices hold a new URL, l more slices age it, R = k + l slices; a generation is g
 * inserts (or a time step); a URL is inserted into slice positions 0..k-1 (0 = newest) and is
 * "seen" when k consecutive positions hold it. Every generation shifts the positions by one and
 * clears the oldest slice. So a URL is seen for the l shifts after the generation it was inserted
 * in (l g inserts at least: the guaranteed window), then fades: after s > l shifts only positions
 * s..R-1 still hold it and it is seen only if s - l neighbouring positions answer falsely; after
 * s >= R shifts it is gone.
 *
 * <p>Blocked layout: a URL uses one 64-bit word of every slice, the same word index w in all of
 * them, and one bit of each word. Slice position i at the end of a generation holds the
 * generations j = max(0, i-k+1) .. i (j = 0 the current one), so its word w has load S_i = sum of
 * those generations' loads L_j of row w, L_j ~ Poisson(lambda) with lambda = g / rows, and is a
 * false match with probability 1 - (63/64)^S_i. Given the loads, matches are independent across
 * slices (each slice its own bit position), so
 * FPR = E_L[ P(some run of k consecutive matches among R positions | p_i(L)) ]. The paper's
 * recursion F(k, l, a, i) is that run probability with the unblocked fills (i+1)/(2k) and 1/2;
 * here the expectation over the row loads (which makes neighbouring slices' errors correlated, as
 * in any blocked filter, Putze et al. 2007) is taken by Monte Carlo with common random numbers,
 * so the estimate is monotone in lambda and bisection on it is exact for the sample.
 */
public final class AgedMath {

  public static final int WORD_BITS = 64;
  /** Slices are columns of a row of 64-bit words; a 64-bit mask holds a row's stale columns. */
  public static final int MAX_SLICES = 64;
  public static final int MAX_K = 32;
  /**
   * Samples of row loads for the FPR and forgetting; sizing and reports use the same samples.
   * Relative MC standard error 1% (FPR 1%) to 3% (FPR 1e-6), measured by AgedMathTest. Sizing
   * keeps the mean {@link #SIZING_STANDARD_ERRORS} standard errors below the target, so the
   * reported FPR (the mean) is 2-6% below --fpr.
   */
  public static final int SAMPLES = 1 << 13;
  /** Share of URLs that must be forgotten at "forgotten by" (the slack's definition). */
  public static final double FORGOTTEN_SHARE = 0.99;
  public static final double DEFAULT_SLACK = 0.10;

  private static final double MISS_PER_LOAD = Math.log1p(-1.0 / WORD_BITS);
  private static final long SEED = 0x41474544L; // "AGED"

  private AgedMath() {}

  /**
   * The concrete layout: k, l, rows (64-bit words per slice) and the planned generation size g
   * (inserts per generation per shard: the count window's step, or the time window's planned
   * rate x generation length; reaching it advances early).
   */
  public record Geometry(int k, int l, long rows, long generationSize) {
    public Geometry {
      if (k < 1 || l < 1 || k + l > MAX_SLICES || rows < 1 || generationSize < 1) {
        throw new IllegalArgumentException("aged geometry needs k, l >= 1, k + l <= " + MAX_SLICES
            + ", rows >= 1, generation size >= 1; got k=" + k + " l=" + l + " rows=" + rows + " g=" + generationSize);
      }
    }

    public int slices() {
      return k + l;
    }

    /** Rows per 4 KiB page: word 0 of a page is its generation stamp, rows never straddle pages. */
    public int rowsPerPage() {
      return (PageStore.PAGE_WORDS - 1) / slices();
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

    /** FPR at the end of a full generation (the worst point of the cycle); memoised (shards share a geometry). */
    public double fpr() {
      Double f = FPRS.get(this);
      if (f == null) {
        f = AgedMath.fpr(k, l, lambda(), SAMPLES);
        if (FPRS.size() < 1024) {
          FPRS.put(this, f);
        }
      }
      return f;
    }

    /** Probability that a URL is still seen s shifts after the generation it was inserted in (1 for s <= l). */
    public double seenAfter(int shifts) {
      return AgedMath.seenAfter(k, l, lambda(), shifts, SAMPLES);
    }

    /** Shifts after which at least {@link #FORGOTTEN_SHARE} of URLs are forgotten. */
    public int forgottenByShifts() {
      return AgedMath.forgottenBy(k, l, lambda(), FORGOTTEN_SHARE, SAMPLES);
    }

    /** (forgotten-by shifts) / l - 1: how far beyond the window a URL may still be suppressed. */
    public double slack() {
      return (double) forgottenByShifts() / l - 1;
    }
  }

  /** k and lambda (inserts per row per generation) for a target, and the l they were chosen with. */
  public record Sizing(int k, int l, double lambda) {}

  private static final ConcurrentHashMap<String, Sizing> SIZINGS = new ConcurrentHashMap<>();
  private static final ConcurrentHashMap<Geometry, Double> FPRS = new ConcurrentHashMap<>();

  /**
   * The k, l and lambda with the least memory per guaranteed-window URL, (k + l) / (l lambda)
   * words, such that the FPR is at most eps and, when l is not given ({@code generations} 0), at
   * least 99% of URLs are forgotten by (1 + slack) x the window. The search runs on the
   * uncorrelated (mean-field) model; lambda is then set with the blocked Monte Carlo model, on its
   * mean plus {@link #SIZING_STANDARD_ERRORS} standard errors ({@link #upperBound}). Memoised.
   */
  public static Sizing sizing(double eps, int generations, double slack) {
    String key = eps + "/" + generations + "/" + slack;
    Sizing s = SIZINGS.get(key);
    if (s == null) {
      s = computeSizing(eps, generations, slack);
      if (SIZINGS.size() < 1024) {
        SIZINGS.put(key, s);
      }
    }
    return s;
  }

  private static Sizing computeSizing(double eps, int generations, double slack) {
    int bestK = 0;
    int bestL = 0;
    double bestCost = Double.MAX_VALUE;
    int lLo = generations > 0 ? generations : 2;
    int lHi = generations > 0 ? generations : MAX_SLICES - 1;
    for (int l = lLo; l <= lHi; l++) {
      double previous = Double.MAX_VALUE;
      int rising = 0;
      for (int k = 1; k <= MAX_K && k + l <= MAX_SLICES && rising < 3; k++) {
        double lambda = maxLambda(k, l, eps, generations > 0 ? -1 : slack, 0);
        if (lambda <= 0) {
          continue;
        }
        double cost = (k + l) / (l * lambda);
        // the cost is unimodal in k: stop a few steps past its minimum
        rising = cost > previous ? rising + 1 : 0;
        previous = cost;
        // a 2% smaller filter is not worth more slices: prefer fewer words per row (cache lines)
        if (cost < bestCost * 0.98) {
          bestCost = cost;
          bestK = k;
          bestL = l;
        }
      }
    }
    if (bestK == 0) {
      throw new IllegalArgumentException("no aged filter with at most " + MAX_SLICES + " slices reaches --fpr " + eps
          + (generations > 0 ? " with --generations " + generations : " with a " + Math.round(slack * 100)
          + "% slack") + "; use a larger --fpr or fewer --generations");
    }
    // the blocked model's FPR is above the mean field's (correlated fills): lambda only falls
    double upper = maxLambda(bestK, bestL, eps, generations > 0 ? -1 : slack, 0);
    double lambda = maxLambda(bestK, bestL, eps, generations > 0 ? -1 : slack, SAMPLES, upper);
    return new Sizing(bestK, bestL, lambda);
  }

  /**
   * Largest lambda with FPR <= eps and (slack >= 0) seen-after(floor(l (1 + slack))) <= 1 - 99%,
   * both on the Monte Carlo {@link #upperBound}; 0 if none. {@code samples} 0 uses the mean-field
   * model.
   */
  static double maxLambda(int k, int l, double eps, double slack, int samples) {
    return maxLambda(k, l, eps, slack, samples, WORD_BITS);
  }

  static double maxLambda(int k, int l, double eps, double slack, int samples, double upper) {
    double lambda = bisect(x -> upperBound(k, l, x, 0, samples) <= eps, upper);
    if (slack >= 0) {
      int s = (int) Math.floor(l * (1 + slack) + 1e-9);
      if (s <= l) {
        return 0;
      }
      lambda = Math.min(lambda, bisect(x -> upperBound(k, l, x, s, samples) <= 1 - FORGOTTEN_SHARE, upper));
    }
    return lambda;
  }

  /**
   * Standard errors of the Monte Carlo mean that sizing keeps between the estimate and the
   * target: bisecting on the mean itself puts the true rate above the target for about half of
   * the settings; mean + 2 SE leaves it above for about 2.3% (one-sided normal tail).
   */
  static final double SIZING_STANDARD_ERRORS = 2;

  /**
   * The run probability's Monte Carlo mean plus {@link #SIZING_STANDARD_ERRORS} standard errors
   * (the mean field, {@code samples} 0, has none); {@code heldFrom} as in {@link #runMoments}.
   */
  static double upperBound(int k, int l, double lambda, int heldFrom, int samples) {
    if (samples == 0) {
      return heldFrom > 0 ? seenAfter(k, l, lambda, heldFrom, 0) : fpr(k, l, lambda, 0);
    }
    double[] m = runMoments(k, l, lambda, heldFrom, samples, SEED ^ (31L * k + l));
    return m[0] + SIZING_STANDARD_ERRORS * m[1] / Math.sqrt(samples);
  }

  private interface Ok {
    boolean at(double lambda);
  }

  /**
   * Largest lambda in (0, upper] with ok(lambda), ok falling in lambda, to a relative 1e-3 (the
   * mean-field search) or 1e-4 (the final, bracketed, Monte Carlo step); 0 if not even a tiny
   * lambda is ok.
   */
  private static double bisect(Ok ok, double upper) {
    double lo = upper < WORD_BITS ? upper / 8 : 1e-3;
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
    double tolerance = upper < WORD_BITS ? 1e-4 : 1e-3;
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

  /** A layout for generations of g inserts (per shard). */
  public static Geometry geometry(double eps, int generations, double slack, long g) {
    Sizing s = sizing(eps, generations, slack);
    long rows = Math.max(1, (long) Math.ceil(g / s.lambda()));
    return new Geometry(s.k(), s.l(), rows, g);
  }

  // ---------------------------------------------------------------- the model

  /** FPR at the end of a generation; {@code samples} 0: mean field (slices uncorrelated). */
  public static double fpr(int k, int l, double lambda, int samples) {
    return runExpectation(k, l, lambda, 0, samples);
  }

  /** Probability of being seen s shifts after the insert's generation, at the end of a generation. */
  public static double seenAfter(int k, int l, double lambda, int shifts, int samples) {
    if (shifts <= l) {
      return 1;
    }
    return runExpectation(k, l, lambda, shifts, samples);
  }

  /** Smallest s > l with seenAfter(t) <= 1 - share for all t >= s (it falls with s); at most k + l. */
  public static int forgottenBy(int k, int l, double lambda, double share, int samples) {
    for (int s = l + 1; s < k + l; s++) {
      if (seenAfter(k, l, lambda, s, samples) <= 1 - share) {
        return s;
      }
    }
    return k + l;
  }

  /**
   * E over row loads of the run probability; positions >= {@code heldFrom} (if > 0) hold the URL
   * (match with probability 1).
   */
  private static double runExpectation(int k, int l, double lambda, int heldFrom, int samples) {
    return runMoments(k, l, lambda, heldFrom, samples, SEED ^ (31L * k + l))[0];
  }

  /**
   * Mean and standard deviation over the row-load samples of the run probability (tests derive
   * their tolerances from the spread: a filter averages it over its rows, the model over its
   * samples). Samples 0: the mean field, sd 0.
   */
  static double[] runMoments(int k, int l, double lambda, int heldFrom, int samples, long seed) {
    int r = k + l;
    double[] p = new double[r];
    double[] v = new double[k];
    if (samples == 0) {
      for (int i = 0; i < r; i++) {
        int gens = Math.min(i + 1, k);
        // E[(63/64)^S] for S ~ Poisson(gens lambda) is exp(-gens lambda / 64)
        p[i] = heldFrom > 0 && i >= heldFrom ? 1 : -Math.expm1(-gens * lambda / WORD_BITS);
      }
      return new double[] {runProbability(p, k, v), 0};
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] loads = new int[r];
    double sum = 0;
    double sum2 = 0;
    double e = Math.exp(-lambda);
    for (int n = 0; n < samples; n++) {
      for (int j = 0; j < r; j++) {
        loads[j] = poisson(rnd.nextDouble(), lambda, e);
      }
      int s = 0;
      for (int i = 0; i < r; i++) {
        s += loads[i];
        if (i >= k) {
          s -= loads[i - k];
        }
        p[i] = heldFrom > 0 && i >= heldFrom ? 1 : -Math.expm1(s * MISS_PER_LOAD);
      }
      double x = runProbability(p, k, v);
      sum += x;
      sum2 += x * x;
    }
    double mean = sum / samples;
    return new double[] {mean, Math.sqrt(Math.max(0, sum2 / samples - mean * mean))};
  }

  /** Poisson(lambda) by inversion of u (monotone in lambda for a fixed u: common random numbers). */
  static int poisson(double u, double lambda, double expMinusLambda) {
    int x = 0;
    double pmf = expMinusLambda;
    double cdf = pmf;
    while (u > cdf && x < 10_000) {
      x++;
      pmf *= lambda / x;
      cdf += pmf;
    }
    return x;
  }

  /**
   * P(some k consecutive successes) in independent trials with success probabilities p[0..]:
   * a chain over the current run length, absorbing at k ({@code v} is scratch of length k).
   */
  static double runProbability(double[] p, int k, double[] v) {
    Arrays.fill(v, 0);
    v[0] = 1;
    double hit = 0;
    for (double pi : p) {
      double reset = 0;
      for (int run = k - 1; run >= 0; run--) {
        double m = v[run];
        if (m == 0) {
          continue;
        }
        reset += m * (1 - pi);
        if (run + 1 == k) {
          hit += m * pi;
          v[run] = 0;
        } else {
          v[run + 1] += m * pi;
          v[run] = 0;
        }
      }
      v[0] += reset;
    }
    return Math.min(1, hit);
  }
}
