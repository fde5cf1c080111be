package io.urldedup.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The soak's latency percentiles: nearest rank over 1 ms buckets, clamped to [0, MAX_MS]. */
class SoakDriverTest {

  @Test
  void percentilesAreNearestRankOverMilliseconds() {
    SoakDriver.Histogram h = new SoakDriver.Histogram();
    assertEquals(-1, h.quantile(0.99), "empty");
    for (int ms = 1; ms <= 1000; ms++) {
      h.add(ms);
    }
    assertEquals(1000, h.total());
    assertEquals(500, h.quantile(0.50));
    assertEquals(990, h.quantile(0.99));
    assertEquals(999, h.quantile(0.999));
    assertEquals(1000, h.quantile(1.0));
    assertEquals(1000, h.max());
  }

  @Test
  void outOfRangeLatenciesAreClampedNotLost() {
    SoakDriver.Histogram h = new SoakDriver.Histogram();
    h.add(-5); // a record stamped in the future by a skewed clock
    h.add(SoakDriver.MAX_MS + 1_000_000L);
    assertEquals(2, h.total());
    assertEquals(0, h.quantile(0.5));
    assertEquals(SoakDriver.MAX_MS, h.quantile(1.0));
  }
}
