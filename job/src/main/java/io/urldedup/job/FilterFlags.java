package io.urldedup.job;

import static io.urldedup.job.Command.BOOTSTRAP;
import static io.urldedup.job.Command.RUN;
import static io.urldedup.state.FilterSpec.Kind.AGED;
import static io.urldedup.state.FilterSpec.Kind.SCALABLE;
import static io.urldedup.state.FilterSpec.Kind.STABLE;

import io.urldedup.operators.GenerationTime;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.Parameter;
import io.urldedup.state.ScalableSpec;
import io.urldedup.state.StableSpec;
import java.time.Duration;

/**
 * The filter flags: kind, false-positive rate and each kind's sizes and window (totals over the
 * shards; the job divides them). Each that sets a library {@link io.urldedup.state.Parameter} says
 * so, so that the library's messages are said as these flags. Declared as {@link Flags} explains.
 */
public final class FilterFlags {

  public static final Option<FilterSpec.Kind> FILTER_KIND =
      Option.choice("filter", FilterSpec.Kind.class)
          .sets(Parameter.KIND)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .defaultValue("scalable")
          .help(
              "stable: fixed memory, forgets old URLs (they come back for recrawl);"
                  + " scalable: never re-emits a URL, memory grows with distinct URLs;"
                  + " aged: suppresses a URL for a window (--window or --window-urls), then lets it come back.");
  public static final Option<Double> FPR =
      Option.decimal(
              "fpr",
              "RATE",
              d -> d >= FilterSpec.MIN_FPR && d < FilterSpec.MAX_FPR,
              "a rate from "
                  + FilterSpec.MIN_FPR
                  + " up to (not including) "
                  + FilterSpec.MAX_FPR
                  + ", e.g. 0.01 or 1e-6")
          .sets(Parameter.FPR)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .defaultValue("0.01")
          .help(
              "Target false-positive rate, 1e-9 <= RATE < 0.5 (a false positive is a page never"
                  + " crawled).");
  public static final Option<Long> MEMORY =
      Option.size("memory", 1, "")
          .sets(Parameter.MEMORY_BYTES)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(STABLE)
          .defaultValue("128m")
          .help("stable: total filter memory, e.g. 64m, 1g.");
  public static final Option<Integer> CELL_BITS =
      Option.integer(
              "cell-bits",
              StableSpec.MIN_CELL_BITS + ".." + StableSpec.MAX_CELL_BITS,
              StableSpec.MIN_CELL_BITS,
              StableSpec.MAX_CELL_BITS)
          .sets(Parameter.CELL_BITS)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(STABLE)
          .defaultValue("2")
          .help("stable: bits per cell d (Max = 2^d - 1).");
  public static final Option<Long> CAPACITY =
      Option.atLeast("capacity", "N", 1)
          .sets(Parameter.CAPACITY)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(SCALABLE)
          .defaultValue("1000000")
          .help("scalable: total URLs the first slices hold at their error.");
  public static final Option<Integer> GROWTH =
      Option.integer(
              "growth",
              ScalableSpec.MIN_GROWTH + ".." + ScalableSpec.MAX_GROWTH,
              ScalableSpec.MIN_GROWTH,
              ScalableSpec.MAX_GROWTH)
          .sets(Parameter.GROWTH)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(SCALABLE)
          .defaultValue("2")
          .help("scalable: each new slice is this many times larger.");
  public static final Option<Double> TIGHTENING =
      Option.decimal(
              "tightening",
              "RATIO",
              d -> d > 0 && d < 1,
              "a number strictly between 0 and 1, e.g. 0.01")
          .sets(Parameter.TIGHTENING)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(SCALABLE)
          .defaultValue("0.5")
          .help("scalable: each new slice's error is this times the previous, 0 < RATIO < 1.");
  public static final Option<Long> MAX_MEMORY =
      Option.size("max-memory", 1, "")
          .sets(Parameter.MAX_MEMORY_BYTES)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(SCALABLE)
          .defaultValue("1g")
          .help("scalable: hard cap on total filter memory.");
  public static final Option<Duration> WINDOW =
      Option.duration(
              "window",
              Duration.ofSeconds(1),
              Duration.ofDays(3650),
              "between 1s and 3650d, e.g. 7d")
          .sets(Parameter.WINDOW_MILLIS)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(AGED)
          .help(
              "aged: a URL is not emitted again for this long after it was emitted (time window, e.g."
                  + " 7d); needs --rate.");
  public static final Option<Long> WINDOW_URLS =
      Option.atLeast("window-urls", "N", 1)
          .sets(Parameter.WINDOW_URLS)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(AGED)
          .help(
              "aged: a URL is not emitted again until N new URLs have been emitted after it (count"
                  + " window; per shard N / --shards of them).");
  public static final Option<Integer> GENERATIONS =
      Option.integer("generations", "1.." + AgedSpec.MAX_GENERATIONS, 1, AgedSpec.MAX_GENERATIONS)
          .sets(Parameter.GENERATIONS)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(AGED)
          .describedDefault("chosen for a 10% slack (see plan)")
          .help(
              "aged: l, the window's generations; more generations forget more sharply after the window.");
  public static final Option<Double> RATE =
      Option.decimal(
              "rate",
              "URLS/s",
              d -> d > 0 && d < 1e12,
              "a positive number of new URLs per second, e.g. 500")
          .sets(Parameter.RATE)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(AGED)
          .help(
              "aged, --window: expected new URLs per second in total; sizes the slices. A faster"
                  + " crawl advances generations early (the FPR holds, the window shrinks). plan, any filter:"
                  + " the records/s to size the cluster for (slots, checkpoint MB/s, restore time).");
  public static final Option<GenerationTime.Clock> TIME =
      Option.choice("time", GenerationTime.Clock.class)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(AGED)
          .describedDefault("event in Kafka mode, processing in embedded mode")
          .help(
              "aged, --window: event: the Kafka record timestamp (embedded mode: the JSON field ts, epoch"
                  + " millis or ISO-8601; without one a record is a dead letter bad_timestamp), with a"
                  + " bounded-out-of-orderness watermark; processing: the TaskManager clock.");
  public static final Option<Duration> MAX_OUT_OF_ORDERNESS =
      Option.duration(
              "max-out-of-orderness",
              Duration.ofMillis(1),
              Duration.ofDays(1),
              "between 1ms and 1d, e.g. 1min")
          .sets(Parameter.MAX_OUT_OF_ORDERNESS)
          .in(Flags.FILTER)
          .forCommands(RUN, BOOTSTRAP)
          .forFilters(AGED)
          .defaultValue("1min")
          .help("aged, event time: how late a record may arrive (the watermark's bound).");

  private FilterFlags() {}
}
