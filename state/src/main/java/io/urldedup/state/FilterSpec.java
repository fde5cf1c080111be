package io.urldedup.state;

import java.io.Serializable;
import java.util.Locale;

/**
 * What a job asks for, per shard: one of three filter kinds with its targets. Each kind is a record
 * that validates its parameters on construction ({@link InvalidSpecException}, naming the {@link
 * Parameter}). {@link #newHeader(UrlMapping)} turns it into concrete parameters (cells, K, P,
 * slices) with the sizing math of {@link StableMath}, {@link ScalableMath} and {@link AgedMath}.
 *
 * <p>Two specs are compatible when they are equal ({@link #checkServes}), except for what {@link
 * FilterHeader#adopt} lets change.
 */
public sealed interface FilterSpec extends Serializable permits StableSpec, ScalableSpec, AgedSpec {

  enum Kind {
    STABLE,
    SCALABLE,
    AGED;

    /** The kind as the flags and reports write it: stable, scalable, aged. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** Smallest filter: one 4 KiB page. */
  long MIN_MEMORY_BYTES = PageStore.PAGE_BYTES;

  /** Largest filter per shard: 1 TiB (2^43 bits), far beyond 32-bit indices on purpose. */
  long MAX_MEMORY_BYTES = 1L << 40;

  double MIN_FPR = 1e-9;
  double MAX_FPR = 0.5;

  Kind kind();

  /**
   * Target false-positive rate: stable, the stable-point rate; scalable, the compound bound; aged,
   * the rate over the window.
   */
  double fpr();

  /** Concrete parameters for an empty filter written under {@code mapping}. */
  FilterHeader newHeader(UrlMapping mapping);

  /**
   * An empty filter that records only the seed fingerprint (no shard count, no canonicalization):
   * tools, tests.
   */
  default FilterHeader newHeader(long seedFingerprint) {
    return newHeader(UrlMapping.seedOnly(seedFingerprint));
  }

  /**
   * Throws {@link IncompatibleStateException} if a filter built from this spec (the state's) cannot
   * serve {@code now}: another kind or another parameter. Only the scalable {@code maxMemoryBytes}
   * may change (raising it lets the filter grow again, {@link FilterHeader#adopt}).
   */
  default void checkServes(FilterSpec now) {
    if (now.kind() != kind()) {
      throw new IncompatibleStateException(
          "state holds a "
              + kind().label()
              + " filter but {kind} is "
              + now.kind().label()
              + "; restore with {kind} "
              + kind().label()
              + " or start from empty state");
    }
    Differences diff = new Differences().add(Parameter.FPR, fpr(), now.fpr());
    if (this instanceof StableSpec s && now instanceof StableSpec n) {
      diff.add(Parameter.MEMORY_BYTES, s.memoryBytes(), n.memoryBytes())
          .add(Parameter.CELL_BITS, s.cellBits(), n.cellBits());
    } else if (this instanceof ScalableSpec s && now instanceof ScalableSpec n) {
      diff.add(Parameter.CAPACITY, s.capacity(), n.capacity())
          .add(Parameter.GROWTH, s.growth(), n.growth())
          .add(Parameter.TIGHTENING, s.tightening(), n.tightening());
    } else if (this instanceof AgedSpec s && now instanceof AgedSpec n) {
      diff.add(Parameter.WINDOW_URLS, " (per shard)", s.windowUrls(), n.windowUrls())
          .add(Parameter.WINDOW_MILLIS, " (ms)", s.windowMillis(), n.windowMillis())
          .add(Parameter.GENERATIONS, s.generations(), n.generations())
          .add(Parameter.RATE, " (per shard)", s.rate(), n.rate());
    }
    if (!diff.isEmpty()) {
      throw new IncompatibleStateException(
          "state was written with different filter parameters ("
              + diff
              + "); restore with the original values or start from empty state");
    }
  }

  /** A stable Bloom filter of {@code memoryBytes} per shard with d-bit cells at stable FPR. */
  static StableSpec stable(double fpr, long memoryBytes, int cellBits) {
    return new StableSpec(fpr, memoryBytes, cellBits);
  }

  /**
   * A scalable Bloom filter per shard: compound FPR bound {@code fpr}, first slice {@code
   * capacity}.
   */
  static ScalableSpec scalable(
      double fpr, long capacity, int growth, double tightening, long maxMemoryBytes) {
    return new ScalableSpec(fpr, capacity, growth, tightening, maxMemoryBytes);
  }

  /** An aged filter over a window of {@code windowUrls} new URLs of this shard. */
  static AgedSpec agedCount(double fpr, long windowUrls, int generations) {
    return new AgedSpec(fpr, windowUrls, 0, generations, 0);
  }

  /**
   * An aged filter over a time window, sized for {@code rate} new URLs per second of this shard.
   */
  static AgedSpec agedTime(double fpr, long windowMillis, int generations, double rate) {
    return new AgedSpec(fpr, 0, windowMillis, generations, rate);
  }

  /** The check every kind shares. */
  static void checkFpr(double fpr) {
    if (!(fpr >= MIN_FPR && fpr < MAX_FPR)) {
      throw new InvalidSpecException(
          String.format(
              Locale.ROOT,
              "{fpr} must be a false-positive rate in [%s, %s), e.g. 0.01 or 1e-6; got %s",
              MIN_FPR,
              MAX_FPR,
              fpr));
    }
  }
}
