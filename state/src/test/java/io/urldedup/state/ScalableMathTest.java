package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScalableMathTest {

  @Test
  void scalableSlicesAndMemory() {
    ScalableSpec spec = FilterSpec.scalable(0.01, 1000, 2, 0.5, 1L << 30);
    assertEquals(0.005, ScalableMath.sliceFpr(0.01, 0.5, 0), 1e-15);
    assertEquals(0.00125, ScalableMath.sliceFpr(0.01, 0.5, 2), 1e-15);
    assertEquals(4000, ScalableMath.sliceCapacity(1000, 2, 2));
    assertEquals(1, ScalableMath.usage(spec, 1000).slices());
    assertEquals(2, ScalableMath.usage(spec, 1001).slices());
    assertEquals(2, ScalableMath.usage(spec, 3000).slices());
    assertEquals(3, ScalableMath.usage(spec, 3001).slices());
    ScalableMath.Usage u = ScalableMath.usage(spec, 1_000_000);
    long bytes = 0;
    for (int i = 0; i < u.slices(); i++) {
      bytes += ScalableMath.sliceBytes(0.01, 1000, 2, 0.5, i);
    }
    assertEquals(bytes, u.bytes());
    assertTrue(u.fprBound() < 0.01 && !u.saturated());
    ScalableSpec capped = FilterSpec.scalable(0.01, 1000, 2, 0.5, 64 << 10);
    ScalableMath.Usage c = ScalableMath.usage(capped, 10_000_000);
    assertTrue(c.saturated() && c.bytes() <= 64 << 10 && c.fprBound() > 0.01, "" + c);
  }
}
