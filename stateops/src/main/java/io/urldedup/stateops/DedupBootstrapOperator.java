package io.urldedup.stateops;

import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.UrlRecord;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.Path;
import org.apache.flink.metrics.groups.OperatorMetricGroup;
import org.apache.flink.runtime.checkpoint.CheckpointOptions;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.CheckpointStreamFactory;
import org.apache.flink.state.api.output.SnapshotUtils;
import org.apache.flink.state.api.output.TaggedOperatorSubtaskState;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.operators.OperatorSnapshotFutures;
import org.apache.flink.streaming.api.operators.StreamTaskStateInitializer;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.LatencyMarker;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.runtime.watermarkstatus.WatermarkStatus;

/**
 * The real {@link DedupOperator}, run by the State Processor API over a bounded input and
 * snapshotted at its end (as Flink's own StateBootstrapWrapperOperator does for window
 * operators): the savepoint holds exactly the state the job's operator leaves after the same
 * records in the same order per shard, because it is that operator. Its output (the unseen URLs)
 * is counted and dropped.
 */
final class DedupBootstrapOperator
    implements OneInputStreamOperator<HashedUrl, TaggedOperatorSubtaskState>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  private final DedupOperator operator;
  private final long checkpointId;
  private final long timestamp;
  private final Path savepointPath;
  private final org.apache.flink.streaming.api.operators.Output<StreamRecord<TaggedOperatorSubtaskState>> output;
  private final UrlRecord record = new UrlRecord();
  private final StreamRecord<UrlRecord> element = new StreamRecord<>(record);

  DedupBootstrapOperator(DedupOperator operator, long checkpointId, long timestamp, Path savepointPath,
      org.apache.flink.streaming.api.operators.Output<StreamRecord<TaggedOperatorSubtaskState>> output) {
    this.operator = operator;
    this.checkpointId = checkpointId;
    this.timestamp = timestamp;
    this.savepointPath = savepointPath;
    this.output = output;
  }

  @Override
  public void processElement(StreamRecord<HashedUrl> in) throws Exception {
    HashedUrl u = in.getValue();
    record.shard = u.shard;
    record.h1 = u.h1;
    record.h2 = u.h2;
    record.force = u.force;
    operator.processElement(element);
  }

  @Override
  public void endInput() throws Exception {
    Configuration jobConf = operator.getContainingTask().getJobConfiguration();
    TaggedOperatorSubtaskState state = SnapshotUtils.snapshot(
        checkpointId,
        this,
        operator.getContainingTask().getEnvironment().getTaskInfo().getIndexOfThisSubtask(),
        timestamp,
        CheckpointingOptions.getCheckpointingMode(jobConf),
        CheckpointingOptions.isUnalignedCheckpointEnabled(jobConf),
        operator.getContainingTask().getConfiguration().getConfiguration(),
        savepointPath);
    output.collect(new StreamRecord<>(state));
  }

  @Override
  public void processWatermark(Watermark mark) throws Exception {
    operator.processWatermark(mark);
  }

  @Override
  public void processWatermarkStatus(WatermarkStatus status) throws Exception {
    operator.processWatermarkStatus(status);
  }

  @Override
  public void processLatencyMarker(LatencyMarker marker) throws Exception {
    operator.processLatencyMarker(marker);
  }

  @Override
  public void setKeyContextElement(StreamRecord<HashedUrl> in) throws Exception {
    operator.setKeyContextElement1(in);
  }

  @Override
  public void open() throws Exception {
    operator.open();
  }

  @Override
  public void finish() throws Exception {
    operator.finish();
  }

  @Override
  public void close() throws Exception {
    operator.close();
  }

  @Override
  public void prepareSnapshotPreBarrier(long id) throws Exception {
    operator.prepareSnapshotPreBarrier(id);
  }

  @Override
  public OperatorSnapshotFutures snapshotState(long id, long ts, CheckpointOptions options,
      CheckpointStreamFactory storage) throws Exception {
    return operator.snapshotState(id, ts, options, storage);
  }

  @Override
  public void initializeState(StreamTaskStateInitializer initializer) throws Exception {
    operator.initializeState(initializer);
  }

  @Override
  public void setKeyContextElement1(StreamRecord<?> in) throws Exception {
    operator.setKeyContextElement1(in);
  }

  @Override
  public void setKeyContextElement2(StreamRecord<?> in) throws Exception {
    operator.setKeyContextElement2(in);
  }

  @Override
  public OperatorMetricGroup getMetricGroup() {
    return operator.getMetricGroup();
  }

  @Override
  public OperatorID getOperatorID() {
    return operator.getOperatorID();
  }

  @Override
  public void notifyCheckpointComplete(long id) throws Exception {
    operator.notifyCheckpointComplete(id);
  }

  @Override
  public void setCurrentKey(Object key) {
    operator.setCurrentKey(key);
  }

  @Override
  public Object getCurrentKey() {
    return operator.getCurrentKey();
  }
}
