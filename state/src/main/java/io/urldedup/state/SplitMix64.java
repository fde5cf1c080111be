package io.urldedup.state;

/**
 * SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014): a
 * Weyl sequence with step {@link #GAMMA} through the finalizer {@link #mix}. The one copy of its
 * constants: the filters' decay and slice seeds, the forgetting model and the stream generator in
 * samples all use it, so a seed gives the same stream and the same persisted bits on every JVM.
 */
public final class SplitMix64 {
  /** The golden gamma: 2^64 / phi rounded to odd, the generator's Weyl step. */
  public static final long GAMMA = 0x9E3779B97F4A7C15L;

  private long state;

  public SplitMix64(long seed) {
    this.state = seed;
  }

  public long nextLong() {
    state += GAMMA;
    return mix(state);
  }

  /** Uniform in [0, 1) from the top 53 bits. */
  public double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /**
   * Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; bias below 2^-32 for bound < 2^32).
   */
  public int nextInt(int bound) {
    return (int) (((nextLong() >>> 32) * bound) >>> 32);
  }

  /** Uniform in [0, bound), bound > 0. */
  public long nextLong(long bound) {
    return Math.floorMod(nextLong(), bound);
  }

  /**
   * The SplitMix64 finalizer (Stafford's Mix13 variant): a bijection on longs with full avalanche.
   */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
