package io.urldedup.bench;

import com.google.common.hash.Funnel;
import com.google.common.hash.PrimitiveSink;

/**
 * A reusable view of bytes {@code [off, off + len)} of an array, with the Guava funnel that hashes
 * exactly those bytes: Guava's {@code byteArrayFunnel} needs a whole array, which for URLs stored
 * back to back in {@link UrlPool} would mean a copy per operation. Guava hashes a funnelled object
 * through the same streaming Murmur3-128 hasher either way, so the cost of Guava's hash is
 * unchanged.
 */
final class PooledUrl {

  byte[] bytes;
  int off;
  int len;

  /**
   * Hashed after the bytes, so that a new value makes every URL a new element (also when 0:
   * constant cost).
   */
  long salt;

  PooledUrl set(byte[] bytes, int off, int len) {
    this.bytes = bytes;
    this.off = off;
    this.len = len;
    return this;
  }

  enum BytesFunnel implements Funnel<PooledUrl> {
    INSTANCE;

    @Override
    public void funnel(PooledUrl u, PrimitiveSink into) {
      into.putBytes(u.bytes, u.off, u.len).putLong(u.salt);
    }
  }
}
