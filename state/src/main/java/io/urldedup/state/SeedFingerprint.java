package io.urldedup.state;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A one-way fingerprint of the hash seed. A seed is only 64 bits, so an invertible mix (or a
 * non-cryptographic hash of the 8 bytes) would reveal it; SHA-256 with a domain prefix does not.
 * Stored in the filter header so that a restore with another seed fails loudly instead of silently
 * answering "unseen" for everything.
 */
final class SeedFingerprint {

  private static final byte[] DOMAIN =
      "urldedup-seed-fingerprint-v1".getBytes(StandardCharsets.US_ASCII);

  private SeedFingerprint() {}

  static long of(long seed) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(DOMAIN);
      sha.update(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(seed).array());
      return ByteBuffer.wrap(sha.digest()).order(ByteOrder.LITTLE_ENDIAN).getLong();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
