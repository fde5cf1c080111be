package io.urldedup.operators;

import io.urldedup.state.PageStore;
import io.urldedup.state.SplitMix64;
import java.util.Arrays;
import java.util.function.IntPredicate;
import org.apache.flink.annotation.VisibleForTesting;

/**
 * A bounded write-back cache of filter pages keyed by (shard, page id), in front of the keyed
 * {@code MapState} that holds them. It is the {@link PageStore} of every shard's filter on one
 * subtask: the operator points it at the record's shard with {@link #selectShard(int)} before the
 * filter runs, so a record touches one cached 4 KiB page instead of (de)serializing a filter.
 *
 * <p>Replacement is CLOCK (second chance): a reference bit per slot, set on every hit, cleared by
 * the sweeping hand; the first slot found with a clear bit is the victim. It approximates LRU with
 * no list maintenance on a hit. A dirty victim is written back through {@link Backing} under its
 * own shard, which may differ from the selected one.
 *
 * <p>Ownership: the cache owns its page arrays and never hands one to the backing to keep. The heap
 * state backend snapshots asynchronously over the very objects in its maps (copy-on-write per map
 * entry), so an array shared with state and mutated after a snapshot started would leak later
 * inserts into that snapshot. {@link Backing#write} must therefore store a copy (or serialize at
 * once, as RocksDB does), and {@link Backing#read} copies into the cache's array.
 *
 * <p>The per-record path (hit or miss with a clean victim) allocates nothing; a slot's array is
 * allocated once, when the slot is first used. Not thread-safe: task thread only.
 */
public final class PageCache implements PageStore {

  /**
   * Where pages live durably: one shard's pages in keyed state. Failures are rethrown unchecked.
   */
  public interface Backing {

    /**
     * Copies the stored page into {@code dst} and returns true, or returns false if none is stored.
     */
    boolean read(int shard, long pageId, long[] dst) throws Exception;

    /**
     * Stores {@code words} as the page; must not retain the array (store a copy or serialize it).
     */
    void write(int shard, long pageId, long[] words) throws Exception;
  }

  /** 2^26 pages = 256 GiB: keeps the index table within an int array. */
  public static final int MAX_PAGES = 1 << 26;

  private static final int NO_SLOT = -1;

  private final Backing backing;
  private final int capacity;

  private final long[][] words;
  private final int[] slotShard;
  private final long[] slotPage;
  private final boolean[] dirty;
  private final boolean[] referenced;
  private int used;
  private int hand;

  // open addressing, linear probing: slot + 1, 0 = empty; load factor <= 1/2
  private final int[] table;
  private final int mask;

  private int shard;
  private int lastSlot = NO_SLOT;

  private long hits;
  private long misses;
  private long writeBacks;

  public PageCache(int capacity, Backing backing) {
    if (capacity < 1 || capacity > MAX_PAGES) {
      throw new IllegalArgumentException(
          "the page cache holds 1 to " + MAX_PAGES + " pages of 4 KiB; got " + capacity);
    }
    this.capacity = capacity;
    this.backing = backing;
    this.words = new long[capacity][];
    this.slotShard = new int[capacity];
    this.slotPage = new long[capacity];
    this.dirty = new boolean[capacity];
    this.referenced = new boolean[capacity];
    int tableSize = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) << 1;
    this.table = new int[tableSize];
    this.mask = tableSize - 1;
  }

  /** The shard whose filter calls {@link #page} next. */
  public void selectShard(int shard) {
    this.shard = shard;
  }

  @Override
  public long[] page(long pageId) {
    int s = lastSlot;
    if (s == NO_SLOT || slotShard[s] != shard || slotPage[s] != pageId) {
      s = find(shard, pageId);
      if (s == NO_SLOT) {
        s = load(shard, pageId);
      } else {
        hits++;
      }
      lastSlot = s;
    } else {
      hits++;
    }
    referenced[s] = true;
    return words[s];
  }

  @Override
  public void markDirty(long pageId) {
    int s = lastSlot;
    if (s == NO_SLOT || slotShard[s] != shard || slotPage[s] != pageId) {
      s = find(shard, pageId);
      if (s == NO_SLOT) {
        throw new IllegalStateException(
            "markDirty("
                + pageId
                + ") of shard "
                + shard
                + ": page not fetched with page() before");
      }
    }
    dirty[s] = true;
  }

  /** Writes every dirty page through the backing; the pages stay cached, clean. */
  public void flush() {
    for (int s = 0; s < used; s++) {
      if (dirty[s]) {
        writeBack(s);
      }
    }
  }

  /** Writes the dirty pages of the shards {@code which} accepts; they stay cached, clean. */
  public void flush(IntPredicate which) {
    for (int s = 0; s < used; s++) {
      if (dirty[s] && which.test(slotShard[s])) {
        writeBack(s);
      }
    }
  }

  /** Whether any cached page is modified and not yet written back. */
  @VisibleForTesting
  boolean hasDirty() {
    for (int s = 0; s < used; s++) {
      if (dirty[s]) {
        return true;
      }
    }
    return false;
  }

  /** Drops every page without writing; for close after a failure. */
  public void clear() {
    Arrays.fill(table, 0);
    Arrays.fill(words, null);
    Arrays.fill(dirty, false);
    used = 0;
    hand = 0;
    lastSlot = NO_SLOT;
  }

  public int capacity() {
    return capacity;
  }

  /** Pages currently cached. */
  public int size() {
    return used;
  }

  public long hits() {
    return hits;
  }

  public long misses() {
    return misses;
  }

  /** Dirty pages written to the backing, by eviction or flush. */
  public long writeBacks() {
    return writeBacks;
  }

  private int load(int shard, long pageId) {
    misses++;
    int s = victim();
    long[] w = words[s];
    boolean found;
    try {
      found = backing.read(shard, pageId, w);
    } catch (Exception e) {
      throw new IllegalStateException(
          "reading page " + pageId + " of shard " + shard + " from state failed", e);
    }
    if (!found) {
      Arrays.fill(w, 0L);
    }
    slotShard[s] = shard;
    slotPage[s] = pageId;
    dirty[s] = false;
    insert(s);
    return s;
  }

  /** A free slot, or the CLOCK victim written back (if dirty) and unlinked from the table. */
  private int victim() {
    if (used < capacity) {
      int s = used++;
      words[s] = new long[PAGE_WORDS];
      return s;
    }
    while (referenced[hand]) {
      referenced[hand] = false;
      hand = hand + 1 == capacity ? 0 : hand + 1;
    }
    int s = hand;
    hand = hand + 1 == capacity ? 0 : hand + 1;
    if (dirty[s]) {
      writeBack(s);
    }
    remove(s);
    if (lastSlot == s) {
      lastSlot = NO_SLOT;
    }
    return s;
  }

  private void writeBack(int s) {
    try {
      backing.write(slotShard[s], slotPage[s], words[s]);
    } catch (Exception e) {
      throw new IllegalStateException(
          "writing page " + slotPage[s] + " of shard " + slotShard[s] + " to state failed", e);
    }
    dirty[s] = false;
    writeBacks++;
  }

  private int find(int shard, long pageId) {
    for (int i = bucket(shard, pageId); ; i = (i + 1) & mask) {
      int e = table[i];
      if (e == 0) {
        return NO_SLOT;
      }
      int s = e - 1;
      if (slotPage[s] == pageId && slotShard[s] == shard) {
        return s;
      }
    }
  }

  private void insert(int s) {
    int i = bucket(slotShard[s], slotPage[s]);
    while (table[i] != 0) {
      i = (i + 1) & mask;
    }
    table[i] = s + 1;
  }

  /**
   * Unlinks slot {@code s}, shifting later entries of its probe run back (Knuth 6.4, Algorithm R).
   */
  private void remove(int s) {
    int i = bucket(slotShard[s], slotPage[s]);
    while (table[i] != s + 1) {
      i = (i + 1) & mask;
    }
    int j = i;
    while (true) {
      j = (j + 1) & mask;
      int e = table[j];
      if (e == 0) {
        break;
      }
      int home = bucket(slotShard[e - 1], slotPage[e - 1]);
      // entry at j may move to the hole at i unless its home lies cyclically in (i, j]
      boolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (!stays) {
        table[i] = e;
        i = j;
      }
    }
    table[i] = 0;
  }

  private int bucket(int shard, long pageId) {
    // murmur3 fmix64 over page id and shard
    long h = pageId * SplitMix64.GAMMA + shard;
    h ^= h >>> 33;
    h *= 0xFF51AFD7ED558CCDL;
    h ^= h >>> 33;
    h *= 0xC4CEB9FE1A85EC53L;
    h ^= h >>> 33;
    return (int) h & mask;
  }
}
