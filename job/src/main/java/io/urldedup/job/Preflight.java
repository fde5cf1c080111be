package io.urldedup.job;

import io.urldedup.state.ByteSize;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.PageStore;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;
import org.apache.flink.streaming.api.environment.LocalStreamEnvironment;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * Checks that need the file system or the JVM, run after parsing and before any cluster starts, so
 * that a bad flag exits 2 with a message naming it (and what is accepted) instead of failing inside
 * Flink: the embedded mode's files, and whether the filter fits the heap of a local cluster.
 */
final class Preflight {

  /**
   * The heap state backend keeps every shard's pages on the heap and a snapshot may hold a second
   * copy of the pages written since the last one (copy-on-write), so at most this fraction of the
   * heap is offered to the filter; the rest is Flink's, the page cache's and the records'.
   */
  static final double HEAP_SHARE = 0.5;

  private Preflight() {}

  /**
   * {@code --input}, {@code --output}, {@code --dlq}: readable file, writable non-directory paths,
   * no two of them the same file. "The same" is by identity (device and inode), not by path: a hard
   * link, a symlink or {@code /dev/stdin} names the file it points at, and {@code -} is the file
   * behind fd 0 (input) or fd 1 (output), so {@code --input - --output f < f} is refused as {@code
   * --input f --output f} is. Two outputs that are both {@code -} share one stream ({@link
   * LineSink}): not a conflict.
   */
  static void files(JobConfig c) {
    boolean stdin = LineSplit.STDIN.equals(c.input);
    Place input;
    if (stdin) {
      input = Place.ofFd(0);
    } else {
      Path in = Path.of(c.input);
      if (Files.isDirectory(in)) {
        throw new ConfigException(
            "--input " + c.input + " is a directory; accepted: a readable file or - (stdin)");
      }
      if (!Files.isReadable(in)) {
        throw new ConfigException(
            "--input: cannot read " + c.input + "; accepted: a readable file or - (stdin)");
      }
      input = Place.of(in);
    }
    Place output = writable(Flags.OUTPUT, c.output);
    Place dlq = Flags.NONE.equalsIgnoreCase(c.dlq) ? null : writable(Flags.DLQ, c.dlq);
    String in = "--input " + c.input + (stdin ? " (stdin)" : "");
    if (output.same(input)) {
      throw new ConfigException(
          "--output "
              + c.output
              + " and "
              + in
              + " are the same file ("
              + input
              + "): writing would truncate the input; accepted: another file, or - (stdout)");
    }
    if (dlq != null && dlq.same(input)) {
      throw new ConfigException(
          "--dlq "
              + c.dlq
              + " and "
              + in
              + " are the same file ("
              + input
              + "): writing would truncate the input; accepted: another file, - or none");
    }
    boolean bothStdout = LineSplit.STDIN.equals(c.output) && LineSplit.STDIN.equals(c.dlq);
    if (dlq != null && !bothStdout && dlq.same(output)) {
      throw new ConfigException(
          "--dlq "
              + c.dlq
              + " and --output "
              + c.output
              + " are the same file ("
              + output
              + "): two writers would overwrite each other; accepted: another file, - or none");
    }
  }

  /**
   * Where a sink would write ({@code -}: stdout); refuses directories and missing parent
   * directories.
   */
  private static Place writable(Option<String> flag, String value) {
    if (LineSplit.STDIN.equals(value)) {
      return Place.ofFd(1);
    }
    Path p = Path.of(value).toAbsolutePath().normalize();
    if (Files.isDirectory(p)) {
      throw new ConfigException(
          flag.flag()
              + " "
              + value
              + " is a directory; accepted: a file path (created or"
              + " overwritten) or -");
    }
    Path parent = p.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw new ConfigException(
          flag.flag()
              + " "
              + value
              + ": directory "
              + parent
              + " does not exist; accepted: a"
              + " file in an existing directory, or -");
    }
    if (Files.exists(p) ? !Files.isWritable(p) : !Files.isWritable(parent)) {
      throw new ConfigException(
          flag.flag() + " " + value + " is not writable; accepted: a writable file path, or -");
    }
    return Files.exists(p) ? Place.of(p) : new Place(real(parent).resolve(p.getFileName()), null);
  }

  private static Path real(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p.toAbsolutePath().normalize();
    }
  }

  /**
   * A file as the checks compare it: its real path (null for a stream that has none, such as a
   * pipe) and, for an existing regular file, its {@link BasicFileAttributes#fileKey} (device and
   * inode on Linux), which every hard link and symlink to it shares.
   */
  private record Place(Path path, Object regularFileKey) {

    static Place of(Path p) {
      Path real = real(p);
      try {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
        return new Place(real, a.isRegularFile() ? a.fileKey() : null);
      } catch (IOException e) {
        return new Place(real, null);
      }
    }

    /** The file behind a standard stream: /proc/self/fd/N leads to it (a pipe has no path). */
    static Place ofFd(int fd) {
      Place p = of(Path.of("/proc/self/fd/" + fd));
      return p.regularFileKey == null ? new Place(null, null) : p;
    }

    /**
     * Two regular files: the same inode. Anything else (a file not there yet, a device): the same
     * path, as before identities were compared.
     */
    boolean same(Place o) {
      if (o == null) {
        return false;
      }
      if (regularFileKey != null && o.regularFileKey != null) {
        return regularFileKey.equals(o.regularFileKey);
      }
      return path != null && path.equals(o.path);
    }

    @Override
    public String toString() {
      return String.valueOf(path);
    }
  }

  /**
   * On a local cluster (this JVM runs the task managers: the embedded mode, or {@code run} with
   * Kafka flags outside {@code flink run}), the checks of {@link #heap(JobConfig)}. A remote
   * cluster's task-manager memory is not known here.
   */
  static void heap(JobConfig c, StreamExecutionEnvironment env) {
    if (env instanceof LocalStreamEnvironment) {
      heap(c);
    }
  }

  /**
   * The heap backend's filter and the page caches must fit in {@link #HEAP_SHARE} of this JVM's max
   * heap (with RocksDB, the page caches alone); otherwise the JVM runs out of memory mid-run.
   * {@code plan} runs the same check, in the JVM {@code run} would use. The message blames the flag
   * whose memory does not fit: the filter's own flag when the filter alone exceeds the budget, else
   * {@code --cache-memory}.
   */
  static void heap(JobConfig c) {
    long heap = Runtime.getRuntime().maxMemory();
    long budget = (long) (heap * HEAP_SHARE);
    int subtasks = localSubtasks(c);
    long cache = c.cacheMemoryBytes * subtasks;
    FilterSpec spec = c.perShardSpec();
    long need = 0;
    String flag = null;
    if (c.stateBackend == JobConfig.StateBackend.HASHMAP && spec instanceof StableSpec) {
      need = c.memoryBytes;
      flag = FilterFlags.MEMORY.flag();
    } else if (c.stateBackend == JobConfig.StateBackend.HASHMAP && spec instanceof ScalableSpec s) {
      need =
          FilterMath.blockedPages(s.capacity(), s.fpr() * (1 - s.tightening()))
              * (long) PageStore.PAGE_BYTES
              * c.shards;
      flag = FilterFlags.CAPACITY.flag();
    } // aged: not sized here yet
    if (need + cache <= budget) {
      return;
    }
    String filter = ByteSize.format(need) + " on the heap (--state-backend hashmap)";
    String caches = ByteSize.format(cache) + " of page cache";
    String limits =
        ", but this JVM's max heap is "
            + ByteSize.format(heap)
            + " and the filter and the page"
            + " caches may use half of it ("
            + ByteSize.format(budget)
            + ")";
    if (flag == null || need <= budget) {
      throw new ConfigException(
          "--cache-memory "
              + ByteSize.format(c.cacheMemoryBytes)
              + " per subtask x "
              + subtasks
              + " subtasks is "
              + caches
              + (need > 0 ? ", beside the filter's " + filter : "")
              + limits
              + "; what fits: --cache-memory up to "
              + ByteSize.format((budget - need) / subtasks)
              + " (or auto),"
              + " or a larger heap (URLDEDUP_JAVA_OPTS=-Xmx...)");
    }
    throw new ConfigException(
        flag
            + ": the "
            + spec.kind().name().toLowerCase(Locale.ROOT)
            + " filter needs "
            + filter
            + (cache > 0 ? ", beside " + caches + " (--cache-memory)" : "")
            + limits
            + "; what fits: "
            + flag
            + " up to about "
            + fits(spec, budget - cache)
            + ", or --state-backend rocksdb"
            + " (state on local disk), or a larger heap (URLDEDUP_JAVA_OPTS=-Xmx...)");
  }

  /**
   * The dedup subtasks of a local run: --parallelism, else what the local environment would use.
   */
  private static int localSubtasks(JobConfig c) {
    if (c.parallelism > 0) {
      return c.parallelism;
    }
    int cores = Runtime.getRuntime().availableProcessors();
    return c.mode == JobConfig.Mode.EMBEDDED
        ? Math.min(Flags.EMBEDDED_MAX_PARALLELISM, cores)
        : cores;
  }

  private static String fits(FilterSpec spec, long bytes) {
    if (!(spec instanceof ScalableSpec s)) {
      return ByteSize.format(Math.max(0, bytes));
    }
    long perUrlBits =
        Math.max(
            1,
            FilterMath.blockedPages(1_000_000, s.fpr() * (1 - s.tightening()))
                * (long) PageStore.PAGE_BYTES
                * 8
                / 1_000_000);
    return String.format(Locale.ROOT, "%,d URLs", Math.max(0, bytes) * 8 / perUrlBits);
  }
}
