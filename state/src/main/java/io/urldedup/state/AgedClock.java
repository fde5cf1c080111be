package io.urldedup.state;

/**
 * The mutable, persisted counters of an aged filter: which generation it is in, how full that
 * generation is, and the time step a time window last advanced to. Persisted with the filter's
 * header, so a restore resumes the same generation and replays the same decisions.
 */
public final class AgedClock {

  /** No time step applied yet (count windows, or a time window before its first record). */
  public static final long NO_EPOCH = Long.MIN_VALUE;

  /**
   * Shifts since the filter was created; slice position 0 is column floorMod(-generation, k + l).
   */
  long generation;

  /** Inserts into the current generation. */
  long count;

  /** Time windows: the last time step (floor(time / generation length)) the filter advanced to. */
  long epoch = NO_EPOCH;

  /** Shifts taken because a generation reached its planned size before its time was up. */
  long earlyAdvances;

  /** URLs inserted (answered unseen, or forced) since the filter was created. */
  long inserts;

  public AgedClock() {}

  public AgedClock(long generation, long count, long epoch, long earlyAdvances, long inserts) {
    this.generation = generation;
    this.count = count;
    this.epoch = epoch;
    this.earlyAdvances = earlyAdvances;
    this.inserts = inserts;
  }

  public long generation() {
    return generation;
  }

  public long count() {
    return count;
  }

  public long epoch() {
    return epoch;
  }

  public long earlyAdvances() {
    return earlyAdvances;
  }

  public long inserts() {
    return inserts;
  }

  public AgedClock copy() {
    return new AgedClock(generation, count, epoch, earlyAdvances, inserts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AgedClock c
        && generation == c.generation
        && count == c.count
        && epoch == c.epoch
        && earlyAdvances == c.earlyAdvances
        && inserts == c.inserts;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(generation * 31 + count) ^ Long.hashCode(epoch) ^ Long.hashCode(inserts);
  }

  @Override
  public String toString() {
    return "generation="
        + generation
        + ", count="
        + count
        + ", epoch="
        + (epoch == NO_EPOCH ? "none" : epoch)
        + ", earlyAdvances="
        + earlyAdvances
        + ", inserts="
        + inserts;
  }
}
