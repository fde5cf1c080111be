package io.urldedup.samples;

/**
 * SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014):
 * the generator's only randomness, so a seed gives the same stream on every JVM.
 */
public final class SplitMix64 {
  private long state;

  SplitMix64(long seed) {
    this.state = seed;
  }

  long nextLong() {
    state += 0x9E3779B97F4A7C15L;
    return mix(state);
  }

  /** Uniform in [0, 1) from the top 53 bits. */
  double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /** Uniform in [0, bound), bound > 0 (Lemire's multiply-shift; bias below 2^-32 for bound < 2^32). */
  int nextInt(int bound) {
    return (int) (((nextLong() >>> 32) * bound) >>> 32);
  }

  /** Uniform in [0, bound), bound > 0. */
  long nextLong(long bound) {
    return Math.floorMod(nextLong(), bound);
  }

  /** The SplitMix64 finalizer (a bijection on longs). */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
