package io.urldedup.state;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The aged filter's error model ({@link AgedMath} explains the notation and the layouts): the
 * probability that a URL is seen, as the expectation over a row's per-generation loads of the
 * probability of a run of k consecutive matching slice positions (Shtul, Baquero, Almeida 2020,
 * their recursion F(k, l, a, i) generalised to blocked segments). The expectation is taken by Monte
 * Carlo with common random numbers (fixed seeds), so it is deterministic and monotone in lambda and
 * {@link AgedMath}'s sizing can bisect on it; {@code samples} 0 gives the mean field.
 */
public final class AgedModel {

  private static final long SEED = 0x41474544L; // "AGED"

  private AgedModel() {}

  /**
   * FPR at the end of a generation with B-bit segments; {@code samples} 0: mean field (slices
   * uncorrelated).
   */
  public static double fpr(int k, int l, double lambda, int bits, int samples) {
    return runExpectation(k, l, lambda, bits, 0, samples);
  }

  /** Layout 1 (64-bit segments). */
  public static double fpr(int k, int l, double lambda, int samples) {
    return fpr(k, l, lambda, AgedMath.WORD_BITS, samples);
  }

  /**
   * Probability of being seen s shifts after the insert's generation, at the end of a generation.
   */
  public static double seenAfter(int k, int l, double lambda, int bits, int shifts, int samples) {
    if (shifts <= l) {
      return 1;
    }
    return runExpectation(k, l, lambda, bits, shifts, samples);
  }

  /**
   * Smallest s > l with seenAfter(t) <= 1 - share for all t >= s (it falls with s); at most k + l.
   */
  public static int forgottenBy(int k, int l, double lambda, int bits, double share, int samples) {
    for (int s = l + 1; s < k + l; s++) {
      if (seenAfter(k, l, lambda, bits, s, samples) <= 1 - share) {
        return s;
      }
    }
    return k + l;
  }

  /**
   * E over row loads of the run probability; positions >= {@code heldFrom} (if > 0) hold the URL
   * (match with probability 1).
   */
  private static double runExpectation(
      int k, int l, double lambda, int bits, int heldFrom, int samples) {
    return runMoments(k, l, lambda, bits, heldFrom, samples, seed(k, l))[0];
  }

  /**
   * The seed of the samples sizing and the reports use for k and l (tests compare against them).
   */
  static long seed(int k, int l) {
    return SEED ^ (31L * k + l);
  }

  /** Layout 1 (64-bit segments). */
  static double[] runMoments(int k, int l, double lambda, int heldFrom, int samples, long seed) {
    return runMoments(k, l, lambda, AgedMath.WORD_BITS, heldFrom, samples, seed);
  }

  /**
   * Mean and standard deviation over the row-load samples of the run probability, B-bit segments
   * (tests derive their tolerances from the spread: a filter averages it over its rows, the model
   * over its samples). Samples 0: the mean field, sd 0.
   */
  static double[] runMoments(
      int k, int l, double lambda, int bits, int heldFrom, int samples, long seed) {
    int r = k + l;
    double[] p = new double[r];
    double[] v = new double[k];
    if (samples == 0) {
      for (int i = 0; i < r; i++) {
        int gens = Math.min(i + 1, k);
        // E[(1 - 1/B)^S] for S ~ Poisson(gens lambda) is exp(-gens lambda / B)
        p[i] = heldFrom > 0 && i >= heldFrom ? 1 : -Math.expm1(-gens * lambda / bits);
      }
      return new double[] {runProbability(p, k, v), 0};
    }
    double missPerLoad = Math.log1p(-1.0 / bits);
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
        p[i] = heldFrom > 0 && i >= heldFrom ? 1 : -Math.expm1(s * missPerLoad);
      }
      double x = runProbability(p, k, v);
      sum += x;
      sum2 += x * x;
    }
    double mean = sum / samples;
    return new double[] {mean, Math.sqrt(Math.max(0, sum2 / samples - mean * mean))};
  }

  /**
   * Poisson(lambda) by inversion of u (monotone in lambda for a fixed u: common random numbers).
   */
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
   * P(some k consecutive successes) in independent trials with success probabilities p[0..]: a
   * chain over the current run length, absorbing at k ({@code v} is scratch of length k). The
   * model's expectation and {@code inspect}'s reading of a row's bits both use it.
   */
  public static double runProbability(double[] p, int k, double[] v) {
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
