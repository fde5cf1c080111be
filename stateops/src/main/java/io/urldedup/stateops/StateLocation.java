package io.urldedup.stateops;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.state.api.runtime.SavepointLoader;

/**
 * A savepoint or retained checkpoint holding dedup operator state, found from what a user passes
 * as {@code --state DIR}: the savepoint or {@code chk-N} directory itself, a directory of
 * savepoints ({@code run --state} and {@code bootstrap} write {@code savepoint-*} there), or a
 * checkpoint directory ({@code <job id>/chk-N}); the newest complete one (with {@code _metadata})
 * wins.
 *
 * <p>Which backend reads it: a native RocksDB snapshot (incremental checkpoints, native-format
 * savepoints) only RocksDB can read; canonical savepoints and hashmap checkpoints the heap backend
 * reads, whichever backend wrote them.
 */
public record StateLocation(Path path, boolean nativeRocksDb, int maxParallelism, long stateBytes,
    int subtasks) {

  static final String METADATA = "_metadata";

  /** The newest snapshot under {@code dir}, if any (a missing directory has none). */
  public static Optional<Path> find(Path dir) {
    if (Files.isRegularFile(dir.resolve(METADATA))) {
      return Optional.of(dir);
    }
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> s = Files.find(dir, 2, (p, a) -> a.isDirectory() && Files.isRegularFile(p.resolve(METADATA)))) {
      return s.max(Comparator.comparingLong(StateLocation::modified).thenComparing(Path::toString));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Opens the snapshot's metadata; fails if it holds no dedup operator state. */
  public static StateLocation open(Path snapshot) throws IOException {
    CheckpointMetadata md = SavepointLoader.loadSavepointMetadata(snapshot.toUri().toString());
    OperatorState op = md.getOperatorStates().stream()
        .filter(o -> o.getOperatorID().equals(FilterStates.OPERATOR.getOperatorId()))
        .findFirst()
        .orElseThrow(() -> new IOException(snapshot + " holds no state of the dedup operator (uid '"
            + FilterStates.OPERATOR.getUid().orElse("?") + "')"));
    boolean rocks = false;
    for (OperatorSubtaskState s : op.getStates()) {
      for (KeyedStateHandle k : s.getManagedKeyedState()) {
        rocks |= k instanceof IncrementalKeyedStateHandle;
      }
    }
    return new StateLocation(snapshot, rocks, op.getMaxParallelism(), op.getStateSize(), op.getNumberCollectedStates());
  }

  private static long modified(Path p) {
    try {
      return Files.getLastModifiedTime(p.resolve(METADATA)).toMillis();
    } catch (IOException e) {
      return 0;
    }
  }
}
