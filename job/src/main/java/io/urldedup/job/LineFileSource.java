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
import org.apache.flink.api.connector.source.lib.util.IteratorSourceEnumerator;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceReader;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;

/**
 * The embedded mode's bounded source: one local file, one record per line, checkpointed as a byte
 * offset (so a run with checkpointing resumes where it was). One reader reads the file; the
 * decoder fans out after it.
 */
public final class LineFileSource
    implements Source<RawRecord, LineSplit, Collection<LineSplit>>, ResultTypeQueryable<RawRecord> {

  private final String path;
  private final String name;

  /** @param name what origins say instead of the path ({@code name:line}) */
  public LineFileSource(String path, String name) {
    this.path = path;
    this.name = name;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<RawRecord, LineSplit> createReader(SourceReaderContext context) {
    return new IteratorSourceReader<>(context);
  }

  @Override
  public SplitEnumerator<LineSplit, Collection<LineSplit>> createEnumerator(
      SplitEnumeratorContext<LineSplit> context) {
    return new IteratorSourceEnumerator<>(context, List.of(new LineSplit(path, name, 0, 0)));
  }

  @Override
  public SplitEnumerator<LineSplit, Collection<LineSplit>> restoreEnumerator(
      SplitEnumeratorContext<LineSplit> context, Collection<LineSplit> checkpoint) {
    return new IteratorSourceEnumerator<>(context, checkpoint);
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

  private static final class SplitSerializer implements SimpleVersionedSerializer<LineSplit> {
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
      return read(new DataInputDeserializer(bytes));
    }
  }

  private static final class CheckpointSerializer
      implements SimpleVersionedSerializer<Collection<LineSplit>> {
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
