package io.urldedup.state.plan;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.state.FilterSpec;
import org.junit.jupiter.api.Test;

class FilterPlanTest {

  @Test
  void stablePlan() {
    String s = FilterPlan.render(FilterSpec.stable(0.01, 8L << 20, 3), 128);
    System.out.println(s);
    assertTrue(s.contains("K = "), s);
    assertTrue(s.contains("100,000,000"), s);
    assertTrue(s.contains("total:"), s);
  }

  @Test
  void scalablePlan() {
    String s = FilterPlan.render(FilterSpec.scalable(0.001, 100_000, 2, 0.5, 64L << 20), 128);
    System.out.println(s);
    assertTrue(s.contains("1,000,000,000"), s);
    assertTrue(s.contains("cap reached"), s);
  }
}
