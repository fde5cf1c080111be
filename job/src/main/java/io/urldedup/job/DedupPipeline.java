package io.urldedup.job;

import io.urldedup.operators.DeadLetter;
import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.DecodeFunction;
import io.urldedup.operators.DedupOperator;
import io.urldedup.operators.DedupSettings;
import io.urldedup.operators.GenerationTime;
import io.urldedup.operators.JsonTimestampAssigner;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.UrlRecord;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;

/**
 * The data path, with source and sinks as parameters (Kafka in production, files in the embedded
 * mode, anything in tests):
 *
 * <pre>
 *   RawRecord -> decode (dead letters to a side output) -> keyBy(shard) -> dedup -> out
 *                                                     \-> dlq
 * </pre>
 *
 * <p>The uids are stable so that savepoints keep mapping onto the operators.
 */
public final class DedupPipeline {

  public static final String UID_DECODE = "decode";
  public static final String UID_DEDUP = DedupOperator.UID;
  public static final String UID_SOURCE = "kafka-source";
  public static final String UID_SINK = "kafka-sink";
  public static final String UID_DLQ = "dlq-sink";

  /** The sink handles, so a caller can set their parallelism (file sinks need one writer). */
  public record Sinks(DataStreamSink<UrlRecord> out, DataStreamSink<DeadLetter> dlq) {}

  private DedupPipeline() {}

  /**
   * What the graph needs besides its source and sinks, built once from the flags by {@link
   * JobConfig#pipeline()}.
   *
   * @param decode decoding and canonicalization; also the state's {@link DecodeConfig#urlMapping()}
   *     (seed fingerprint, shards, canonicalization fingerprint)
   * @param eventTimeFromJson the source stamps records with their JSON field {@code ts} ({@link
   *     io.urldedup.operators.JsonTimestampAssigner}, embedded mode, {@code --time event}); records
   *     without a valid one become dead letters {@code bad_timestamp}
   * @param dedup the dedup operator's filter, cache, time and checkpoints
   */
  public record Settings(DecodeConfig decode, boolean eventTimeFromJson, DedupSettings dedup) {

    /**
     * The source's watermarks, the one place they are chosen: event-time aged filters get a
     * bounded-out-of-orderness watermark over the record time (the JSON field {@code ts} in
     * embedded mode, the Kafka record timestamp in Kafka mode) for their generation timers; every
     * other job none.
     */
    public WatermarkStrategy<RawRecord> watermarks() {
      GenerationTime time = dedup.time();
      if (time == null || !time.event()) {
        return WatermarkStrategy.noWatermarks();
      }
      Duration maxOutOfOrderness = Duration.ofMillis(time.maxOutOfOrdernessMillis());
      return eventTimeFromJson
          ? JsonTimestampAssigner.watermarks(maxOutOfOrderness)
          : WatermarkStrategy.forBoundedOutOfOrderness(maxOutOfOrderness);
    }
  }

  /**
   * @param dlqSink null: dead letters are only counted (the decoder's accumulators)
   */
  public static Sinks build(
      DataStream<RawRecord> source,
      Sink<UrlRecord> outSink,
      Sink<DeadLetter> dlqSink,
      Settings settings) {
    SingleOutputStreamOperator<UrlRecord> decoded = decode(source, settings);
    DataStreamSink<UrlRecord> out =
        dedup(decoded, settings).sinkTo(outSink).uid(UID_SINK).name("output");
    DataStreamSink<DeadLetter> dlq = null;
    if (dlqSink != null) {
      dlq =
          decoded
              .getSideOutput(DecodeFunction.DEAD_LETTERS)
              .sinkTo(dlqSink)
              .uid(UID_DLQ)
              .name("dead letters");
    }
    return new Sinks(out, dlq);
  }

  /** The decode step; its dead letters are the side output {@link DecodeFunction#DEAD_LETTERS}. */
  public static SingleOutputStreamOperator<UrlRecord> decode(
      DataStream<RawRecord> source, Settings settings) {
    return source
        .process(
            new DecodeFunction(settings.decode(), settings.eventTimeFromJson()),
            TypeInformation.of(UrlRecord.class))
        .uid(UID_DECODE)
        .name("decode")
        // chained to the source: records of one partition (or file) stay in order, so the first
        // occurrence of a URL is the one emitted
        .setParallelism(source.getParallelism());
  }

  /** The keyed dedup step over decoded records (benchmarks put their own decode in front). */
  public static SingleOutputStreamOperator<UrlRecord> dedup(
      DataStream<UrlRecord> decoded, Settings settings) {
    return decoded
        .keyBy(new ShardKey(), Types.INT)
        .transform(
            "dedup", TypeInformation.of(UrlRecord.class), new DedupOperator(settings.dedup()))
        .uid(UID_DEDUP);
  }

  /** keyBy on the precomputed shard: the filter key is never re-hashed from the URL. */
  public static final class ShardKey implements KeySelector<UrlRecord, Integer> {
    @Override
    public Integer getKey(UrlRecord r) {
      return r.shard;
    }
  }
}
