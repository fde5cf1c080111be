package io.urldedup.operators;

import org.apache.flink.api.common.eventtime.TimestampAssigner;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;

/**
 * Event time from the JSON field {@code ts} ({@link JsonTimestamp}), assigned at the source (the
 * embedded mode's files carry no record timestamps). A record without a valid {@code ts} gets
 * {@link #NO_TIMESTAMP}; {@link DecodeFunction} turns it into a dead letter {@code bad_timestamp}
 * (an assigner cannot reject a record), and the watermark ignores it (its generator takes the
 * maximum).
 */
public final class JsonTimestampAssigner implements TimestampAssigner<RawRecord> {

  /** What a record without a valid {@code ts} is stamped with. */
  public static final long NO_TIMESTAMP = Long.MIN_VALUE;

  private final JsonTimestamp parser = new JsonTimestamp();

  @Override
  public long extractTimestamp(RawRecord element, long recordTimestamp) {
    try {
      return parser.parse(element.value);
    } catch (UrlRejectedException e) {
      return NO_TIMESTAMP;
    }
  }

  /** Bounded-out-of-orderness watermarks over the {@code ts} event time. */
  public static WatermarkStrategy<RawRecord> watermarks(java.time.Duration maxOutOfOrderness) {
    return WatermarkStrategy.<RawRecord>forBoundedOutOfOrderness(maxOutOfOrderness)
        .withTimestampAssigner(context -> new JsonTimestampAssigner());
  }
}
