package io.urldedup.jobbench;

import io.urldedup.operators.UrlRecord;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.StateTtlConfig;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The peer: what a Flink user writes today for exact dedup. Keyed by the canonical URL string, a
 * {@code ValueState<Boolean>} per URL with a TTL (so state does not grow forever); a URL is emitted
 * when its state is absent.
 */
final class ExactDedup extends KeyedProcessFunction<String, UrlRecord, UrlRecord> {

  private static final long serialVersionUID = 1L;

  private final Duration ttl;
  private transient ValueState<Boolean> seen;

  ExactDedup(Duration ttl) {
    this.ttl = ttl;
  }

  @Override
  public void open(OpenContext openContext) {
    ValueStateDescriptor<Boolean> d = new ValueStateDescriptor<>("seen", Types.BOOLEAN);
    d.enableTimeToLive(
        StateTtlConfig.newBuilder(ttl)
            .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)
            .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)
            .build());
    seen = getRuntimeContext().getState(d);
  }

  @Override
  public void processElement(UrlRecord r, Context ctx, Collector<UrlRecord> out) throws Exception {
    if (seen.value() == null) {
      seen.update(Boolean.TRUE);
      out.collect(r);
    } else if (r.force) {
      out.collect(r);
    }
  }
}
