package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.assertSameDecisions;
import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.state.AgedBloomFilter;
import io.urldedup.state.AgedClock;
import io.urldedup.state.AgedMath;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.UrlMapping;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Golden savepoints of the dedup operator holding aged filters (src/test/resources/dedup/aged-*),
 * restored with the current code: a count window and an event-time window, each written by both
 * backends and restored into both. Like {@link StateCompatibilityTest} for the other kinds.
 *
 * <p>The {@code -v3} files hold header layout 3 (filter layout 1: a row is one 64-bit word per
 * slice, pages stamped with their generation), written by the build before the row-stamped layout
 * and before the sizing kept a Monte Carlo margin, so today's sizing chooses another geometry for
 * the same flags. The {@code -v4} files hold header layout 4 (filter layout 2, rows of 4 cache
 * lines). A restored shard must go on with the geometry and the generation length it was written
 * with (asserted as literals here); the decisions must equal those of a reference filter of that
 * literal geometry, fed the same records with the same time steps. A URL of the window stays a
 * duplicate across the restore (hard), and comes back after the window's slack.
 *
 * <p>Regenerate only for a new header layout (new files next to these): remove {@code @Disabled}
 * from {@link #writeGoldenSnapshots}, run {@code mvn -pl operators -am test
 * -Dtest='AgedStateCompatibilityTest#writeGoldenSnapshots'
 * -Dsurefire.failIfNoSpecifiedTests=false}, put {@code @Disabled} back, commit the files.
 */
class AgedStateCompatibilityTest {

  static final int SHARDS = 2;

  /** The mapping the files were written under (pinned: today's canonicalization may move on). */
  static final String SETTINGS =
      "canonicalization-version=2\nparser=1\n--strip-params=none\n--strip-www=false\n";

  static final UrlMapping MAPPING =
      new UrlMapping(
          DedupOperatorTestKit.HASHER.seedFingerprint(),
          SHARDS,
          DecodeConfig.fingerprintOf(SETTINGS),
          SETTINGS);

  /** 200 new URLs per shard, default generations, 1%. */
  static final FilterSpec COUNT = FilterSpec.agedCount(0.01, 200, 0);

  /**
   * 60 s, default generations, 1%, sized for 20 new URLs/s per shard; event time 5 s out of order.
   */
  static final FilterSpec TIME = FilterSpec.agedTime(0.01, 60_000, 0, 20);

  static final GenerationTime EVENT = GenerationTime.eventTime(5_000);
  static final long T0 = 1_700_000_000_000L;
  static final int WRITTEN = 120;

  enum Window {
    COUNT,
    TIME
  }

  @AfterAll
  static void cleanRocks() throws Exception {
    DedupOperatorTestKit.deleteRocksDir();
  }

  static FilterSpec spec(Window w) {
    return w == Window.COUNT ? COUNT : TIME;
  }

  static String file(Window w, Backend writer, int version) {
    return "dedup/aged-"
        + w.name().toLowerCase(Locale.ROOT)
        + "-"
        + writer.name().toLowerCase(Locale.ROOT)
        + "-savepoint-v"
        + version
        + ".bin";
  }

  static DedupOperator operator(Window w) {
    return new DedupOperator(
        DedupSettings.of(spec(w), MAPPING)
            .withCachePages(8)
            .withTime(w == Window.TIME ? EVENT : null));
  }

  /** A record and its event time (count windows ignore it). */
  record Timed(UrlRecord record, long ts) {}

  /** What the golden run fed: 120 URLs over 2 shards, one every 250 ms from T0 (30 s). */
  static List<Timed> written() {
    List<Timed> out = new ArrayList<>();
    List<UrlRecord> rs = urls("aged-golden", 0, WRITTEN, SHARDS);
    for (int i = 0; i < rs.size(); i++) {
      out.add(new Timed(rs.get(i), T0 + 250L * i));
    }
    return out;
  }

  /**
   * After the restore: at 40 s the written URLs again (inside the window: all duplicates); then 12
   * new URLs a second per shard pair up to 110 s (about the planned rate, and 5 count windows);
   * then the written URLs again at 110 s (80 s after the last of them: out of the window).
   */
  static List<Timed> later() {
    List<Timed> out = new ArrayList<>();
    for (Timed t : written()) {
      out.add(new Timed(t.record(), T0 + 40_000));
    }
    for (int sec = 41; sec <= 110; sec++) {
      for (UrlRecord r : urls("aged-later-" + sec, 0, 16, SHARDS)) {
        out.add(new Timed(r, T0 + sec * 1000L));
      }
    }
    for (Timed t : written()) {
      out.add(new Timed(t.record(), T0 + 110_000));
    }
    return out;
  }

  /** Processes the records; the watermark follows every 10th record (5 s behind it). */
  static List<Boolean> feed(
      KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h,
      Window w,
      List<Timed> records)
      throws Exception {
    List<Boolean> decisions = new ArrayList<>();
    for (int i = 0; i < records.size(); i++) {
      Timed t = records.get(i);
      if (w == Window.TIME && i % 10 == 0) {
        h.processWatermark(t.ts() - EVENT.maxOutOfOrdernessMillis());
      }
      h.processElement(
          w == Window.TIME
              ? new StreamRecord<>(t.record(), t.ts())
              : new StreamRecord<>(t.record()));
      boolean emitted = false;
      Object o;
      while ((o = h.getOutput().poll()) != null) {
        emitted |= o instanceof StreamRecord<?>;
      }
      decisions.add(emitted);
    }
    return decisions;
  }

  static final int[] VERSIONS = {3, 4};

  /**
   * The geometry the files of a header layout version hold (literal: written by the sizing of their
   * build).
   */
  static AgedMath.Geometry geometry(Window w, int version) {
    if (version == 3) {
      return w == Window.COUNT
          ? new AgedMath.Geometry(7, 50, 2, 4)
          : new AgedMath.Geometry(7, 50, 8, 24);
    }
    return w == Window.COUNT
        ? AgedMath.Geometry.lineRows(4, 7, 50, 3, 4)
        : AgedMath.Geometry.lineRows(4, 7, 50, 15, 24);
  }

  /** Both versions' time windows: 60 s in l = 50 generations. */
  static final long GENERATION_MILLIS = 1_200;

  /**
   * The filters of the v3 files rebuilt over heap pages from the literal geometry: per shard, the
   * time step of each record's event time (time window) before it, as the operator's shard clock.
   */
  static final class Reference {
    final Window window;
    final int version;
    final Map<Integer, AgedBloomFilter> filters = new HashMap<>();

    Reference(Window window, int version) {
      this.window = window;
      this.version = version;
    }

    List<Boolean> feed(List<Timed> records) {
      List<Boolean> out = new ArrayList<>();
      for (Timed t : records) {
        AgedBloomFilter f =
            filters.computeIfAbsent(
                t.record().shard,
                s ->
                    AgedBloomFilter.open(
                        geometry(window, version),
                        new AgedClock(),
                        window == Window.TIME,
                        new HeapPageStore()));
        if (window == Window.TIME) {
          f.advanceToEpoch(
              Math.floorDiv(t.ts() - EVENT.maxOutOfOrdernessMillis(), GENERATION_MILLIS));
        }
        out.add(!f.testAndAdd(t.record().h1, t.record().h2));
      }
      return out;
    }
  }

  static OperatorSubtaskState golden(Window w, Backend writer, int version) throws Exception {
    String name = file(w, writer, version);
    URL resource = AgedStateCompatibilityTest.class.getClassLoader().getResource(name);
    assertTrue(resource != null, "missing " + name);
    assertTrue(
        Files.size(Paths.get(resource.toURI())) < 64 * 1024,
        name + ": golden file must stay small");
    return OperatorSnapshotUtil.readStateHandle(Paths.get(resource.toURI()).toString());
  }

  /**
   * Each file restored into each backend: the headers hold the literal geometry, generation length
   * and clocks of the file; then the decisions equal the reference's, every written URL is a
   * duplicate 10 s after the restore, and nearly all come back after the window.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void goldenSnapshotsRestoreWithTheirOwnGeometryAndTheSameDecisions(Backend backend)
      throws Exception {
    for (int version : VERSIONS) {
      for (Window w : Window.values()) {
        for (Backend writer : Backend.values()) {
          restoreAndCheck(w, writer, version, backend);
        }
      }
    }
  }

  private void restoreAndCheck(Window w, Backend writer, int version, Backend backend)
      throws Exception {
    String what = w + " golden v" + version + " written by " + writer + ", restored on " + backend;
    var h = DedupOperatorTestKit.open(operator(w), backend, golden(w, writer, version));
    DedupOperator op = (DedupOperator) h.getOperator();
    Map<Integer, FilterHeader> stored = StoredState.headers(op);
    assertEquals(SHARDS, stored.size(), what);
    for (FilterHeader header : stored.values()) {
      assertEquals(
          geometry(w, version), header.agedGeometry(), what + ": the geometry it was written with");
      assertEquals(version, header.formatVersion(), what);
      assertEquals(w == Window.TIME ? GENERATION_MILLIS : 0, header.generationMillis(), what);
    }
    if (version == 3) {
      assertEquals(
          w == Window.COUNT ? List.of(12L, 16L) : List.of(25L, 25L),
          List.of(stored.get(0).agedClock().generation(), stored.get(1).agedClock().generation()),
          what + ": clocks");
    }
    if (w == Window.TIME) {
      // steps of T0 + 29.75 s - 5 s (the last record's, both shards)
      assertEquals(
          Math.floorDiv(T0 + 29_750 - 5_000, GENERATION_MILLIS), stored.get(0).agedClock().epoch());
    }
    Reference ref = new Reference(w, version);
    ref.feed(written());
    for (int shard = 0; shard < SHARDS; shard++) {
      assertEquals(
          ref.filters.get(shard).clock(),
          stored.get(shard).agedClock(),
          what + ": clock of shard " + shard);
    }
    List<Timed> later = later();
    List<Boolean> expected = ref.feed(later);
    List<Boolean> got = feed(h, w, later);
    List<UrlRecord> records = later.stream().map(Timed::record).toList();
    assertSameDecisions(expected, got, records, what);
    assertEquals(
        0,
        DedupOperatorTestKit.count(got.subList(0, WRITTEN)),
        what + ": a URL of the window came back");
    int again = DedupOperatorTestKit.count(got.subList(got.size() - WRITTEN, got.size()));
    // forgotten by (1 + slack) x the window: >= 99%, less false positives (1%): 2% of 120 is 2.4
    assertTrue(again >= WRITTEN - 5, what + ": re-emitted after the window: " + again);
    h.close();
  }

  @Disabled("generator: writes src/test/resources/dedup/aged-*-v4.bin; see the class comment")
  @Test
  void writeGoldenSnapshots() throws Exception {
    for (Backend writer : Backend.values()) {
      for (Window w : Window.values()) {
        var h = DedupOperatorTestKit.open(operator(w), writer, null);
        feed(h, w, written());
        h.prepareSnapshotPreBarrier(1);
        OperatorSubtaskState s =
            h.snapshotWithLocalState(1, 1, SavepointType.savepoint(SavepointFormatType.CANONICAL))
                .getJobManagerOwnedState();
        System.out.println(
            w + " " + writer + ": " + ((DedupOperator) h.getOperator()).openHeaders());
        h.close();
        Path out = Paths.get("src/test/resources", file(w, writer, FilterHeader.FORMAT_VERSION));
        Files.createDirectories(out.getParent());
        OperatorSnapshotUtil.writeStateHandle(s, out.toString());
      }
    }
  }
}
