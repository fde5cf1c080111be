package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FilterSpecTest {

  /** The template of the refusal: parameters as {@code {name}} placeholders. */
  static String message(Runnable r) {
    return assertThrows(InvalidSpecException.class, r::run).template();
  }

  /**
   * Each range check names its parameter (the job renders it as the flag, JobConfigTest); kinds
   * cannot carry another kind's parameters: they are other records.
   */
  @Test
  void validationNamesTheParameterAndTheAcceptedValues() {
    assertTrue(message(() -> FilterSpec.stable(0.7, 1 << 20, 3)).contains("{fpr}"));
    assertTrue(message(() -> FilterSpec.stable(Double.NaN, 1 << 20, 3)).contains("{fpr}"));
    assertTrue(message(() -> FilterSpec.stable(0.01, 100, 3)).contains("{memoryBytes}"));
    String cellBits = message(() -> FilterSpec.stable(0.01, 1 << 20, 5));
    assertTrue(cellBits.contains("{cellBits}") && cellBits.contains("1, 2, 3 or 4"), cellBits);
    assertTrue(message(() -> FilterSpec.scalable(0.01, 0, 2, 0.5, 1 << 20)).contains("{capacity}"));
    assertTrue(message(() -> FilterSpec.scalable(0.01, 10, 1, 0.5, 1 << 20)).contains("{growth}"));
    assertTrue(
        message(() -> FilterSpec.scalable(0.01, 10, 2, 1.0, 1 << 20)).contains("{tightening}"));
    assertTrue(
        message(() -> FilterSpec.scalable(0.01, 10, 2, 0.0, 1 << 20)).contains("{tightening}"));
    assertTrue(
        message(() -> FilterSpec.scalable(0.01, 10, 2, 0.5, 10)).contains("{maxMemoryBytes}"));
    assertTrue(
        message(() -> FilterSpec.scalable(0.01, 100_000_000, 2, 0.5, 1 << 20))
            .contains("{maxMemoryBytes}"));
    FilterSpec.scalable(0.01, 1000, 4, 0.9, 1 << 20);
    FilterSpec.stable(1e-6, 1L << 30, 4);
  }

  /** The library says its own names; a front end says its own (here, made-up flags). */
  @Test
  void messagesRenderWithTheCallersNames() {
    InvalidSpecException e =
        assertThrows(InvalidSpecException.class, () -> FilterSpec.stable(0.01, 100, 3));
    assertTrue(e.getMessage().startsWith("memoryBytes (per shard) must be"), e.getMessage());
    String flags = e.message(Map.of(Parameter.MEMORY_BYTES, "--memory"));
    assertTrue(flags.startsWith("--memory (per shard) must be"), flags);
    assertEquals(
        "{unknown} stays; --fpr and --fpr",
        Parameter.render("{unknown} stays; {fpr} and {fpr}", Map.of(Parameter.FPR, "--fpr")));
    assertEquals("fpr", Parameter.render("{fpr}", Map.of()));
  }

  @Test
  void incompatibleStateNamesWhatDiffersAndWhatToDo() {
    FilterSpec spec = FilterSpec.stable(0.01, 1 << 20, 3);
    FilterHeader h = spec.newHeader(0xa1b2L);
    h.checkCompatible(spec, UrlMapping.seedOnly(0xa1b2L), false);
    String seed =
        assertThrows(
                IncompatibleStateException.class,
                () -> h.checkCompatible(spec, UrlMapping.seedOnly(0xc3d4L), false))
            .getMessage();
    assertTrue(
        seed.contains("hashSeed")
            && seed.contains("a1b2")
            && seed.contains("c3d4")
            && seed.contains("start from empty state"),
        seed);
    String memory =
        assertThrows(
                IncompatibleStateException.class,
                () ->
                    h.checkCompatible(
                        FilterSpec.stable(0.01, 1 << 21, 3), UrlMapping.seedOnly(0xa1b2L), false))
            .getMessage();
    assertTrue(memory.contains("memoryBytes 1048576 in state vs 2097152 now"), memory);
    String kind =
        assertThrows(
                IncompatibleStateException.class,
                () ->
                    h.checkCompatible(
                        FilterSpec.scalable(0.01, 1000, 2, 0.5, 1 << 20),
                        UrlMapping.seedOnly(0xa1b2L),
                        false))
            .getMessage();
    assertTrue(kind.contains("kind stable"), kind);
    assertTrue(
        assertThrows(
                IllegalStateException.class,
                () -> h.checkCompatible(spec, UrlMapping.seedOnly(1), false))
            instanceof IncompatibleStateException);
  }

  @Test
  void headerReportsItsSpec() {
    FilterSpec s = FilterSpec.scalable(0.01, 1000, 2, 0.5, 1 << 20);
    assertEquals(s, s.newHeader(1).spec());
    FilterSpec t = FilterSpec.stable(0.01, 1 << 20, 2);
    assertEquals(t, t.newHeader(1).spec());
  }
}
