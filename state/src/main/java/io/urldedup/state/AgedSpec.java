package io.urldedup.state;

/**
 * An aged filter per shard (Shtul et al. 2020): a URL is suppressed for a guaranteed window, of new
 * URLs or of time, then comes back. Exactly one of {@code windowUrls} and {@code windowMillis} is
 * set.
 *
 * @param fpr the false-positive rate over the window
 * @param windowUrls count window: new URLs of this shard during which a URL is suppressed
 * @param windowMillis time window: milliseconds during which a URL is suppressed
 * @param generations l, generations per window; 0 = chosen for a {@link AgedMath#DEFAULT_SLACK}
 *     slack
 * @param rate time window: planned new URLs per second for this shard (sizes the slices)
 */
public record AgedSpec(double fpr, long windowUrls, long windowMillis, int generations, double rate)
    implements FilterSpec {

  /** Largest generations: the slices of a row are the bits of a 64-bit mask (k >= 1). */
  public static final int MAX_GENERATIONS = AgedMath.MAX_SLICES - 1;

  public static final long MAX_WINDOW_MILLIS = 3650L * 24 * 3600 * 1000;

  public AgedSpec {
    FilterSpec.checkFpr(fpr);
    if ((windowUrls > 0) == (windowMillis > 0) || windowUrls < 0 || windowMillis < 0) {
      throw new InvalidSpecException(
          "an aged filter needs exactly one of {windowMillis} (a duration, e.g. 7d) or"
              + " {windowUrls} (new URLs, >= 1); got window "
              + windowMillis
              + " ms, window-urls "
              + windowUrls);
    }
    if (windowMillis > MAX_WINDOW_MILLIS) {
      throw new InvalidSpecException(
          "{windowMillis} must be at most 3650d; got " + windowMillis + " ms");
    }
    if (generations < 0 || generations > MAX_GENERATIONS) {
      throw new InvalidSpecException(
          "{generations} must be between 1 and "
              + MAX_GENERATIONS
              + " (or unset: chosen for a "
              + Math.round(AgedMath.DEFAULT_SLACK * 100)
              + "% slack); got "
              + generations);
    }
    if (windowMillis > 0 ? !(rate > 0 && rate < 1e12) : rate != 0) {
      throw new InvalidSpecException(
          windowMillis > 0
              ? "a time window ({windowMillis}) needs {rate} (URLs/s), the expected new URLs per"
                  + " second (> 0; sizes the slices); got "
                  + rate
              : "{rate} applies to time windows ({windowMillis}), not to {windowUrls}");
    }
    long bytes;
    try {
      bytes = geometry(fpr, windowUrls, windowMillis, generations, rate).bytes();
    } catch (InvalidSpecException noLayout) {
      throw noLayout;
    } catch (IllegalArgumentException beyondAnyLayout) {
      bytes = Long.MAX_VALUE;
    }
    if (bytes > MAX_MEMORY_BYTES) {
      throw new InvalidSpecException(
          "an aged filter of this window would need "
              + (bytes == Long.MAX_VALUE ? "far more than 1 TiB" : bytes + " bytes")
              + " per shard (the limit is 1 TiB): shorten the window, lower {rate}, raise {fpr}"
              + " or add {shards}");
    }
  }

  @Override
  public Kind kind() {
    return Kind.AGED;
  }

  /** Whether generations advance on time. */
  public boolean timed() {
    return windowMillis > 0;
  }

  /**
   * Time window: milliseconds per generation, ceil(window / l), so that l generations cover the
   * window.
   */
  public long generationMillis() {
    return generationMillis(fpr, windowMillis, generations);
  }

  /**
   * The concrete layout. Count window: g = ceil(window / l) inserts per generation, so l g >= the
   * window. Time window: g = ceil(rate x generation length), the planned inserts per generation;
   * reaching it early advances early.
   */
  public AgedMath.Geometry geometry() {
    return geometry(fpr, windowUrls, windowMillis, generations, rate);
  }

  @Override
  public FilterHeader newHeader(UrlMapping mapping) {
    return FilterHeader.aged(this, mapping, geometry(), timed() ? generationMillis() : 0);
  }

  // The record's fields are not assigned yet in its compact constructor: these work on values.

  private static long generationMillis(double fpr, long windowMillis, int generations) {
    int l = AgedMath.sizing(fpr, generations, AgedMath.DEFAULT_SLACK).l();
    return Math.max(1, (windowMillis + l - 1) / l);
  }

  private static AgedMath.Geometry geometry(
      double fpr, long windowUrls, long windowMillis, int generations, double rate) {
    int l = AgedMath.sizing(fpr, generations, AgedMath.DEFAULT_SLACK).l();
    long g =
        windowUrls > 0
            ? (windowUrls + l - 1) / l
            : Math.max(
                1,
                (long) Math.ceil(rate * generationMillis(fpr, windowMillis, generations) / 1000.0));
    return AgedMath.geometry(fpr, generations, AgedMath.DEFAULT_SLACK, g);
  }
}
