package io.urldedup.state;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Sizing and error functions of the blocked Bloom filter that the scalable and aged filters are
 * made of, and the log-factorial helpers the error models share. The stable filter's math is in
 * {@link StableMath}, the scalable chain's in {@link ScalableMath}, the aged filter's in {@link
 * AgedMath}. No state, no I/O; every function is unit-tested against its closed form or against
 * simulation.
 *
 * <p>Notation: n elements, m bits, k probes, eps target false-positive rate, B = 512 bits per
 * block.
 */
public final class FilterMath {

  public static final int BLOCK_BITS = 512;

  /** Largest k / K considered when optimising. */
  static final int MAX_K = 32;

  private FilterMath() {}

  // ---------------------------------------------------------------- blocked Bloom filter

  /**
   * Blocked Bloom filter FPR (Putze, Sanders, Singler 2007, eq. for blocked filters): sum_i
   * Poisson(i; B n/m) * (1 - (1 - 1/B)^(i k))^k, where B n / m = B / c is the mean load of a block
   * and c = m/n bits per element.
   */
  public static double blockedFpr(double bitsPerElement, int k) {
    return blockedFprAtLoad(BLOCK_BITS / bitsPerElement, k);
  }

  /** Blocked FPR with mean elements per block {@code lambda} (= n / blocks). */
  public static double blockedFprAtLoad(double lambda, int k) {
    if (lambda <= 0) {
      return 0;
    }
    double logOneMinus = Math.log1p(-1.0 / BLOCK_BITS);
    double sd = Math.sqrt(lambda);
    int lo = (int) Math.max(0, Math.floor(lambda - 12 * sd - 12));
    int hi = (int) Math.ceil(lambda + 12 * sd + 24);
    double logLambda = Math.log(lambda);
    double sum = 0;
    for (int i = lo; i <= hi; i++) {
      double logPoisson = i * logLambda - lambda - lnFactorial(i);
      double pBitSet = -Math.expm1(i * (double) k * logOneMinus);
      sum += Math.exp(logPoisson + k * Math.log(pBitSet));
    }
    return Math.min(1, sum);
  }

  /**
   * Blocked FPR of a concrete filter: n elements in {@code blocks} blocks. The load of a block is
   * Binomial(n, 1/blocks); Poisson(n/blocks) overstates its variance by 1/(1 - 1/blocks), which
   * matters for small slices (20 blocks: the Poisson model was 5% above the measured FPR).
   */
  public static double blockedFpr(long n, long blocks, int k) {
    if (n <= 0) {
      return 0;
    }
    if (blocks >= 1L << 20) {
      return blockedFprAtLoad((double) n / blocks, k);
    }
    double pr = 1.0 / blocks;
    double mean = n * pr;
    double sd = Math.sqrt(n * pr * (1 - pr));
    long lo = Math.max(0, (long) Math.floor(mean - 12 * sd - 12));
    long hi = Math.min(n, (long) Math.ceil(mean + 12 * sd + 24));
    double logOneMinus = Math.log1p(-1.0 / BLOCK_BITS);
    double sum = 0;
    for (long i = lo; i <= hi; i++) {
      double logPmf =
          blocks == 1 ? (i == n ? 0 : Double.NEGATIVE_INFINITY) : logBinomialPmf(n, i, pr);
      double pBitSet = -Math.expm1(i * (double) k * logOneMinus);
      sum += Math.exp(logPmf + k * Math.log(pBitSet));
    }
    return Math.min(1, sum);
  }

  /** Optimal blocked-filter geometry for a target: fewest bits per element over k. */
  public record BlockedSizing(int k, double bitsPerElement) {}

  private static final ConcurrentHashMap<Double, BlockedSizing> SIZINGS = new ConcurrentHashMap<>();

  /** The k and bits per element that minimise memory with {@link #blockedFpr} <= eps (memoised). */
  public static BlockedSizing blockedSizing(double eps) {
    BlockedSizing s = SIZINGS.get(eps);
    if (s == null) {
      s = computeBlockedSizing(eps);
      if (SIZINGS.size() < 4096) {
        SIZINGS.put(eps, s);
      }
    }
    return s;
  }

  private static BlockedSizing computeBlockedSizing(double eps) {
    int bestK = 1;
    double bestC = Double.MAX_VALUE;
    for (int k = 1; k <= MAX_K; k++) {
      double c = blockedBitsFor(eps, k);
      if (c < bestC) {
        bestC = c;
        bestK = k;
      }
    }
    return new BlockedSizing(bestK, bestC);
  }

  /**
   * Bits per element with k probes for which the blocked FPR equals eps (bisection; FPR falls with
   * c).
   */
  static double blockedBitsFor(double eps, int k) {
    double lo = 0.5;
    double hi = 1024;
    if (blockedFpr(hi, k) > eps) {
      return Double.MAX_VALUE;
    }
    for (int it = 0; it < 60; it++) {
      double mid = 0.5 * (lo + hi);
      if (blockedFpr(mid, k) > eps) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return hi;
  }

  /** Blocks (512 bits) for n elements at eps: ceil(c n / 512), at least 1. */
  public static long blockedBlocks(long n, double eps) {
    BlockedSizing s = blockedSizing(eps);
    return Math.max(1, (long) Math.ceil(s.bitsPerElement() * n / BLOCK_BITS));
  }

  /** 4 KiB pages for n elements at eps (64 blocks per page). */
  public static long blockedPages(long n, double eps) {
    return pagesForBlocks(blockedBlocks(n, eps));
  }

  static long pagesForBlocks(long blocks) {
    return (blocks + BlockedBloomFilter.BLOCKS_PER_PAGE - 1) / BlockedBloomFilter.BLOCKS_PER_PAGE;
  }

  // ---------------------------------------------------------------- helpers

  private static final double[] LN_FACT = new double[256];

  static {
    for (int i = 1; i < LN_FACT.length; i++) {
      LN_FACT[i] = LN_FACT[i - 1] + Math.log(i);
    }
  }

  /** ln(n!): table below 256, Stirling series above (error < 1e-12 there). */
  static double lnFactorial(long n) {
    if (n < LN_FACT.length) {
      return LN_FACT[(int) n];
    }
    double x = n;
    return x * Math.log(x)
        - x
        + 0.5 * Math.log(2 * Math.PI * x)
        + 1 / (12 * x)
        - 1 / (360 * x * x * x);
  }

  static double logBinomialPmf(long n, long j, double p) {
    return lnFactorial(n)
        - lnFactorial(j)
        - lnFactorial(n - j)
        + j * Math.log(p)
        + (n - j) * Math.log1p(-p);
  }
}
