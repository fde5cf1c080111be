package io.urldedup.stateops;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.flink.core.fs.FileStatus;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.state.api.runtime.SavepointLoader;

/**
 * A savepoint or retained checkpoint holding dedup operator state, found from what a user passes as
 * {@code --state DIR}: the savepoint or {@code chk-N} directory itself, a directory of savepoints
 * ({@code run --state} and {@code bootstrap} write {@code savepoint-*} there), or a checkpoint
 * directory ({@code <job id>/chk-N}); the newest complete one (with {@code _metadata}) wins. Paths
 * go through Flink's {@link FileSystem}: a local directory, or any scheme Flink has a file system
 * for in this process (s3://, hdfs:// with their plugins on a cluster).
 *
 * <p>Which backend reads it: a native RocksDB snapshot (incremental checkpoints, native-format
 * savepoints) only RocksDB can read; canonical savepoints and hashmap checkpoints the heap backend
 * reads, whichever backend wrote them.
 */
public record StateLocation(
    Path path, boolean nativeRocksDb, int maxParallelism, long stateBytes, int subtasks) {

  static final String METADATA = "_metadata";

  /** A local directory (relative to the working directory) or a URI with a scheme. */
  public static Path of(String dirOrUri) {
    if (dirOrUri.contains("://")) {
      return new Path(dirOrUri);
    }
    return new Path(java.nio.file.Path.of(dirOrUri).toAbsolutePath().normalize().toUri());
  }

  public static Path of(java.nio.file.Path dir) {
    return new Path(dir.toAbsolutePath().normalize().toUri());
  }

  /**
   * The newest snapshot under {@code dir}, if any (a missing directory has none).
   *
   * @throws IOException also when no file system serves the path's scheme here ({@link
   *     org.apache.flink.core.fs.UnsupportedFileSystemSchemeException})
   */
  public static Optional<Path> find(Path dir) throws IOException {
    FileSystem fs = dir.getFileSystem();
    if (isFile(fs, new Path(dir, METADATA))) {
      return Optional.of(dir);
    }
    if (!fs.exists(dir) || !fs.getFileStatus(dir).isDir()) {
      return Optional.empty();
    }
    Path best = null;
    long bestTime = Long.MIN_VALUE;
    for (Path candidate : subdirectories(fs, dir, 2)) {
      Path md = new Path(candidate, METADATA);
      if (!isFile(fs, md)) {
        continue;
      }
      long t = fs.getFileStatus(md).getModificationTime();
      if (best == null
          || t > bestTime
          || (t == bestTime && candidate.toString().compareTo(best.toString()) > 0)) {
        best = candidate;
        bestTime = t;
      }
    }
    return Optional.ofNullable(best);
  }

  public static Optional<Path> find(java.nio.file.Path dir) throws IOException {
    return find(of(dir));
  }

  private static boolean isFile(FileSystem fs, Path p) throws IOException {
    return fs.exists(p) && !fs.getFileStatus(p).isDir();
  }

  private static List<Path> subdirectories(FileSystem fs, Path dir, int depth) throws IOException {
    List<Path> out = new ArrayList<>();
    FileStatus[] children = fs.listStatus(dir);
    if (children == null) {
      return out;
    }
    for (FileStatus c : children) {
      if (c.isDir()) {
        out.add(c.getPath());
        if (depth > 1) {
          out.addAll(subdirectories(fs, c.getPath(), depth - 1));
        }
      }
    }
    return out;
  }

  /**
   * Opens the snapshot's metadata; fails with an {@link IOException} that says what is wrong if it
   * is not Flink snapshot metadata or holds no dedup operator state.
   */
  public static StateLocation open(Path snapshot) throws IOException {
    CheckpointMetadata md;
    try {
      md = SavepointLoader.loadSavepointMetadata(snapshot.toString());
    } catch (IOException | RuntimeException e) {
      throw new IOException(
          new Path(snapshot, METADATA)
              + " is not readable Flink savepoint or checkpoint metadata ("
              + rootMessage(e)
              + ")",
          e);
    }
    OperatorState op =
        md.getOperatorStates().stream()
            .filter(o -> o.getOperatorID().equals(FilterStates.OPERATOR.getOperatorId()))
            .findFirst()
            .orElseThrow(
                () ->
                    new IOException(
                        snapshot
                            + " holds no state of the dedup operator (uid '"
                            + FilterStates.OPERATOR.getUid().orElse("?")
                            + "')"));
    boolean rocks = false;
    for (OperatorSubtaskState s : op.getStates()) {
      for (KeyedStateHandle k : s.getManagedKeyedState()) {
        rocks |= k instanceof IncrementalKeyedStateHandle;
      }
    }
    return new StateLocation(
        snapshot, rocks, op.getMaxParallelism(), op.getStateSize(), op.getNumberCollectedStates());
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
  }

  /** The path as a person reads it: a local file path without its scheme. */
  public String display() {
    return display(path);
  }

  public static String display(Path p) {
    return "file".equals(p.toUri().getScheme()) ? p.toUri().getPath() : p.toString();
  }

  /** Bytes of the files under the snapshot directory. */
  public long bytesOnDisk() throws IOException {
    return bytes(path);
  }

  /** Bytes of the files under {@code p}. */
  public static long bytes(Path p) throws IOException {
    FileSystem fs = p.getFileSystem();
    FileStatus st = fs.getFileStatus(p);
    if (!st.isDir()) {
      return st.getLen();
    }
    long total = 0;
    FileStatus[] children = fs.listStatus(p);
    if (children != null) {
      for (FileStatus c : children) {
        total += c.isDir() ? bytes(c.getPath()) : c.getLen();
      }
    }
    return total;
  }
}
