package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.state.plan.FilterPlan;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ByteSizeTest {

  @Test
  void binaryUnitsWithOneDecimal() {
    assertEquals("0 B", ByteSize.format(0));
    assertEquals("1023 B", ByteSize.format(1023));
    assertEquals("-5 B", ByteSize.format(-5));
    assertEquals("1.0 KiB", ByteSize.format(1024));
    assertEquals("1.5 KiB", ByteSize.format(1536));
    assertEquals("1024.0 KiB", ByteSize.format((1L << 20) - 1));
    assertEquals("1.0 MiB", ByteSize.format(1L << 20));
    assertEquals("4.0 GiB", ByteSize.format(4L << 30));
    assertEquals("1.6 TiB", ByteSize.format((long) (1.6 * (1L << 40))));
    assertEquals("8388608.0 TiB", ByteSize.format(Long.MAX_VALUE));
  }

  /** plan's filter section and its totals print sizes alike (they once mixed "%.2f" and "%.1f"). */
  @Test
  void planPrintsEverySizeWithOneDecimal() {
    Pattern twoDecimals = Pattern.compile("\\d\\.\\d\\d (KiB|MiB|GiB|TiB)");
    String stable = FilterPlan.render(FilterSpec.stable(0.01, 8L << 20, 3), 128);
    assertTrue(stable.contains("8.0 MiB") && stable.contains("1.0 GiB"), stable);
    assertFalse(twoDecimals.matcher(stable).find(), stable);
    String scalable =
        FilterPlan.render(FilterSpec.scalable(0.001, 100_000, 2, 0.5, 64L << 20), 128);
    assertTrue(scalable.contains("64.0 MiB per shard, 8.0 GiB total"), scalable);
    assertFalse(twoDecimals.matcher(scalable).find(), scalable);
  }
}
