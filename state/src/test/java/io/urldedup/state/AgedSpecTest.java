package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.state.plan.FilterPlan;
import java.io.IOException;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** The aged kind's spec validation, header persistence, restore checks and plan. */
class AgedSpecTest {

  static String message(Runnable r) {
    return assertThrows(InvalidSpecException.class, r::run).template();
  }

  @Test
  void validationNamesTheParameter() {
    String both = message(() -> new AgedSpec(0.01, 100, 1000, 0, 1));
    assertTrue(both.contains("{windowMillis}") && both.contains("{windowUrls}"), both);
    String none = message(() -> new AgedSpec(0.01, 0, 0, 0, 0));
    assertTrue(none.contains("exactly one of {windowMillis}"), none);
    assertTrue(message(() -> FilterSpec.agedTime(0.01, 60_000, 0, 0)).contains("{rate}"));
    assertTrue(message(() -> FilterSpec.agedCount(0.01, 1000, 64)).contains("{generations}"));
    assertTrue(message(() -> FilterSpec.agedCount(0.7, 1000, 0)).contains("{fpr}"));
    assertTrue(message(() -> new AgedSpec(0.01, 100, 0, 0, 5)).contains("{rate} applies to"));
  }

  /**
   * l generations of ceil(window / l) cover the window; a time window's g is rate x generation
   * length.
   */
  @Test
  void geometryCoversTheWindow() {
    AgedSpec count = FilterSpec.agedCount(0.01, 1_000_001, 10);
    assertEquals(10, count.geometry().l());
    assertEquals(100_001, count.geometry().generationSize());
    AgedSpec time = FilterSpec.agedTime(0.01, 60_000, 0, 50);
    int l = time.geometry().l();
    assertTrue(l * time.generationMillis() >= 60_000 && (l - 1) * time.generationMillis() < 60_000);
    assertEquals(
        (long) Math.ceil(50 * time.generationMillis() / 1000.0), time.geometry().generationSize());
  }

  static FilterFormat.Loaded used(FilterSpec spec) {
    FilterHeader h = spec.newHeader(new UrlHasher(GoldenFilters.SEED).seedFingerprint());
    HeapPageStore pages = new HeapPageStore();
    AgedBloomFilter f = (AgedBloomFilter) Filters.open(h, pages);
    f.advanceToEpoch(100);
    for (int i = 0; i < 3_000; i++) {
      f.testAndAdd(Keys.h1(1, i), Keys.h2(1, i));
      if (i % 700 == 0) {
        f.advanceToEpoch(100 + i / 700 + 1);
      }
    }
    return new FilterFormat.Loaded(h, pages);
  }

  /**
   * Header (with its clock) and pages survive FilterFormat and the Flink serializer; the restored
   * filter decides the same.
   */
  @Test
  void headerAndPagesRoundTrip() throws IOException {
    FilterFormat.Loaded original = used(FilterSpec.agedTime(0.01, 60_000, 0, 500));
    byte[] bytes = FilterFormat.toBytes(original.header(), original.pages());
    FilterFormat.Loaded back = FilterFormat.fromBytes(bytes);
    assertEquals(original.header(), back.header());
    assertEquals(original.header().agedClock(), back.header().agedClock());
    assertArrayEquals(bytes, FilterFormat.toBytes(back.header(), back.pages()));

    DataOutputSerializer out = new DataOutputSerializer(256);
    FilterHeaderSerializer.INSTANCE.serialize(original.header(), out);
    FilterHeader viaFlink =
        FilterHeaderSerializer.INSTANCE.deserialize(
            new DataInputDeserializer(out.getCopyOfBuffer()));
    assertEquals(original.header(), viaFlink);
    assertEquals(original.header(), original.header().copy());

    DedupFilter a = original.open();
    DedupFilter b = back.open();
    for (int i = 0; i < 6_000; i++) {
      assertEquals(
          a.testAndAdd(Keys.h1(1, i), Keys.h2(1, i)),
          b.testAndAdd(Keys.h1(1, i), Keys.h2(1, i)),
          "key " + i);
    }
    assertEquals(a.header(), b.header());
  }

  @Test
  void restoreChecksNameTheParameter() {
    FilterSpec spec = FilterSpec.agedTime(0.01, 60_000, 0, 500);
    FilterHeader h = spec.newHeader(7);
    h.checkCompatible(spec, UrlMapping.seedOnly(7), false);
    String window =
        assertThrows(
                IncompatibleStateException.class,
                () ->
                    h.checkCompatible(
                        FilterSpec.agedTime(0.01, 120_000, 0, 500), UrlMapping.seedOnly(7), false))
            .getMessage();
    assertTrue(window.contains("windowMillis (ms) 60000 in state vs 120000 now"), window);
    String gens =
        assertThrows(
                IncompatibleStateException.class,
                () ->
                    h.checkCompatible(
                        FilterSpec.agedTime(0.01, 60_000, 20, 500), UrlMapping.seedOnly(7), false))
            .getMessage();
    assertTrue(gens.contains("generations 0 in state vs 20 now"), gens);
    String rate =
        assertThrows(
                IncompatibleStateException.class,
                () ->
                    h.checkCompatible(
                        FilterSpec.agedTime(0.01, 60_000, 0, 600), UrlMapping.seedOnly(7), false))
            .getMessage();
    assertTrue(rate.contains("rate (per shard) 500.0 in state vs 600.0 now"), rate);
    String kind =
        assertThrows(
                IncompatibleStateException.class,
                () ->
                    h.checkCompatible(
                        FilterSpec.stable(0.01, 1 << 20, 2), UrlMapping.seedOnly(7), false))
            .getMessage();
    assertTrue(kind.contains("restore with kind aged"), kind);
  }

  @Test
  void planShowsSlicesMemoryFprWindowSlackAndRate() {
    String t = FilterPlan.render(FilterSpec.agedTime(0.01, 7L * 86_400_000, 0, 1000.0 / 128), 128);
    System.out.println(t);
    for (String part :
        new String[] {
          "k = ",
          "l = ",
          "per shard:",
          "total:",
          "false-positive rate",
          "guaranteed window",
          "7d",
          "slack: 10%",
          "--rate 1000",
          "advances early"
        }) {
      assertTrue(t.contains(part), part + " in\n" + t);
    }
    String c = FilterPlan.render(FilterSpec.agedCount(0.001, 100_000, 20), 16);
    System.out.println(c);
    assertTrue(c.contains("100,000 new URLs per shard (1,600,000 in total)"), c);
    assertTrue(c.contains("l = 20"), c);
  }
}
