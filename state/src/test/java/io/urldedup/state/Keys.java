package io.urldedup.state;

/**
 * Deterministic pseudo-random 128-bit hashes for tests: key i of a stream -> two SplitMix64
 * outputs.
 */
final class Keys {

  private Keys() {}

  static long h1(long stream, long i) {
    return SplitMix64.mix(i * SplitMix64.GAMMA + stream);
  }

  static long h2(long stream, long i) {
    return SplitMix64.mix((i * SplitMix64.GAMMA + stream) ^ 0x5851F42D4C957F2DL);
  }
}
