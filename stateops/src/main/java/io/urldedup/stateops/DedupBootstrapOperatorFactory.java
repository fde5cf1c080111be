package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.UrlRecord;
import org.apache.flink.core.fs.Path;
import org.apache.flink.runtime.event.WatermarkEvent;
import org.apache.flink.state.api.output.TaggedOperatorSubtaskState;
import org.apache.flink.streaming.api.operators.AbstractStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.OneInputStreamOperatorFactory;
import org.apache.flink.streaming.api.operators.Output;
import org.apache.flink.streaming.api.operators.SimpleOperatorFactory;
import org.apache.flink.streaming.api.operators.StreamOperator;
import org.apache.flink.streaming.api.operators.StreamOperatorParameters;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.RecordAttributes;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;
import org.apache.flink.util.OutputTag;

/**
 * Creates {@link DedupBootstrapOperator}s: sets up a copy of the job's operator (through {@link
 * SimpleOperatorFactory}, which may call its protected setup) with an output that drops records.
 */
final class DedupBootstrapOperatorFactory extends AbstractStreamOperatorFactory<TaggedOperatorSubtaskState>
    implements OneInputStreamOperatorFactory<HashedUrl, TaggedOperatorSubtaskState> {

  private static final long serialVersionUID = 1L;

  private final DedupOperator prototype;
  private final long checkpointId;
  private final long timestamp;
  private final Path savepointPath;

  DedupBootstrapOperatorFactory(DedupOperator prototype, long checkpointId, long timestamp, Path savepointPath) {
    this.prototype = prototype;
    this.checkpointId = checkpointId;
    this.timestamp = timestamp;
    this.savepointPath = savepointPath;
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T extends StreamOperator<TaggedOperatorSubtaskState>> T createStreamOperator(
      StreamOperatorParameters<TaggedOperatorSubtaskState> p) {
    StreamOperatorParameters<UrlRecord> inner = new StreamOperatorParameters<>(p.getContainingTask(),
        p.getStreamConfig(), new Dropping<>(), p::getProcessingTimeService, p.getOperatorEventDispatcher(),
        p.getMailboxExecutor());
    DedupOperator op = SimpleOperatorFactory.of(prototype).createStreamOperator(inner);
    return (T) new DedupBootstrapOperator(op, checkpointId, timestamp, savepointPath, p.getOutput());
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Class<? extends StreamOperator> getStreamOperatorClass(ClassLoader classLoader) {
    return DedupBootstrapOperator.class;
  }

  /** The unseen URLs a bootstrap does not emit. */
  private static final class Dropping<T> implements Output<T> {
    @Override
    public void emitWatermark(Watermark mark) {}

    @Override
    public void emitWatermarkStatus(WatermarkStatus status) {}

    @Override
    public <X> void collect(OutputTag<X> tag, StreamRecord<X> record) {}

    @Override
    public void emitLatencyMarker(LatencyMarker marker) {}

    @Override
    public void emitRecordAttributes(RecordAttributes attributes) {}

    @Override
    public void emitWatermark(WatermarkEvent watermark) {}

    @Override
    public void collect(T record) {}

    @Override
    public void close() {}
  }
}
