package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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
 * The embedded mode's source: one local file (bounded, checkpointed as a byte offset, so a run
 * with checkpointing resumes where it was) or stdin ({@code -}: an unbounded stream, read as it
 * arrives, until its end or a stop signal). One record per line ({@link LineReader}); one reader
 * reads, the decoder fans out after it. What a line becomes is the {@link LineHook}'s: by
 * default a record with origin {@code name:line}.
 */
public final class LineFileSource
    implements Source<RawRecord, LineSplit, Collection<LineSplit>>, ResultTypeQueryable<RawRecord> {

  private final String path;
  private final String name;
  private final LineHook hook;

  /**
   * @param path a file, or {@code -} for stdin
   * @param name what origins say instead of the path ({@code name:line})
   */
  public LineFileSource(String path, String name) {
    this(path, name, LineHook.origins(name));
  }

  public LineFileSource(String path, String name, LineHook hook) {
    this.path = path;
    this.name = name;
    this.hook = hook;
  }

  @Override
  public Boundedness getBoundedness() {
    return LineSplit.STDIN.equals(path) ? Boundedness.CONTINUOUS_UNBOUNDED : Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<RawRecord, LineSplit> createReader(SourceReaderContext context) {
    return new LineSourceReader(context, hook);
  }

  @Override
  public SplitEnumerator<LineSplit, Collection<LineSplit>> createEnumerator(
      SplitEnumeratorContext<LineSplit> context) {
    return new LineSplitEnumerator(context, List.of(new LineSplit(path, name, 0, 0)));
  }

  @Override
  public SplitEnumerator<LineSplit, Collection<LineSplit>> restoreEnumerator(
      SplitEnumeratorContext<LineSplit> context, Collection<LineSplit> checkpoint) {
    return new LineSplitEnumerator(context, checkpoint);
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
  }

  private static LineSplit read(DataInputDeserializer in) throws IOException {
    return new LineSplit(in.readUTF(), in.readUTF(), in.readLong(), in.readLong());
  }

  /** Version 1: path, name (UTF), offset, lines (long). */
  static final class SplitSerializer implements SimpleVersionedSerializer<LineSplit> {
    @Override
    public int getVersion() {
      return 1;
    }

    @Override
    public byte[] serialize(LineSplit split) throws IOException {
      DataOutputSerializer out = new DataOutputSerializer(64);
      write(out, split);
      return out.getCopyOfBuffer();
    }

    @Override
    public LineSplit deserialize(int version, byte[] bytes) throws IOException {
      if (version != 1) {
        throw new IOException("unknown line split version " + version + " (this build reads 1)");
      }
      return read(new DataInputDeserializer(bytes));
    }
  }

  /** Version 1: count (int), then the splits as {@link SplitSerializer} writes them. */
  static final class CheckpointSerializer implements SimpleVersionedSerializer<Collection<LineSplit>> {
    @Override
    public int getVersion() {
      return 1;
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
      if (version != 1) {
        throw new IOException("unknown line source checkpoint version " + version + " (this build reads 1)");
      }
      DataInputDeserializer in = new DataInputDeserializer(bytes);
      int n = in.readInt();
      List<LineSplit> splits = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        splits.add(read(in));
      }
      return splits;
    }
  }
}
