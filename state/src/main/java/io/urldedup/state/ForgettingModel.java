package io.urldedup.state;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * How many URLs of a given stream sharded stable filters are expected to re-emit (forget and emit
 * again): the numbers the fault checks and the statistical tests compare a measured count with.
 *
 * <p>A URL's cells are set when it is emitted (inserted) and a repeat is a read ({@link
 * StableBloomFilter}), so from an emission on the URL is re-emitted at its first arrival at which
 * some cell is 0. Replaying the stream, each emission draws a forgetting time T for its URL, and a
 * repeat is a re-emission iff its shard has seen at least T inserts since. Each URL gets a
 * pseudo-random shard with its own insert clock: estimating a shard's inserts as the stream's
 * inserts / shards, as {@code plan} does, read 8% low on a sample stream, where the spread of the
 * shards' loads matters. Re-emissions are inserts too, so the replay keeps its own clocks. Two laws
 * of T bracket the truth:
 *
 * <ul>
 *   <li>low: P(T <= x) = {@link StableMath#falseNegative}(x), a cell is 0 at x; exact for a URL
 *       that arrives once more, low for one that arrives often (a cell can reach 0 and be set again
 *       by another URL's insert between two arrivals);
 *   <li>high: P(T <= x) = {@link StableMath#forgottenBy}(x), a cell was 0 at some point by x; exact
 *       for a URL arriving at every insert, high for one arriving rarely.
 * </ul>
 *
 * The standard deviation over independent replays (fixed seed) accounts for the correlation of the
 * events within a stream, which a Poisson bound would not.
 */
public final class ForgettingModel {

  /**
   * Mean re-emissions under the low and the high law, and the larger of their sds over the replays.
   * Where the laws nearly coincide (gaps far below the retention), the replay noise, about sd /
   * sqrt(replays), can order the two means either way, so low is the smaller and high the larger of
   * them.
   */
  public record Estimate(double low, double high, double sd, int replays) {}

  private final double[] gaps;
  private final double[] low;
  private final double[] high;

  /** The laws tabulated at gaps 1 .. {@code maxGap} shard inserts, every 1% (exact below 100). */
  public ForgettingModel(StableMath.Geometry g, long maxGap) {
    int n = 0;
    double[] x = new double[64];
    for (double v = 1; ; v = Math.max(v + 1, Math.ceil(v * 1.01))) {
      if (n == x.length) {
        x = Arrays.copyOf(x, 2 * n);
      }
      x[n++] = Math.min(v, Math.max(1, maxGap));
      if (v >= maxGap) {
        break;
      }
    }
    gaps = Arrays.copyOf(x, n);
    low = new double[n];
    high = new double[n];
    for (int i = 0; i < n; i++) {
      low[i] = StableMath.falseNegative(g, (long) gaps[i]);
      high[i] = StableMath.forgottenBy(g, (long) gaps[i]);
    }
  }

  /**
   * @param ids the stream: ids[i] in [0, distinct) is the URL of arrival i; its first arrival is an
   *     emission (first-arrival false positives are neglected: at most the stable FPR)
   */
  public Estimate reemissions(int[] ids, int distinct, int shards, int replays, long seed) {
    double[] a = replay(low, ids, distinct, shards, replays, seed);
    double[] b = replay(high, ids, distinct, shards, replays, seed);
    return new Estimate(Math.min(a[0], b[0]), Math.max(a[0], b[0]), Math.max(a[1], b[1]), replays);
  }

  private double[] replay(
      double[] law, int[] ids, int distinct, int shards, int replays, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long[] emittedAt = new long[distinct];
    double[] forgetAt = new double[distinct];
    boolean[] known = new boolean[distinct];
    long[] clocks = new long[shards];
    double sum = 0;
    double sum2 = 0;
    for (int r = 0; r < replays; r++) {
      Arrays.fill(known, false);
      Arrays.fill(clocks, 0);
      long count = 0;
      for (int id : ids) {
        int shard = shardOf(id, shards);
        if (known[id] && clocks[shard] - emittedAt[id] < forgetAt[id]) {
          continue;
        }
        if (known[id]) {
          count++;
        }
        known[id] = true;
        emittedAt[id] = ++clocks[shard];
        forgetAt[id] = forgettingTime(law, rnd.nextDouble());
      }
      sum += count;
      sum2 += (double) count * count;
    }
    double mean = sum / replays;
    return new double[] {mean, Math.sqrt(Math.max(0, sum2 / replays - mean * mean))};
  }

  /**
   * A URL's shard: a fixed pseudo-random function of its id (the job's shard is one of its secret
   * hash, which is as uniform), so each shard keeps its own insert clock.
   */
  private static int shardOf(int id, int shards) {
    return (int) UrlHasher.reduce(SplitMix64.mix((id + 1) * SplitMix64.GAMMA), shards);
  }

  /**
   * T with law(T) = u, linear between tabulated gaps; beyond the table the URL is never forgotten.
   */
  private double forgettingTime(double[] law, double u) {
    int i = Arrays.binarySearch(law, u);
    if (i >= 0) {
      return gaps[i];
    }
    i = -i - 1;
    if (i >= law.length) {
      return Double.POSITIVE_INFINITY;
    }
    if (i == 0) {
      return gaps[0];
    }
    return gaps[i - 1] + (u - law[i - 1]) / (law[i] - law[i - 1]) * (gaps[i] - gaps[i - 1]);
  }
}
