package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.FINGERPRINT;
import static io.urldedup.operators.DedupOperatorTestKit.assertSameDecisions;
import static io.urldedup.operators.DedupOperatorTestKit.concat;
import static io.urldedup.operators.DedupOperatorTestKit.feed;
import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.operators.DedupOperatorTestKit.Reference;
import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.IncompatibleStateException;
import io.urldedup.state.UrlMapping;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Locale;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.SavepointType;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Restores operator snapshots written by an earlier build (src/test/resources/dedup/) with the
 * current code: the state names, the header and page serializers (and their snapshots), the page
 * layout and the hash-to-position mapping must all still agree, or a user's savepoint would be
 * silently useless after an upgrade.
 *
 * <p>Two generations: {@code -v1} files hold filter header layout 1 (no shard count, no
 * canonicalization fingerprint: they restore under any and adopt the current ones), {@code -v2}
 * files layout 2 (written under {@link #V2_MAPPING}: a restore with another {@code --shards} or
 * other canonicalization settings is refused, naming the flag, unless the canonicalization change
 * is explicitly allowed).
 *
 * <p>The files are canonical savepoints (Flink's backend-independent format), written by each
 * backend and each restored into both. They hold 2 shards of one-page slices: 10-20 KB each. The
 * stable files predate the stable filter's counter-seeded decay positions; they were kept, not
 * regenerated: where past decays fell is history held in the cells, not format. With about 5
 * arrivals per 16-word block no set cell (Max = 15) can decay to 0 either way, so the decisions
 * match the current code's, and the files now also cover cells written by an older build.
 *
 * <p>Regenerate only for a deliberate, documented format break (and keep the old files as a
 * restore-fails-loudly case): remove {@code @Disabled} from {@link #writeGoldenSnapshots}, run
 * {@code mvn -pl operators -am test -Dtest='StateCompatibilityTest#writeGoldenSnapshots'
 * -Dsurefire.failIfNoSpecifiedTests=false}, put {@code @Disabled} back, commit the files.
 */
class StateCompatibilityTest {

  private static final int SHARDS = 2;
  private static final FilterSpec STABLE = FilterSpec.stable(0.01, 4096, 4);
  private static final FilterSpec SCALABLE = FilterSpec.scalable(0.01, 40, 2, 0.5, 1L << 16);
  private static final int WRITTEN = 120;

  /** What the v2 files were written under: the kit's seed, 2 shards, default canonicalization. */
  /**
   * The mapping the v2 files were written under: canonicalization version 1 (before the WHATWG
   * parser), pinned here, since the current canonicalization settings differ (restoring those files
   * under the current ones needs --allow-canonicalization-change, tested below).
   */
  private static final String V2_SETTINGS =
      "canonicalization-version=1\n--strip-params=none\n--strip-www=false\n";

  private static final UrlMapping V2_MAPPING =
      new UrlMapping(
          DedupOperatorTestKit.HASHER.seedFingerprint(),
          SHARDS,
          DecodeConfig.fingerprintOf(V2_SETTINGS),
          V2_SETTINGS);
  private static final int[] VERSIONS = {1, 2};

  @AfterAll
  static void cleanRocks() throws Exception {
    DedupOperatorTestKit.deleteRocksDir();
  }

  /** The kinds with golden savepoints (v1 and v2 predate the aged kind). */
  private static final FilterSpec.Kind[] GOLDEN_KINDS = {
    FilterSpec.Kind.STABLE, FilterSpec.Kind.SCALABLE
  };

  private static FilterSpec spec(FilterSpec.Kind kind) {
    return kind == FilterSpec.Kind.STABLE ? STABLE : SCALABLE;
  }

  /** Which filter kind, written by which backend, with which header layout version. */
  private static String file(FilterSpec.Kind kind, Backend writer, int version) {
    return "dedup/"
        + kind.name().toLowerCase(Locale.ROOT)
        + "-"
        + writer.name().toLowerCase(Locale.ROOT)
        + "-savepoint-v"
        + version
        + ".bin";
  }

  /** The mapping the files of {@code version} recorded (v1: only the seed). */
  private static UrlMapping writtenUnder(int version) {
    return version == 1 ? UrlMapping.seedOnly(FINGERPRINT) : V2_MAPPING;
  }

  private static OperatorSubtaskState golden(FilterSpec.Kind kind, Backend writer, int version)
      throws Exception {
    String name = file(kind, writer, version);
    URL resource = StateCompatibilityTest.class.getClassLoader().getResource(name);
    assertTrue(resource != null, "missing " + name);
    assertTrue(
        Files.size(Paths.get(resource.toURI())) < 64 * 1024,
        name + ": golden file must stay small");
    return OperatorSnapshotUtil.readStateHandle(Paths.get(resource.toURI()).toString());
  }

  /**
   * What the golden run inserted: 120 URLs over 2 shards (scalable: 60 per shard, 2 slices of 40,
   * 80).
   */
  private static List<UrlRecord> written() {
    return urls("golden", 0, WRITTEN, SHARDS);
  }

  private static List<UrlRecord> later() {
    return concat(urls("golden", 0, WRITTEN, SHARDS), urls("golden-later", 0, 80, SHARDS));
  }

  /** Writes the current version's files ({@code -v2}); the older files stay as they are. */
  @Disabled("generator: writes src/test/resources/dedup/*-v2.bin; see the class comment")
  @Test
  void writeGoldenSnapshots() throws Exception {
    for (Backend writer : Backend.values()) {
      for (FilterSpec.Kind kind : GOLDEN_KINDS) {
        var h =
            DedupOperatorTestKit.open(
                new DedupOperator(DedupSettings.of(spec(kind), V2_MAPPING).withCachePages(8)),
                writer,
                null);
        feed(h, written());
        h.prepareSnapshotPreBarrier(1);
        OperatorSubtaskState s =
            h.snapshotWithLocalState(1, 1, SavepointType.savepoint(SavepointFormatType.CANONICAL))
                .getJobManagerOwnedState();
        h.close();
        Path out = Paths.get("src/test/resources", file(kind, writer, 2));
        Files.createDirectories(out.getParent());
        OperatorSnapshotUtil.writeStateHandle(s, out.toString());
      }
    }
  }

  /**
   * Each golden file (both kinds, written by either backend, both versions) restored into {@code
   * backend} under the v2 mapping: v1 files accept it (UNKNOWN), v2 files match it.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void goldenSnapshotsRestoreWithTheSameDecisions(Backend backend) throws Exception {
    for (int version : VERSIONS) {
      for (Backend writer : Backend.values()) {
        for (FilterSpec.Kind kind : GOLDEN_KINDS) {
          restoreAndCheck(kind, writer, version, backend);
        }
      }
    }
  }

  private void restoreAndCheck(FilterSpec.Kind kind, Backend writer, int version, Backend backend)
      throws Exception {
    String what =
        kind + " golden v" + version + " written by " + writer + ", restored on " + backend;
    OperatorSubtaskState s = golden(kind, writer, version);

    var h =
        DedupOperatorTestKit.open(
            new DedupOperator(DedupSettings.of(spec(kind), V2_MAPPING).withCachePages(8)),
            backend,
            s);
    DedupOperator op = (DedupOperator) h.getOperator();
    Reference ref = new Reference(spec(kind), writtenUnder(version));
    ref.feed(written());
    assertEquals(ref.headers(), StoredState.headers(op), what + ": headers");

    List<Boolean> expected = ref.feed(later());
    List<Boolean> got = feed(h, later());
    assertSameDecisions(expected, got, later(), what);
    if (kind == FilterSpec.Kind.SCALABLE) {
      assertEquals(
          0,
          DedupOperatorTestKit.count(got.subList(0, WRITTEN)),
          what + ": a restored URL was emitted");
    }
    h.prepareSnapshotPreBarrier(2);
    for (FilterHeader stored : StoredState.headers(op).values()) {
      assertEquals(
          V2_MAPPING, stored.mapping(), what + ": a touched shard records the current mapping");
    }
    h.close();
  }

  @Test
  void goldenSnapshotWithAnotherSeedFailsNamingTheParameter() throws Exception {
    for (int version : VERSIONS) {
      OperatorSubtaskState s = golden(FilterSpec.Kind.SCALABLE, Backend.HASHMAP, version);
      UrlMapping otherSeed =
          DedupOperatorTestKit.decode()
              .hashSeed(DedupOperatorTestKit.SEED ^ 1)
              .shards(SHARDS)
              .build()
              .urlMapping();
      var h = DedupOperatorTestKit.harness(SCALABLE, otherSeed, 8, Backend.HASHMAP, 1, 0);
      Exception e = assertThrows(Exception.class, () -> h.initializeState(s));
      assertTrue(
          ExceptionUtils.findThrowableWithMessage(e, "different hashSeed").isPresent(),
          "v" + version);
    }
  }

  /**
   * 128 -> 64 shards would move every URL to another shard: refused, naming --shards and both
   * values.
   */
  @ParameterizedTest
  @EnumSource(Backend.class)
  void restoreWithOtherShardsIsRefusedNamingTheParameter(Backend backend) throws Exception {
    for (FilterSpec.Kind kind : GOLDEN_KINDS) {
      OperatorSubtaskState s = golden(kind, Backend.HASHMAP, 2);
      UrlMapping threeShards = DedupOperatorTestKit.decode().shards(3).build().urlMapping();
      var h = DedupOperatorTestKit.harness(spec(kind), threeShards, 8, backend, 1, 0);
      Exception e = assertThrows(Exception.class, () -> h.initializeState(s));
      String message = incompatibility(e);
      assertTrue(
          message.contains("shards 2")
              && message.contains("shards 3")
              && message.contains("start from empty state"),
          message);
      assertTrue(
          ExceptionUtils.findThrowable(e, SuppressRestartsException.class).isPresent(),
          "a restart cannot help");
      h.close();
    }
  }

  /**
   * Version 1 state recorded no shard count: any is accepted (today's behaviour) and then recorded.
   */
  @Test
  void version1StateAcceptsAndAdoptsTheShardCount() throws Exception {
    OperatorSubtaskState s = golden(FilterSpec.Kind.SCALABLE, Backend.HASHMAP, 1);
    UrlMapping threeShards = DedupOperatorTestKit.decode().shards(3).build().urlMapping();
    var h =
        DedupOperatorTestKit.open(
            new DedupOperator(DedupSettings.of(SCALABLE, threeShards).withCachePages(8)),
            Backend.HASHMAP,
            s);
    feed(h, urls("golden-later", 0, 40, SHARDS));
    h.prepareSnapshotPreBarrier(2);
    for (FilterHeader stored : StoredState.headers((DedupOperator) h.getOperator()).values()) {
      assertEquals(3, stored.mapping().shards());
    }
    h.close();
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void restoreWithOtherCanonicalizationIsRefusedNamingTheParameter(Backend backend)
      throws Exception {
    OperatorSubtaskState s = golden(FilterSpec.Kind.STABLE, Backend.ROCKSDB, 2);
    UrlMapping www =
        DedupOperatorTestKit.decode().shards(SHARDS).stripWww(true).build().urlMapping();
    var h = DedupOperatorTestKit.harness(STABLE, www, 8, backend, 1, 0);
    String message = incompatibility(assertThrows(Exception.class, () -> h.initializeState(s)));
    assertTrue(
        message.contains("--strip-www false in state vs true now")
            && message.contains("allowCanonicalizationChange")
            && !message.contains("--strip-params"),
        message);
    h.close();

    // state of the canonicalization before the WHATWG parser, restored under today's defaults
    UrlMapping today = DedupOperatorTestKit.decode().shards(SHARDS).build().urlMapping();
    var h1 = DedupOperatorTestKit.harness(STABLE, today, 8, backend, 1, 0);
    message = incompatibility(assertThrows(Exception.class, () -> h1.initializeState(s)));
    assertTrue(
        message.contains("canonicalization-version 1 in state vs 2 now")
            && message.contains("allowCanonicalizationChange"),
        message);
    h1.close();

    UrlMapping params =
        DedupOperatorTestKit.decode()
            .shards(SHARDS)
            .stripParams("sid,jsessionid")
            .build()
            .urlMapping();
    var h2 = DedupOperatorTestKit.harness(STABLE, params, 8, backend, 1, 0);
    message = incompatibility(assertThrows(Exception.class, () -> h2.initializeState(s)));
    assertTrue(
        message.contains("--strip-params none in state vs jsessionid,sid now")
            && !message.contains("--strip-www"),
        message);
    h2.close();
  }

  /**
   * With --allow-canonicalization-change the restore goes on with the same decisions, warns once
   * naming what changed (never the seed), and the state then records the new settings, so the next
   * restore under them needs no flag.
   */
  @Test
  void allowedCanonicalizationChangeRestoresWarnsAndAdopts() throws Exception {
    OperatorSubtaskState s = golden(FilterSpec.Kind.SCALABLE, Backend.HASHMAP, 2);
    UrlMapping www =
        DedupOperatorTestKit.decode().shards(SHARDS).stripWww(true).build().urlMapping();
    List<String> warnings;
    KeyedOneInputStreamOperatorTestHarness<Integer, UrlRecord, UrlRecord> h;
    try (WarningCapture capture = new WarningCapture(RestoredStateCheck.class)) {
      h =
          DedupOperatorTestKit.open(
              new DedupOperator(
                  DedupSettings.of(SCALABLE, www)
                      .withCachePages(8)
                      .withCanonicalizationChangeAllowed(true)),
              Backend.HASHMAP,
              s);
      warnings = capture.messages();
    }
    assertEquals(1, warnings.size(), "one warning per subtask, not per shard: " + warnings);
    assertTrue(warnings.get(0).contains("--strip-www false in state vs true now"), warnings.get(0));
    assertTrue(
        !warnings.get(0).contains(Long.toHexString(DedupOperatorTestKit.SEED))
            && !warnings.get(0).contains(Long.toString(DedupOperatorTestKit.SEED)),
        "never the seed");

    Reference ref = new Reference(SCALABLE, V2_MAPPING);
    ref.feed(written());
    assertSameDecisions(ref.feed(later()), feed(h, later()), later(), "allowed change");
    OperatorSubtaskState next = DedupOperatorTestKit.checkpoint(h, 2);
    for (FilterHeader stored : StoredState.headers((DedupOperator) h.getOperator()).values()) {
      assertEquals(www, stored.mapping());
    }
    h.close();
    var again =
        DedupOperatorTestKit.open(
            new DedupOperator(DedupSettings.of(SCALABLE, www).withCachePages(8)),
            Backend.HASHMAP,
            next);
    again.close();
  }

  private static String incompatibility(Exception e) {
    return ExceptionUtils.findThrowable(e, IncompatibleStateException.class)
        .map(Throwable::getMessage)
        .orElseThrow(() -> new AssertionError("no IncompatibleStateException", e));
  }
}
