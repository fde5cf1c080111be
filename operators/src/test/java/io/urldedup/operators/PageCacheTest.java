package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.state.PageStore;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PageCacheTest {

  /** A backing map that records what it was asked and keeps only copies, as the operator does. */
  static final class MapBacking implements PageCache.Backing {
    final Map<String, long[]> stored = new HashMap<>();
    final Set<long[]> handedOut = new HashSet<>();
    int reads;
    int writes;

    static String key(int shard, long pageId) {
      return shard + "/" + pageId;
    }

    @Override
    public boolean read(int shard, long pageId, long[] dst) {
      reads++;
      long[] v = stored.get(key(shard, pageId));
      if (v == null) {
        return false;
      }
      System.arraycopy(v, 0, dst, 0, v.length);
      return true;
    }

    @Override
    public void write(int shard, long pageId, long[] words) {
      writes++;
      handedOut.add(words);
      stored.put(key(shard, pageId), words.clone());
    }
  }

  @Test
  void randomAccessMatchesModelAcrossEvictions() {
    for (int capacity : new int[] {1, 2, 4, 7, 64}) {
      MapBacking backing = new MapBacking();
      PageCache cache = new PageCache(capacity, backing);
      Map<String, long[]> truth = new HashMap<>();
      Random rnd = new Random(42 + capacity);
      for (int op = 0; op < 20_000; op++) {
        int shard = rnd.nextInt(5);
        // pages far apart and negative too: page ids are 64-bit
        long pageId = (rnd.nextInt(12) - 3) * 0x1_0000_0001L;
        cache.selectShard(shard);
        long[] page = cache.page(pageId);
        assertEquals(PageStore.PAGE_WORDS, page.length);
        long[] expected =
            truth.getOrDefault(MapBacking.key(shard, pageId), new long[PageStore.PAGE_WORDS]);
        assertArrayEquals(expected, page, "capacity " + capacity + " op " + op);
        if (rnd.nextInt(3) == 0) {
          int w = rnd.nextInt(PageStore.PAGE_WORDS);
          page[w] ^= 1L << rnd.nextInt(64);
          cache.markDirty(pageId);
          truth.put(MapBacking.key(shard, pageId), page.clone());
        }
        if (op % 5000 == 4999) {
          cache.flush();
          assertFalse(cache.hasDirty());
        }
      }
      cache.flush();
      assertEquals(truth.keySet(), backing.stored.keySet(), "only modified pages are stored");
      for (Map.Entry<String, long[]> e : truth.entrySet()) {
        assertArrayEquals(e.getValue(), backing.stored.get(e.getKey()));
      }
      assertTrue(cache.size() <= capacity);
      assertEquals(20_000, cache.hits() + cache.misses());
    }
  }

  @Test
  void absentPageReadsZeroAndIsNotStoredUntilDirty() {
    MapBacking backing = new MapBacking();
    PageCache cache = new PageCache(2, backing);
    cache.selectShard(3);
    for (long p = 0; p < 10; p++) {
      long[] page = cache.page(p);
      for (long w : page) {
        assertEquals(0L, w);
      }
    }
    cache.flush();
    assertTrue(backing.stored.isEmpty());
    assertEquals(0, backing.writes);
  }

  @Test
  void dirtyVictimOfAnotherShardIsWrittenUnderItsShard() {
    MapBacking backing = new MapBacking();
    PageCache cache = new PageCache(1, backing);
    cache.selectShard(7);
    cache.page(5)[0] = 99;
    cache.markDirty(5);
    cache.selectShard(8);
    cache.page(5); // evicts (7, 5)
    assertArrayEquals(longs(99), Arrays.copyOf(backing.stored.get("7/5"), 1));
    assertFalse(backing.stored.containsKey("8/5"));
    assertEquals(1, cache.writeBacks());
  }

  @Test
  void cacheNeverHandsItsArraysToTheBacking() {
    MapBacking backing = new MapBacking();
    PageCache cache = new PageCache(3, backing);
    cache.selectShard(0);
    long[] a = cache.page(1);
    a[0] = 1;
    cache.markDirty(1);
    cache.flush();
    long[] stored = backing.stored.get("0/1");
    assertNotSame(a, stored);
    a[0] = 2; // a later insert must not reach what the backing holds
    assertEquals(1, stored[0]);
  }

  @Test
  void markDirtyOfAnUnfetchedPageFails() {
    PageCache cache = new PageCache(2, new MapBacking());
    cache.selectShard(0);
    cache.page(1);
    assertThrows(IllegalStateException.class, () -> cache.markDirty(2));
  }

  @Test
  void rejectsEmptyCache() {
    assertThrows(IllegalArgumentException.class, () -> new PageCache(0, new MapBacking()));
  }

  private static long[] longs(long... v) {
    return v;
  }
}
