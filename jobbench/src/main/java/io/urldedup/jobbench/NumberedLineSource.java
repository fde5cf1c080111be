package io.urldedup.jobbench;

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
 * The benchmark's bounded source: one file, one record per line, each record carrying its
 * 0-based line number in the header {@link #LINE_HEADER} (8 bytes, big endian), which the decoder
 * passes through to the sink, so the sink can check every emitted record against the truth file.
 * All jobs of a comparison read through this source, so its cost is the same in each.
 *
 * <p>Its reader notes the lines read at each checkpoint ({@link BenchProbe#linesAtCheckpoint}),
 * so a checkpoint's size can be divided by the unique URLs it covers.
 */
public final class NumberedLineSource
    implements Source<RawRecord, NumberedLineSplit, Collection<NumberedLineSplit>>,
        ResultTypeQueryable<RawRecord> {

  public static final String LINE_HEADER = "line";

  private final String path;

  public NumberedLineSource(String path) {
    this.path = path;
  }

  @Override
  public Boundedness getBoundedness() {
    return Boundedness.BOUNDED;
  }

  @Override
  public SourceReader<RawRecord, NumberedLineSplit> createReader(SourceReaderContext context) {
    return new IteratorSourceReader<>(context) {
      @Override
      public List<NumberedLineSplit> snapshotState(long checkpointId) {
        BenchProbe.linesAtCheckpoint.put(checkpointId, BenchProbe.linesRead);
        return super.snapshotState(checkpointId);
      }
    };
  }

  @Override
  public SplitEnumerator<NumberedLineSplit, Collection<NumberedLineSplit>> createEnumerator(
      SplitEnumeratorContext<NumberedLineSplit> context) {
    return new IteratorSourceEnumerator<>(context, List.of(new NumberedLineSplit(path, 0, 0)));
  }

  @Override
  public SplitEnumerator<NumberedLineSplit, Collection<NumberedLineSplit>> restoreEnumerator(
      SplitEnumeratorContext<NumberedLineSplit> context, Collection<NumberedLineSplit> checkpoint) {
    return new IteratorSourceEnumerator<>(context, checkpoint);
  }

  @Override
  public SimpleVersionedSerializer<NumberedLineSplit> getSplitSerializer() {
    return new SimpleVersionedSerializer<>() {
      @Override
      public int getVersion() {
        return 1;
      }

      @Override
      public byte[] serialize(NumberedLineSplit s) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        write(out, s);
        return out.getCopyOfBuffer();
      }

      @Override
      public NumberedLineSplit deserialize(int version, byte[] bytes) throws IOException {
        return read(new DataInputDeserializer(bytes));
      }
    };
  }

  @Override
  public SimpleVersionedSerializer<Collection<NumberedLineSplit>> getEnumeratorCheckpointSerializer() {
    return new SimpleVersionedSerializer<>() {
      @Override
      public int getVersion() {
        return 1;
      }

      @Override
      public byte[] serialize(Collection<NumberedLineSplit> splits) throws IOException {
        DataOutputSerializer out = new DataOutputSerializer(64);
        out.writeInt(splits.size());
        for (NumberedLineSplit s : splits) {
          write(out, s);
        }
        return out.getCopyOfBuffer();
      }

      @Override
      public Collection<NumberedLineSplit> deserialize(int version, byte[] bytes) throws IOException {
        DataInputDeserializer in = new DataInputDeserializer(bytes);
        int n = in.readInt();
        List<NumberedLineSplit> splits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          splits.add(read(in));
        }
        return splits;
      }
    };
  }

  @Override
  public TypeInformation<RawRecord> getProducedType() {
    return TypeInformation.of(RawRecord.class);
  }

  private static void write(DataOutputSerializer out, NumberedLineSplit s) throws IOException {
    out.writeUTF(s.path);
    out.writeLong(s.offset);
    out.writeLong(s.line);
  }

  private static NumberedLineSplit read(DataInputDeserializer in) throws IOException {
    return new NumberedLineSplit(in.readUTF(), in.readLong(), in.readLong());
  }
}
