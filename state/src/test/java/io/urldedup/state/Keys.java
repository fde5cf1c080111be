package io.urldedup.state;

/** Deterministic pseudo-random 128-bit hashes for tests: key i -> (mix(i), mix(i ^ salt)). */
final class Keys {

  private Keys() {}

  /** SplitMix64 finalizer (Steele, Lea, Flood 2014): a bijection with good avalanche. */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  static long h1(long stream, long i) {
    return mix(i * 0x9E3779B97F4A7C15L + stream);
  }

  static long h2(long stream, long i) {
    return mix((i * 0x9E3779B97F4A7C15L + stream) ^ 0x5851F42D4C957F2DL);
  }
}
