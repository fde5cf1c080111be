package io.urldedup.operators;

import static io.urldedup.operators.DedupOperatorTestKit.assertSameDecisions;
import static io.urldedup.operators.DedupOperatorTestKit.concat;
import static io.urldedup.operators.DedupOperatorTestKit.feed;
import static io.urldedup.operators.DedupOperatorTestKit.urls;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.urldedup.operators.DedupOperatorTestKit.Backend;
import io.urldedup.operators.DedupOperatorTestKit.Reference;
import io.urldedup.state.FilterSpec;
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
import org.apache.flink.streaming.util.OperatorSnapshotUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Golden savepoints of the logged layout ({@code --materialize-every 4}, header layout declared 5,
 * src/test/resources/dedup/*-logged-v5.bin): 2 shards; the first 60 URLs materialized at checkpoint
 * 4, the next 60 only in insert log chunks at savepoint 5. Each file, written by either backend,
 * restores into both backends with N = 4 and with N = 1 (which replays and then materializes), to
 * the headers and decisions of filters fed the same URLs directly (the aged filter, a window of 40
 * URLs per shard, has forgotten some of them by then: so does the reference).
 *
 * <p>Regenerate only for a deliberate, documented format break (keep the old files): remove
 * {@code @Disabled} from {@link #writeGoldenSnapshots}, run {@code mvn -pl operators -am test
 * -Dtest='LoggedStateCompatibilityTest#writeGoldenSnapshots'
 * -Dsurefire.failIfNoSpecifiedTests=false}, put {@code @Disabled} back, commit the files.
 */
class LoggedStateCompatibilityTest {

  private static final int SHARDS = 2;
  private static final FilterSpec STABLE = FilterSpec.stable(0.01, 4096, 4);
  private static final FilterSpec SCALABLE = FilterSpec.scalable(0.01, 40, 2, 0.5, 1L << 16);
  private static final FilterSpec AGED = FilterSpec.agedCount(0.01, 40, 4);
  private static final UrlMapping MAPPING =
      DedupOperatorTestKit.decode().shards(SHARDS).build().urlMapping();
  private static final int WRITTEN = 120;

  @AfterAll
  static void cleanRocks() throws Exception {
    DedupOperatorTestKit.deleteRocksDir();
  }

  private static FilterSpec spec(FilterSpec.Kind kind) {
    return switch (kind) {
      case STABLE -> STABLE;
      case SCALABLE -> SCALABLE;
      case AGED -> AGED;
    };
  }

  private static String file(FilterSpec.Kind kind, Backend writer) {
    return "dedup/"
        + kind.name().toLowerCase(Locale.ROOT)
        + "-"
        + writer.name().toLowerCase(Locale.ROOT)
        + "-logged-v5.bin";
  }

  private static List<UrlRecord> written() {
    return urls("logged", 0, WRITTEN, SHARDS);
  }

  private static List<UrlRecord> later() {
    return concat(written(), urls("logged-later", 0, 80, SHARDS));
  }

  @Disabled("generator: writes src/test/resources/dedup/*-logged-v5.bin; see the class comment")
  @Test
  void writeGoldenSnapshots() throws Exception {
    for (Backend writer : Backend.values()) {
      for (FilterSpec.Kind kind : FilterSpec.Kind.values()) {
        var h =
            DedupOperatorTestKit.open(
                new DedupOperator(
                    DedupSettings.of(spec(kind), MAPPING)
                        .withCachePages(8)
                        .withMaterializeEvery(4)),
                writer,
                null);
        feed(h, written().subList(0, WRITTEN / 2));
        DedupOperatorTestKit.checkpoint(h, 4);
        feed(h, written().subList(WRITTEN / 2, WRITTEN));
        h.prepareSnapshotPreBarrier(5);
        OperatorSubtaskState s =
            h.snapshotWithLocalState(5, 5, SavepointType.savepoint(SavepointFormatType.CANONICAL))
                .getJobManagerOwnedState();
        assertTrue(((DedupOperator) h.getOperator()).metrics().logBytesWritten() > 0);
        h.close();
        Path out = Paths.get("src/test/resources", file(kind, writer));
        Files.createDirectories(out.getParent());
        OperatorSnapshotUtil.writeStateHandle(s, out.toString());
      }
    }
  }

  private static OperatorSubtaskState golden(FilterSpec.Kind kind, Backend writer)
      throws Exception {
    String name = file(kind, writer);
    URL resource = LoggedStateCompatibilityTest.class.getClassLoader().getResource(name);
    assertTrue(resource != null, "missing " + name);
    assertTrue(
        Files.size(Paths.get(resource.toURI())) < 64 * 1024,
        name + ": golden file must stay small");
    return OperatorSnapshotUtil.readStateHandle(Paths.get(resource.toURI()).toString());
  }

  @ParameterizedTest
  @EnumSource(Backend.class)
  void goldenLoggedSnapshotsRestoreWithTheSameStateAndDecisions(Backend backend) throws Exception {
    for (Backend writer : Backend.values()) {
      for (FilterSpec.Kind kind : FilterSpec.Kind.values()) {
        for (int n : new int[] {4, 1}) {
          String what =
              kind
                  + " logged golden written by "
                  + writer
                  + ", restored on "
                  + backend
                  + " with N="
                  + n;
          var h =
              DedupOperatorTestKit.open(
                  new DedupOperator(
                      DedupSettings.of(spec(kind), MAPPING)
                          .withCachePages(8)
                          .withMaterializeEvery(n)),
                  backend,
                  golden(kind, writer));
          DedupOperator op = (DedupOperator) h.getOperator();
          assertTrue(op.hasLogState(), what + ": the log state is restored");
          Reference ref = new Reference(spec(kind), MAPPING);
          ref.feed(written());
          // the stored headers are the bases (checkpoint 4); the open ones, after replay, the state
          // at 5
          List<UrlRecord> later = later();
          List<Boolean> expected = ref.feed(later);
          List<Boolean> got = feed(h, later);
          assertTrue(op.metrics().logOperationsReplayed() > 0, what + ": replayed");
          assertSameDecisions(expected, got, later, what);
          if (kind == FilterSpec.Kind.SCALABLE) {
            assertEquals(
                0,
                DedupOperatorTestKit.count(got.subList(0, WRITTEN)),
                what + ": a restored URL was emitted");
          }
          DedupOperatorTestKit.checkpoint(h, 8);
          assertEquals(ref.headers(), StoredState.headers(op), what + ": materialized headers");
          h.close();
        }
      }
    }
  }
}
