package io.urldedup.job;

import static io.urldedup.job.Command.RUN;

import io.urldedup.job.JobConfig.Mode;
import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.GenerationTime;
import io.urldedup.state.ByteSize;
import io.urldedup.state.FilterMath;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.PageStore;
import io.urldedup.state.ScalableSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.flink.util.TimeUtils;

/**
 * The rules that span flags, checked on the resolved settings before {@link FilterSpec} and {@link
 * DecodeConfig} are built (which check their own values): what a mode requires or refuses, flags of
 * another filter kind, totals that leave a shard too little or too much, the aged filter's window
 * flags. A message gives the flags as the user typed them (sizes in their total, a config file's
 * line) and says which numbers are per shard.
 */
final class CrossFlagChecks {

  private final JobConfig c;

  /** The values as typed, by flag name: a message repeats a size as given, not in bytes. */
  private final Map<String, String> typed;

  private CrossFlagChecks(JobConfig c, Map<String, String> typed) {
    this.c = c;
    this.typed = typed;
  }

  /** Throws a {@link ConfigException} for the first rule {@code c} breaks. */
  static void check(JobConfig c, Map<String, String> typed) {
    new CrossFlagChecks(c, typed).check();
  }

  private void check() {
    boolean requireIo = c.command.requiresIo;
    if (c.mode == Mode.KAFKA && c.isSet(Flags.STATE)) {
      throw new ConfigException(
          "--state is for the embedded mode; in Kafka mode keep state with --checkpoint-dir"
              + " and restore with flink run -s (bootstrap, inspect and probe read such savepoints)");
    }
    if (c.mode == Mode.KAFKA && requireIo) {
      for (Option<String> required :
          List.of(KafkaFlags.BOOTSTRAP_SERVERS, KafkaFlags.OUTPUT_TOPIC)) {
        if (c.get(required) == null || c.get(required).isEmpty()) {
          throw new ConfigException(required.flag() + " is required in Kafka mode");
        }
      }
      if (c.inputTopics.isEmpty()) {
        throw new ConfigException(KafkaFlags.INPUT_TOPIC.flag() + " is required in Kafka mode");
      }
      if (c.dlqTopic == null || c.dlqTopic.isEmpty()) {
        throw new ConfigException(
            "--dlq-topic is required in Kafka mode: a topic for rejected"
                + " records, or 'none' to only count them (they are then lost)");
      }
      for (Option<?> embeddedOnly : List.of(Flags.INPUT, Flags.OUTPUT, Flags.DLQ)) {
        if (c.isSet(embeddedOnly)) {
          throw new ConfigException(
              embeddedOnly.flag()
                  + " is for the embedded mode; in Kafka mode use "
                  + embeddedOnly.flag()
                  + "-topic");
        }
      }
      if (c.transactionTimeout.compareTo(c.checkpointInterval) <= 0) {
        throw new ConfigException(
            "--transaction-timeout ("
                + TimeUtils.formatWithHighestUnit(c.transactionTimeout)
                + ") must exceed --checkpoint-interval ("
                + TimeUtils.formatWithHighestUnit(c.checkpointInterval)
                + "): a transaction stays open for one checkpoint interval");
      }
    } else if (requireIo && (c.input == null || c.input.isEmpty())) {
      throw new ConfigException(
          c.command == RUN
              ? "--input PATH|- is required in embedded mode (or give the Kafka flags --bootstrap-servers,"
                  + " --input-topic, --output-topic, --dlq-topic)"
              : "--input FILE|- is required by " + c.command.word());
    }
    checkFilterFlags();
    if (c.filter == FilterSpec.Kind.STABLE) {
      checkPerShard(FilterFlags.MEMORY, c.memoryBytes);
    }
    if (c.filter == FilterSpec.Kind.SCALABLE) {
      checkPerShard(FilterFlags.MAX_MEMORY, c.maxMemoryBytes);
      checkFirstSlice();
    }
    if (c.parallelism > c.maxParallelism()) {
      throw new ConfigException(
          "--parallelism "
              + c.parallelism
              + " is above the max parallelism "
              + c.maxParallelism()
              + " (max(--shards, 128)): accepted: --parallelism 1 to "
              + c.maxParallelism()
              + ", or more --shards (a new"
              + " state only: --shards is fixed for the life of the state)");
    }
    if (c.filter == FilterSpec.Kind.AGED) {
      if ((c.window == null) == (c.windowUrls == 0)) {
        throw new ConfigException(
            "--filter aged needs exactly one of --window DURATION (e.g. 7d) or --window-urls N");
      }
      if (c.window != null && c.rate == 0) {
        throw new ConfigException(
            "--window needs --rate URLS/s, the expected new URLs per second in total"
                + " (it sizes the filter; ./urldedup plan shows the result)");
      }
      if (c.window == null
          && (c.isSet(FilterFlags.RATE) && c.command != Command.PLAN
              || c.isSet(FilterFlags.TIME)
              || c.isSet(FilterFlags.MAX_OUT_OF_ORDERNESS))) {
        throw new ConfigException(
            "--rate, --time and --max-out-of-orderness apply to time windows (--window);"
                + " --window-urls counts new URLs");
      }
      if (c.window != null
          && c.time == GenerationTime.Clock.EVENT
          && c.mode == Mode.EMBEDDED
          && c.format != DecodeConfig.Format.JSON) {
        throw new ConfigException(
            "--time event in embedded mode reads the event time from the JSON field ts"
                + " (epoch milliseconds or ISO-8601): give --format json, or --time processing (the default in"
                + " embedded mode)");
      }
      if (c.windowUrls > 0 && c.windowUrls < c.shards) {
        throw new ConfigException(
            "--window-urls "
                + c.windowUrls
                + " is below --shards "
                + c.shards
                + "; accepted: at least one new URL per shard");
      }
    }
  }

  /**
   * A flag of another filter kind would change nothing: refused, naming the kinds it is for and the
   * flags of this one (a --config file's keys count as given).
   */
  private void checkFilterFlags() {
    for (Option<?> o : Flags.OPTIONS) {
      // plan sizes a cluster for --rate records/s with any filter (ClusterShape)
      if (c.isSet(o)
          && !o.appliesTo(c.filter)
          && !(o == FilterFlags.RATE && c.command == Command.PLAN)) {
        String kind = c.filter.name().toLowerCase(Locale.ROOT);
        List<String> own = new ArrayList<>();
        for (Option<?> k : Flags.OPTIONS) {
          if (k.filterSpecific() && k.appliesTo(c.filter) && k.takenBy(c.command)) {
            own.add(k.flag());
          }
        }
        throw new ConfigException(
            flagAt(o)
                + " applies to --filter "
                + String.join(", ", o.filterWords())
                + " only, not to --filter "
                + kind
                + (c.isSet(FilterFlags.FILTER_KIND) ? "" : " (the default)")
                + "; --filter "
                + kind
                + " takes "
                + String.join(", ", own));
      }
    }
  }

  /** The flag, and the config file line it came from if it did. */
  private String flagAt(Option<?> o) {
    String at = c.origin(o);
    return at == null ? o.flag() : o.flag() + " (" + at + ")";
  }

  /**
   * Sizes are totals; each shard gets {@code total / shards}, which must be at least one page and
   * at most {@link FilterSpec#MAX_MEMORY_BYTES}. The message gives the flag's total and says which
   * number is per shard.
   */
  private void checkPerShard(Option<Long> flag, long total) {
    String given = flag.flag() + " " + asTyped(flag);
    long perShard = total / c.shards;
    if (perShard < FilterSpec.MIN_MEMORY_BYTES) {
      throw new ConfigException(
          given
              + " over --shards "
              + c.shards
              + " leaves "
              + perShard
              + " bytes per shard;"
              + " accepted: at least 4 KiB per shard ("
              + flag.flag()
              + " >= "
              + (FilterSpec.MIN_MEMORY_BYTES * c.shards)
              + " bytes in total, or fewer --shards)");
    }
    if (perShard > FilterSpec.MAX_MEMORY_BYTES) {
      throw new ConfigException(
          given
              + " over --shards "
              + c.shards
              + " is "
              + ByteSize.format(perShard)
              + " per shard; accepted: at most 1 TiB per shard ("
              + flag.flag()
              + " <= "
              + ByteSize.format(FilterSpec.MAX_MEMORY_BYTES * c.shards)
              + " in total, or more --shards)");
    }
  }

  /**
   * The scalable filter's first slice of each shard must fit in the shard's share of --max-memory.
   * Checked here, in the flags' totals, before {@link FilterSpec} checks it per shard.
   */
  private void checkFirstSlice() {
    if (c.capacity < c.shards) {
      throw new ConfigException(
          "--capacity "
              + c.capacity
              + " is below --shards "
              + c.shards
              + "; accepted: at least one URL per shard");
    }
    long perShard = c.capacity / c.shards;
    if (perShard > ScalableSpec.MAX_CAPACITY) {
      throw new ConfigException(
          "--capacity "
              + c.capacity
              + " over --shards "
              + c.shards
              + " is "
              + perShard
              + " URLs per shard; accepted: at most "
              + ScalableSpec.MAX_CAPACITY
              + " per shard (or more --shards)");
    }
    long first =
        FilterMath.blockedPages(perShard, c.fpr * (1 - c.tightening)) * (long) PageStore.PAGE_BYTES;
    long maxPerShard = c.maxMemoryBytes / c.shards;
    if (first > maxPerShard) {
      throw new ConfigException(
          "--max-memory "
              + asTyped(FilterFlags.MAX_MEMORY)
              + " over --shards "
              + c.shards
              + " is "
              + ByteSize.format(maxPerShard)
              + " per shard, less than the"
              + " first slice of a shard needs: "
              + ByteSize.format(first)
              + " per shard for --capacity "
              + c.capacity
              + " ("
              + perShard
              + " URLs per shard) at --fpr "
              + c.fpr
              + " x (1 - --tightening "
              + c.tightening
              + ");"
              + " accepted: --max-memory at least "
              + ByteSize.format(first * c.shards)
              + " in total ("
              + first * c.shards
              + " bytes), or a lower --capacity");
    }
  }

  /** The value of {@code flag} as the user typed it, or its default as {@code --help} shows it. */
  private String asTyped(Option<?> flag) {
    return typed.getOrDefault(flag.name(), flag.defaultText());
  }
}
