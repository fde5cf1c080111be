package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Index arithmetic beyond 2^31 and 2^32 bits, over a 2^34-bit address space, without allocating it.
 */
class IndexMathTest {

  static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

  @Test
  void reduceIsTheHighHalfOfTheUnsigned128BitProduct() {
    SplittableRandom rnd = new SplittableRandom(3);
    long[] ns = {
      1, 2, 3, 1000, (1L << 31) + 1, (1L << 32) + 7, 1L << 34, (1L << 40) - 3, Long.MAX_VALUE
    };
    for (long n : ns) {
      for (int i = 0; i < 10_000; i++) {
        long h = rnd.nextLong();
        long expected =
            new BigInteger(Long.toUnsignedString(h))
                .multiply(BigInteger.valueOf(n))
                .divide(TWO_64)
                .longValueExact();
        assertEquals(expected, UrlHasher.reduce(h, n));
      }
      assertEquals(n - 1, UrlHasher.reduce(-1L, n));
      assertEquals(0, UrlHasher.reduce(0, n));
    }
  }

  @Test
  void blockedBitAddressesCoverA2To34BitSpace() {
    long bits = 1L << 34;
    long blocks = bits / FilterMath.BLOCK_BITS;
    SplittableRandom rnd = new SplittableRandom(4);
    int samples = 1_000_000;
    int above31 = 0;
    int above32 = 0;
    int above33 = 0;
    long max = 0;
    for (int i = 0; i < samples; i++) {
      long a = BlockedBloomFilter.bitAddress(rnd.nextLong(), rnd.nextLong(), i % 9, blocks);
      assertTrue(a >= 0 && a < bits);
      max = Math.max(max, a);
      above31 += a >= 1L << 31 ? 1 : 0;
      above32 += a >= 1L << 32 ? 1 : 0;
      above33 += a >= 1L << 33 ? 1 : 0;
    }
    // uniform over 2^34: P(>= 2^31) = 7/8, P(>= 2^32) = 3/4, P(>= 2^33) = 1/2; 5 sigma <= 0.0025
    assertEquals(0.875, above31 / (double) samples, 0.0025);
    assertEquals(0.75, above32 / (double) samples, 0.0025);
    assertEquals(0.5, above33 / (double) samples, 0.0025);
    assertTrue(max > bits - (bits >> 16));
    assertEquals(
        bits - FilterMath.BLOCK_BITS,
        BlockedBloomFilter.bitAddress(-1L, 0, 0, blocks) - BlockedBloomFilter.bitInBlock(0));
    long lastBlock = blocks - 1;
    assertEquals(
        (1L << 19) - 1, BlockedBloomFilter.pageOfBlock(lastBlock), "2^34 bits = 2^19 pages");
    assertEquals(
        PageStore.PAGE_WORDS - BlockedBloomFilter.BLOCK_WORDS,
        BlockedBloomFilter.wordOfBlock(lastBlock));
  }

  /** Records page ids and hands out one scratch page: a 2 GiB (2^34-bit) filter without 2 GiB. */
  static final class RecordingStore implements PageStore {
    final long[] scratch = new long[PAGE_WORDS];
    long maxId = -1;
    long count;

    @Override
    public long[] page(long pageId) {
      maxId = Math.max(maxId, pageId);
      count++;
      return scratch;
    }

    @Override
    public void markDirty(long pageId) {}
  }

  @Test
  void blockedAndStableFiltersAddressEveryPageOfA2To34BitFilter() {
    long pages = (1L << 34) / 8 / PageStore.PAGE_BYTES;
    RecordingStore store = new RecordingStore();
    BlockedBloomFilter blocked =
        new BlockedBloomFilter(store, 0, pages * BlockedBloomFilter.BLOCKS_PER_PAGE, 7);
    blocked.testAndAdd(-1L, 12345);
    assertEquals(pages - 1, store.maxId);

    FilterHeader h = FilterSpec.stable(0.01, 1L << 31, 3).newHeader(0);
    RecordingStore stableStore = new RecordingStore();
    StableBloomFilter stable = new StableBloomFilter(h, stableStore);
    assertEquals(1L << 31, stable.sizeBytes());
    stable.testAndAdd(-1L, 12345);
    assertEquals(pages - 1, stableStore.maxId);
    SplittableRandom rnd = new SplittableRandom(5);
    int high = 0;
    for (int i = 0; i < 100_000; i++) {
      stableStore.maxId = -1;
      stable.mightContain(rnd.nextLong(), rnd.nextLong());
      high += stableStore.maxId >= pages / 2 ? 1 : 0;
      assertTrue(stableStore.maxId < pages);
    }
    assertEquals(0.5, high / 100_000.0, 0.01);
  }

  @Test
  void scalablePageIdsKeepSliceAndPageApart() {
    long id = FilterHeader.pageId(63, (1L << 40) + 5);
    assertEquals(63, id >>> FilterHeader.SLICE_SHIFT);
    assertEquals((1L << 40) + 5, id & ((1L << FilterHeader.SLICE_SHIFT) - 1));
  }
}
