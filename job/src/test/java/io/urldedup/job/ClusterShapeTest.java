package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ClusterShape}: the figures of docs/capacity.md, recomputed by hand here. */
class ClusterShapeTest {

  @Test
  void slotsFollowTheRateOrTheFilterWhicheverNeedsMore() {
    // 10^6 records/s at 250k per slot: 4 slots; a 1 GB filter fits one slot's cache
    ClusterShape rate = ClusterShape.of(1e6, 1_000_000_000L, 10, 10, 128);
    assertEquals(4, rate.slots());
    assertEquals(1, rate.taskManagers());
    // 100 GiB of filter at 8 GiB per slot: 13 slots, 4 TaskManagers of 4 slots
    ClusterShape memory = ClusterShape.of(1e4, 100L << 30, 10, 10, 128);
    assertEquals(13, memory.slots());
    assertEquals(4, memory.taskManagers());
    // capped at the max parallelism, with the warning
    ClusterShape capped = ClusterShape.of(1e8, 1L << 30, 10, 10, 128);
    assertEquals(128, capped.slots());
    assertTrue(capped.render().contains("raise --shards"), capped.render());
  }

  /** plan takes --rate with any filter and prints the shape; run still refuses it for scalable. */
  @Test
  void planTakesRateWithAnyFilter() {
    JobConfig c =
        JobConfig.parseForPlan(
            new String[] {"--filter", "scalable", "--capacity", "100000000", "--rate", "100000"},
            Map.of());
    String plan = PlanCommand.text(c);
    assertTrue(plan.contains("Cluster shape at --rate 100,000 records/s"), plan);
    assertTrue(PlanCommand.json(c).contains("\"cluster\""));
    ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigException.class,
            () ->
                JobConfig.parse(
                    new String[] {
                      "--input", "x", "--output", "-", "--filter", "scalable", "--rate", "5"
                    },
                    Map.of()));
    assertTrue(e.getMessage().contains("--rate applies to --filter aged only"), e.getMessage());
  }

  @Test
  void checkpointBytesAreTheLogPlusOneNthOfTheFilter() {
    // 10^5 new URLs/s x 10 s x 16 B = 16 MB of log; 1.7 GB / 10 = 170 MB
    ClusterShape s = ClusterShape.of(1e5, 1_700_000_000L, 10, 10, 128);
    assertEquals(16e6 + 170e6, s.checkpointBytesMean(), 1);
    assertEquals(160e6, s.logBytesMax(), 1);
    // restore: (1.7 GB + 160 MB) over 1 TaskManager at 200 MB/s, then 10^7 inserts over 1 slot at
    // 1.5M/s
    assertEquals(1.86e9 / 200e6 + 1e7 / 1.5e6, s.restoreSeconds(), 1e-6);
    // N = 1 writes every page and its compaction at every checkpoint, and logs nothing
    ClusterShape today = ClusterShape.of(1e5, 1_700_000_000L, 1, 10, 128);
    assertEquals(3.4e9, today.checkpointBytesMean(), 1);
    assertEquals(0, today.logBytesMax());
  }
}
