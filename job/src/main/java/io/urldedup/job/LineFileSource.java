package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Boundedness;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.api.connector.source.SourceReader;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The embedded mode's source: one local regular file (bounded, checkpointed as a byte offset, so a
 * run with checkpointing resumes where it was) or a stream ({@link #isStream}: stdin {@code -}, a
 * named pipe, {@code <(cmd)}, {@code /dev/stdin}; unbounded, read front to back as it arrives,
 * until its end or a stop signal: it cannot seek). One record per line ({@link LineReader}). What a
 * line becomes is the {@link LineHook}'s: by default a record with origin {@code name:line}.
 *
 * <p>At source parallelism P a file of at least {@link #MIN_RANGE_BYTES} x 2 is read as up to P
 * byte ranges ({@link LineRanges}), one reader each, so reading and decoding scale with P. Order
 * then holds within a range only: like Kafka partitions, when a URL occurs in two ranges, which
 * occurrence is emitted depends on timing (exactly one is, up to the filter's error). At
 * parallelism 1, and for smaller files, one reader reads the file in order and the first occurrence
 * is the one emitted. The job gives the filters that decide by order one reader ({@link
 * UrlDedupJob#inOrder}).
 */
public final class LineFileSource
    implements Source<RawRecord, LineSplit, Collection<LineSplit>>, ResultTypeQueryable<RawRecord> {

  /** The smallest byte range worth a reader of its own. */
  static final long MIN_RANGE_BYTES = 16L << 20;

  private final String path;
  private final String name;
  private final LineHook hook;
  private final long minRangeBytes;

  /** This source's run, for {@link #linesRead}. */
  private final String run = UUID.randomUUID().toString();

  /**
   * @param path a file, or {@code -} for stdin
   * @param name what origins say instead of the path ({@code name:line})
   */
  public LineFileSource(String path, String name) {
    this(path, name, LineHook.origins(name));
  }

  public LineFileSource(String path, String name, LineHook hook) {
    this(path, name, hook, MIN_RANGE_BYTES);
  }

  /**
   * @param minRangeBytes the smallest byte range read by a reader of its own (tests)
   */
  LineFileSource(String path, String name, LineHook hook, long minRangeBytes) {
    this.path = path;
    this.name = name;
    this.hook = hook;
    this.minRangeBytes = minRangeBytes;
  }

  /**
   * stdin ({@code -}), or a path that exists and is neither a regular file nor a directory (a named
   * pipe, a character device, {@code /dev/fd/N} of a pipe): read once as a stream, no seek, no byte
   * ranges. A path that does not exist is a file (reading it names what is wrong).
   */
  static boolean isStream(String path) {
    if (LineSplit.STDIN.equals(path)) {
      return true;
    }
    java.nio.file.Path p = java.nio.file.Path.of(path);
    return Files.exists(p) && !Files.isRegularFile(p) && !Files.isDirectory(p);
  }

  @Override
  public Boundedness getBoundedness() {
    return isStream(path) ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<RawRecord, LineSplit> createReader(SourceReaderContext context) {
    return new LineSourceReader(context, hook, run);
  }

  @Override
  public SplitEnumerator<LineSplit, Collection<LineSplit>> createEnumerator(
      SplitEnumeratorContext<LineSplit> context) {
    LineSplit whole = new LineSplit(path, name, 0, 0);
    if (isStream(path) || context.currentParallelism() == 1) {
      return new LineSplitEnumerator(context, List.of(whole));
    }
    List<LineSplit> ranges;
    try {
      ranges = LineRanges.split(path, name, context.currentParallelism(), minRangeBytes);
    } catch (IOException e) {
      ranges = List.of(whole); // the reader reports what is wrong with the file
    }
    return new LineSplitEnumerator(context, ranges);
  }

  @Override
  public SplitEnumerator<LineSplit, Collection<LineSplit>> restoreEnumerator(
      SplitEnumeratorContext<LineSplit> context, Collection<LineSplit> checkpoint) {
    return new LineSplitEnumerator(context, checkpoint);
  }

  /**
   * The lines its readers got through, per range ({@link LinesRead#take}), once the job ended (the
   * embedded mode: its cluster runs in this JVM); forgets them.
   */
  List<long[]> linesRead() {
    return LinesRead.take(run);
  }

  @Override
  public SimpleVersionedSerializer<LineSplit> getSplitSerializer() {
    return new SplitSerializer();
  }

  @Override
  public SimpleVersionedSerializer<Collection<LineSplit>> getEnumeratorCheckpointSerializer() {
    return new CheckpointSerializer();
  }

  @Override
  public TypeInformation<RawRecord> getProducedType() {
    return TypeInformation.of(RawRecord.class);
  }

  private static void write(DataOutputSerializer out, LineSplit s) throws IOException {
    out.writeUTF(s.path);
    out.writeUTF(s.name);
    out.writeLong(s.offset);
    out.writeLong(s.lines);
    out.writeLong(s.end);
    out.writeInt(s.index);
  }

  /** Version 1 has no range: the split runs to the end of the file. */
  private static LineSplit read(DataInputDeserializer in, int version) throws IOException {
    String path = in.readUTF();
    String name = in.readUTF();
    long offset = in.readLong();
    long lines = in.readLong();
    if (version == 1) {
      return new LineSplit(path, name, offset, lines);
    }
    return new LineSplit(path, name, offset, lines, in.readLong(), in.readInt());
  }

  /**
   * Version 2: path, name (UTF), offset, lines, end (long), index (int). Version 1 (no end, no
   * index: a whole-file split) is still read.
   */
  static final class SplitSerializer implements SimpleVersionedSerializer<LineSplit> {
    @Override
    public int getVersion() {
      return 2;
    }

    @Override
    public byte[] serialize(LineSplit split) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(64);
      write(out, split);
      return out.getCopyOfBuffer();
    }

    @Override
    public LineSplit deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1 && version != 2) {
        throw new IOException("unknown line split version " + version + " (this build reads 1, 2)");
      }
      return read(new DataInputDeserializer(bytes), version);
    }
  }

  /** Version 2: count (int), then the splits as {@link SplitSerializer} writes them (1: its v1). */
  static final class CheckpointSerializer
      implements SimpleVersionedSerializer<Collection<LineSplit>> {
    @Override
    public int getVersion() {
      return 2;
    }

    @Override
    public byte[] serialize(Collection<LineSplit> splits) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(64);
      out.writeInt(splits.size());
      for (LineSplit s : splits) {
        write(out, s);
      }
      return out.getCopyOfBuffer();
    }

    @Override
    public Collection<LineSplit> deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1 && version != 2) {
        throw new IOException(
            "unknown line source checkpoint version " + version + " (this build reads 1, 2)");
      }
      DataInputDeserializer in = new DataInputDeserializer(bytes);
      int n = in.readInt();
      List<LineSplit> splits = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        splits.add(read(in, version));
      }
      return splits;
    }
  }
}
