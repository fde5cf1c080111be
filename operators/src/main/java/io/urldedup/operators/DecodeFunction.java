package io.urldedup.operators;

import org.apache.flink.api.common.accumulators.LongCounter;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes raw records into canonical, hashed {@link UrlRecord}s (see {@link RecordDecoder}).
 * Invalid input goes to {@link #DEAD_LETTERS} with its original bytes and a reason; this function
 * never throws on input.
 *
 * <p>Metrics (group {@code urldedup}): counters {@code recordsIn}, {@code invalid} and {@code
 * invalid_<reason>}, with {@code LongCounter} accumulators of the same names prefixed {@code
 * urldedup.}.
 *
 * <p>Event time from JSON ({@link #DecodeFunction(DecodeConfig, boolean)}): records reach it
 * stamped by {@link JsonTimestampAssigner}; one without a valid {@code ts} is a dead letter {@link
 * RejectReason#BAD_TIMESTAMP} (after the URL checks: a record that is no JSON at all is {@code
 * not_json}).
 */
public class DecodeFunction extends ProcessFunction<RawRecord, UrlRecord> {

  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(DecodeFunction.class);

  public static final OutputTag<DeadLetter> DEAD_LETTERS =
      new OutputTag<>("dead-letters", TypeInformation.of(DeadLetter.class));

  public static final String METRIC_GROUP = "urldedup";

  private final DecodeConfig config;
  private final boolean eventTimeFromJson;

  private transient RecordDecoder decoder;
  private transient Counter recordsIn;
  private transient Counter invalid;
  private transient Counter[] invalidBy;
  private transient LongCounter recordsInAcc;
  private transient LongCounter invalidAcc;
  private transient LongCounter[] invalidByAcc;
  private transient boolean failureLogged;
  private transient boolean utf16Logged;
  private transient JsonTimestamp timestamps;

  public DecodeFunction(DecodeConfig config) {
    this(config, false);
  }

  /**
   * @param eventTimeFromJson records carry their JSON field {@code ts} as their timestamp ({@link
   *     JsonTimestampAssigner}); those without one are rejected as {@code bad_timestamp}
   */
  public DecodeFunction(DecodeConfig config, boolean eventTimeFromJson) {
    this.config = config;
    this.eventTimeFromJson = eventTimeFromJson;
  }

  @Override
  public void open(OpenContext openContext) throws Exception {
    decoder = new RecordDecoder(config);
    timestamps = new JsonTimestamp();
    RuntimeContext rc = getRuntimeContext();
    MetricGroup g = rc.getMetricGroup().addGroup(METRIC_GROUP);
    recordsIn = g.counter("recordsIn");
    invalid = g.counter("invalid");
    recordsInAcc = accumulator(rc, "recordsIn");
    invalidAcc = accumulator(rc, "invalid");
    RejectReason[] reasons = RejectReason.values();
    invalidBy = new Counter[reasons.length];
    invalidByAcc = new LongCounter[reasons.length];
    for (RejectReason r : reasons) {
      String name = "invalid_" + r.label();
      invalidBy[r.ordinal()] = g.counter(name);
      invalidByAcc[r.ordinal()] = accumulator(rc, name);
    }
  }

  private static LongCounter accumulator(RuntimeContext rc, String name) {
    LongCounter c = new LongCounter();
    rc.addAccumulator(METRIC_GROUP + "." + name, c);
    return c;
  }

  @Override
  public void processElement(RawRecord in, Context ctx, Collector<UrlRecord> out) {
    recordsIn.inc();
    recordsInAcc.add(1L);
    UrlRecord decoded;
    try {
      decoded = decoder.decode(in);
    } catch (UrlRejectedException e) {
      String detail = e.detail();
      if (Utf16Hint.looksLikeUtf16(in.value)) {
        detail += Utf16Hint.HINT;
        if (!utf16Logged) {
          // a UTF-16 file rejects every line: say why once where a user sees it (the CLI's stderr)
          utf16Logged = true;
          LOG.warn(
              "Record {} looks like UTF-16 text (a byte order mark, or NUL bytes in every other byte);"
                  + " urldedup reads UTF-8, so such records are dead letters: convert the input (iconv -f UTF-16"
                  + " -t UTF-8). Later ones are only marked in their dead-letter detail.",
              in.origin());
        }
      }
      reject(in, e.reason(), detail, ctx);
      return;
    } catch (RuntimeException e) {
      // a bug, not bad input: keep the record (dead letter) and the job alive; log it once
      if (!failureLogged) {
        failureLogged = true;
        LOG.warn(
            "Decoder failure on record {} (sent to dead letters as unparseable; later"
                + " failures are only counted)",
            in.origin(),
            e);
      }
      reject(in, RejectReason.UNPARSEABLE, "decoder failure: " + e, ctx);
      return;
    }
    if (eventTimeFromJson) {
      Long ts = ctx.timestamp();
      if (ts == null || ts == JsonTimestampAssigner.NO_TIMESTAMP) {
        String detail = "no event time assigned";
        try {
          timestamps.parse(in.value);
        } catch (UrlRejectedException e) {
          detail = e.detail();
        }
        reject(in, RejectReason.BAD_TIMESTAMP, detail, ctx);
        return;
      }
    }
    out.collect(decoded);
  }

  /** The value of counter {@code name} of this instance (for tests). */
  long counterValue(String name) {
    switch (name) {
      case "recordsIn":
        return recordsIn.getCount();
      case "invalid":
        return invalid.getCount();
      default:
        for (RejectReason r : RejectReason.values()) {
          if (name.equals("invalid_" + r.label())) {
            return invalidBy[r.ordinal()].getCount();
          }
        }
        throw new IllegalArgumentException("no counter " + name);
    }
  }

  private void reject(RawRecord in, RejectReason reason, String detail, Context ctx) {
    invalid.inc();
    invalidAcc.add(1L);
    invalidBy[reason.ordinal()].inc();
    invalidByAcc[reason.ordinal()].add(1L);
    ctx.output(
        DEAD_LETTERS, new DeadLetter(in.value, in.key, in.headers, reason, detail, in.origin()));
  }
}
