package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class MaterializationRoundTest {

  private static final List<Integer> TEN = List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);

  /** 10 s interval: the round's 10 shards are spread over 5 s, one due at once, all by 5 s. */
  @Test
  void shardsAreDueLinearlyOverHalfTheInterval() {
    var r = new MaterializationRound<>(TEN, 1_000, 10_000_000_000L);
    assertEquals(1, r.due(1_000));
    assertEquals(1, r.due(1_000 + 499_999_999));
    assertEquals(2, r.due(1_000 + 500_000_000));
    assertEquals(6, r.due(1_000 + 2_500_000_000L));
    assertEquals(10, r.due(1_000 + 4_600_000_000L));
    assertEquals(10, r.due(1_000 + 5_000_000_000L));
    assertEquals(10, r.due(1_000 + 60_000_000_000L));
  }

  @Test
  void withoutAMeasuredIntervalEveryShardIsDue() {
    assertEquals(10, new MaterializationRound<>(TEN, 0, 0).due(0));
  }

  @Test
  void shardsComeInOrderUntilFinished() {
    var r = new MaterializationRound<>(TEN, 0, 0);
    for (int i = 0; i < 10; i++) {
      assertFalse(r.finished());
      assertEquals(i, r.next());
    }
    assertTrue(r.finished());
    assertTrue(new MaterializationRound<>(List.of(), 0, 1).finished());
  }
}
