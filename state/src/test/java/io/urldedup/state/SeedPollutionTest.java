package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the secret hash seed does, shown as the pollution attack of Gerbet, Kaafar, Mehta (2015) on
 * a sharded blocked filter (the dedup operator's layout: shard = {@link UrlHasher#shard}, block =
 * {@link BlockedBloomFilter#blockIndex}; a scalable filter's first slice is such a filter).
 *
 * <p>An attacker who knows the seed brute-forces a counter suffix until a URL lands in the chosen
 * shard and block (one hit per S * B tries). With the seed known, every crafted URL fills the
 * victim block and its false-positive rate goes to nearly 1; a victim URL can be made a false
 * positive offline. With a different (secret) seed the same URLs are ordinary random keys: they
 * spread over all blocks and the probes crafted for the victim block see the filter's normal rate.
 *
 * <p>Geometry: S = 8 shards of a filter sized for n = 10,000 URLs at eps = 1% each, filled to
 * capacity with background URLs before the attack. Fixed seeds; the bounds are stated per test.
 */
class SeedPollutionTest {

  static final long KNOWN_SEED = 0x243f6a8885a308d3L;
  static final long SECRET_SEED = 0x13198a2e03707344L;
  static final int SHARDS = 8;
  static final int PER_SHARD = 10_000;
  static final double EPS = 0.01;
  static final int ATTACK_URLS = 256;
  static final int PROBES = 4_000;

  final long blocks = FilterMath.blockedBlocks(PER_SHARD, EPS);
  final int k = FilterMath.blockedSizing(EPS).k();

  /** One filter per shard, hashing with {@code seed}. */
  final class Sharded {
    final UrlHasher hasher;
    final HeapPageStore[] stores = new HeapPageStore[SHARDS];
    final BlockedBloomFilter[] filters = new BlockedBloomFilter[SHARDS];
    final long[] h = new long[2];

    Sharded(long seed) {
      hasher = new UrlHasher(seed);
      for (int s = 0; s < SHARDS; s++) {
        stores[s] = new HeapPageStore();
        filters[s] = new BlockedBloomFilter(stores[s], 0, blocks, k);
      }
      for (int i = 0; i < SHARDS * PER_SHARD; i++) {
        add("https://site" + (i % 997) + ".example/page/" + i);
      }
    }

    void hash(String url) {
      byte[] b = url.getBytes(StandardCharsets.UTF_8);
      hasher.hash(b, 0, b.length, h);
    }

    int shard(String url) {
      hash(url);
      return UrlHasher.shard(h[0], h[1], SHARDS);
    }

    /** Global block number shard * blocks + block. */
    long block(String url) {
      hash(url);
      return UrlHasher.shard(h[0], h[1], SHARDS) * blocks
          + BlockedBloomFilter.blockIndex(h[0], blocks);
    }

    void add(String url) {
      int s = shard(url);
      filters[s].add(h[0], h[1]);
    }

    boolean mightContain(String url) {
      int s = shard(url);
      return filters[s].mightContain(h[0], h[1]);
    }

    /** Set bits of a global block. */
    int bitsSet(long globalBlock) {
      int s = (int) (globalBlock / blocks);
      long b = globalBlock % blocks;
      long[] page = stores[s].page(BlockedBloomFilter.pageOfBlock(b));
      int base = BlockedBloomFilter.wordOfBlock(b);
      int bits = 0;
      for (int w = 0; w < BlockedBloomFilter.BLOCK_WORDS; w++) {
        bits += Long.bitCount(page[base + w]);
      }
      return bits;
    }
  }

  /**
   * The attacker's brute force: the next {@code n} URLs {@code prefix + counter} that land in
   * {@code target}.
   */
  static String[] craft(Sharded known, String prefix, long target, int n) {
    String[] out = new String[n];
    long counter = 0;
    for (int found = 0; found < n; counter++) {
      String url = prefix + counter;
      if (known.block(url) == target) {
        out[found++] = url;
      }
    }
    return out;
  }

  /**
   * Pollution of one block. Known seed: the 256 crafted URLs all land in the victim block, and the
   * FPR of probes into that block (4,000 more crafted URLs, never inserted) matches the block's
   * fill: each probe tests k positions of the 512-bit block, so P(FP) = (set/512)^k; 4,000
   * Bernoulli trials give sd = sqrt(p (1 - p) / 4000), allowed 4 sd. Unknown seed: the same URLs
   * and probes hashed with another seed. Bins: 256 URLs thrown into S * B blocks; the union bound
   * P(max >= t) <= S B C(256, t) (S B)^-t gives the smallest t with a chance below 1e-4, and the
   * crafted probes' FPR equals that of 4,000 fresh random URLs within 4 sd of the difference of two
   * binomial proportions, sqrt(2 p (1 - p) / 4000).
   */
  @Test
  void knownSeedPollutesOneBlockUnknownSeedSpreads() {
    Sharded known = new Sharded(KNOWN_SEED);
    long victim = known.block("https://victim.example/");
    String[] attack = craft(known, "https://attacker.example/a?n=", victim, ATTACK_URLS);
    String[] probes = craft(known, "https://attacker.example/p?n=", victim, PROBES);
    int before = known.bitsSet(victim);
    for (String u : attack) {
      known.add(u);
    }
    int after = known.bitsSet(victim);
    double knownFpr = fpr(known, probes);
    double model = Math.pow(after / 512.0, k);
    double sd = Math.sqrt(model * (1 - model) / PROBES);
    System.out.printf(
        "seed known: victim block bits %d -> %d of 512, probe FPR %.4f, model (bits/512)^k %.4f"
            + " (k=%d, sd %.4f)%n",
        before, after, knownFpr, model, k, sd);
    assertEquals(model, knownFpr, 4 * sd, "probe FPR of the polluted block vs (bits/512)^k");
    assertTrue(knownFpr > 50 * EPS, "pollution did not raise the block's FPR: " + knownFpr);

    Sharded secret = new Sharded(SECRET_SEED);
    long bins = SHARDS * blocks;
    Map<Long, Integer> load = new HashMap<>();
    for (String u : attack) {
      load.merge(secret.block(u), 1, Integer::sum);
      secret.add(u);
    }
    int maxLoad = load.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int t = 1;
    while (unionBound(bins, ATTACK_URLS, t) > 1e-4) {
      t++;
    }
    double crafted = fpr(secret, probes);
    String[] fresh = new String[PROBES];
    for (int i = 0; i < PROBES; i++) {
      fresh[i] = "https://fresh.example/q/" + i;
    }
    double random = fpr(secret, fresh);
    double p = (crafted + random) / 2;
    double sdDiff = Math.sqrt(2 * p * (1 - p) / PROBES);
    System.out.printf(
        "seed secret: attack URLs in %d blocks (max %d per block, bound < %d), crafted probe FPR %.4f,"
            + " random URL FPR %.4f (sd of difference %.4f)%n",
        load.size(), maxLoad, t, crafted, random, sdDiff);
    assertTrue(
        maxLoad < t, "crafted URLs cluster under an unknown seed: " + maxLoad + " in one block");
    assertEquals(
        random, crafted, 4 * sdDiff, "crafted probes vs random URLs under the secret seed");
    assertTrue(crafted < 3 * EPS, "crafted probes' FPR under the secret seed: " + crafted);
  }

  /**
   * Targeting victim URLs offline. Known seed: for each of 50 victim URLs the attacker inserts URLs
   * crafted into its shard and block until it tests positive, a page that will never be crawled (a
   * false positive by construction: all 50). Unknown seed: the same crafted URLs are random
   * insertions; a victim is then a false positive with the blocked model's probability at the
   * filter's load, so the count is Binomial(50, p); allowed mean + 4 sd + 1.
   */
  @Test
  void knownSeedTargetsVictimUrlsUnknownSeedDoesNot() {
    int victims = 50;
    Sharded known = new Sharded(KNOWN_SEED);
    List<String> crafted = new ArrayList<>();
    int hit = 0;
    for (int v = 0; v < victims; v++) {
      String victim = "https://victim.example/new-page/" + v;
      long block = known.block(victim);
      long counter = 0;
      while (!known.mightContain(victim)) {
        String u =
            craft(known, "https://attacker.example/v" + v + "?c=" + (counter++) + "&n=", block, 1)[
                0];
        known.add(u);
        crafted.add(u);
      }
      hit++;
    }
    assertEquals(victims, hit);

    Sharded secret = new Sharded(SECRET_SEED);
    for (String u : crafted) {
      secret.add(u);
    }
    int fp = 0;
    for (int v = 0; v < victims; v++) {
      if (secret.mightContain("https://victim.example/new-page/" + v)) {
        fp++;
      }
    }
    double load = (SHARDS * (double) PER_SHARD + crafted.size()) / (SHARDS * blocks);
    double p = FilterMath.blockedFprAtLoad(load, k);
    double bound = victims * p + 4 * Math.sqrt(victims * p * (1 - p)) + 1;
    System.out.printf(
        "victims: %d crafted URLs made all %d victims false positives with the seed known;"
            + " with the seed secret %d of %d (model p %.4f, bound %.1f)%n",
        crafted.size(), victims, fp, victims, p, bound);
    assertTrue(fp <= bound, "victims hit without the seed: " + fp + " > " + bound);
  }

  static double fpr(Sharded f, String[] probes) {
    int n = 0;
    for (String u : probes) {
      if (f.mightContain(u)) {
        n++;
      }
    }
    return n / (double) probes.length;
  }

  /** bins * C(m, t) * bins^-t: a bound on P(some bin gets >= t of m balls). */
  static double unionBound(long bins, int m, int t) {
    double logC = 0;
    for (int i = 0; i < t; i++) {
      logC += Math.log(m - i) - Math.log(i + 1);
    }
    return Math.exp(Math.log(bins) + logC - t * Math.log(bins));
  }
}
