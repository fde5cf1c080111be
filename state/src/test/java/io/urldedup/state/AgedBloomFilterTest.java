package io.urldedup.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The aged filter against its guarantee (hard assertions) and its model ({@link AgedMath}), with
 * fixed seeds, for each row layout: layout 2 with rows of 4 cache lines (the default sizing's) and
 * of 2 lines, and layout 1 (a word per slice; state written before layout 2 still runs on it).
 * Tolerances: a measured share p over n independent trials has binomial sd sqrt(p (1 - p) / n); the
 * filter's rows add the spread of the run probability over row loads, which the model reports
 * ({@link AgedModel#runMoments}): a filter state averages it over its rows, and states R
 * generations apart share no slice, so the measurements carry about rows x generations / R
 * independent row samples. Bounds are 4 of those combined sds plus the model's own Monte Carlo
 * error (3 of its standard errors).
 */
class AgedBloomFilterTest {

  static final double EPS = 0.01;

  static AgedBloomFilter filter(AgedMath.Geometry g, boolean timed, HeapPageStore store) {
    return AgedBloomFilter.open(g, new AgedClock(), timed, store);
  }

  /**
   * Default sizing at 1%: the geometry the job uses when only --fpr and --window-urls are given.
   */
  static AgedMath.Geometry geometry(long g) {
    return AgedMath.geometry(EPS, 0, AgedMath.DEFAULT_SLACK, g);
  }

  /** Sizing at 1% for rows of {@code rowLines} cache lines (0: layout 1). */
  static AgedMath.Geometry geometry(long g, int rowLines) {
    return AgedMath.geometry(EPS, 0, AgedMath.DEFAULT_SLACK, g, rowLines);
  }

  /** The model's moments for the geometry, on the samples its sizing and reports use. */
  static double[] model(AgedMath.Geometry g, int heldFrom) {
    return AgedModel.runMoments(
        g.k(),
        g.l(),
        g.lambda(),
        g.segmentBits(),
        heldFrom,
        AgedMath.SAMPLES,
        AgedModel.seed(g.k(), g.l()));
  }

  /**
   * Hard: a stream of repeats and new URLs (half new, repeats drawn from the recent ones) through
   * testAndAdd; a URL answered unseen within l g inserts of its last emission would be a
   * re-emission inside the window. There must be none, ever; and a repeat inserts nothing.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 2, 0})
  void countWindowNeverReEmitsInsideTheWindow(int rowLines) {
    AgedMath.Geometry g = geometry(500, rowLines);
    AgedBloomFilter f = filter(g, false, new HeapPageStore());
    long window = g.guaranteedInserts();
    int ids = 400_000;
    long[] emittedAt = new long[ids];
    Arrays.fill(emittedAt, -1);
    SplittableRandom rnd = new SplittableRandom(13);
    int next = 0;
    long inside = 0;
    long repeatsInside = 0;
    for (int step = 0; step < 600_000; step++) {
      int id;
      if (next < 200 || rnd.nextBoolean()) {
        id = next++;
      } else {
        // ages up to 1.5 windows, so repeats land inside and outside the window
        id = Math.max(0, next - 1 - (int) rnd.nextLong(Math.min(next, (long) (1.5 * window * 2))));
      }
      if (id >= ids) {
        break;
      }
      long before = f.clock().inserts();
      boolean seen = f.testAndAdd(Keys.h1(3, id), Keys.h2(3, id));
      boolean within = emittedAt[id] >= 0 && before - emittedAt[id] <= window;
      if (within) {
        repeatsInside++;
        if (!seen) {
          inside++;
        }
      }
      if (seen) {
        assertEquals(before, f.clock().inserts(), "a repeat inserts nothing");
      } else {
        emittedAt[id] = before + 1;
      }
    }
    assertTrue(repeatsInside > 50_000, "the stream must test the window: " + repeatsInside);
    assertEquals(0, inside, "re-emissions inside the window of " + window + " new URLs");
  }

  /**
   * A stream of distinct URLs; at the end of every generation (just before the next shift, the
   * model's point):
   *
   * <ul>
   *   <li>hard: every URL of the last l generations is seen;
   *   <li>URLs inserted s = l+1 .. R-1 generations ago are still seen with the model's probability
   *       seenAfter(s), and at the forgotten-by point (1 + slack) x the window at least 99% are
   *       forgotten;
   *   <li>the FPR of fresh URLs matches the model.
   * </ul>
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 2, 0})
  void countWindowForgettingAndFprMatchTheModel(int rowLines) {
    AgedMath.Geometry g = geometry(5_000, rowLines);
    int k = g.k();
    int l = g.l();
    int r = g.slices();
    long gen = g.generationSize();
    AgedBloomFilter f = filter(g, false, new HeapPageStore());
    int generations = 3 * r;
    int probesPerGeneration = 4_000;
    long[] seen = new long[r + 1];
    long[] tried = new long[r + 1];
    long fp = 0;
    long probes = 0;
    int measured = 0;
    for (int gi = 0; gi < generations; gi++) {
      for (long j = 0; j < gen; j++) {
        long id = gi * gen + j;
        f.add(
            Keys.h1(4, id),
            Keys.h2(4, id)); // add: exactly g inserts per generation, as the model has
      }
      assertEquals(gi, f.clock().generation(), "one shift per full generation");
      // URLs inserted s generations ago (generation gi - s)
      for (int s = 0; s <= Math.min(gi, r); s++) {
        long from = (gi - s) * gen;
        long step =
            s <= l ? 7 : 1; // every URL where it is a statistic, a sample where it is a hard check
        for (long id = from; id < from + gen; id += step) {
          boolean in = f.mightContain(Keys.h1(4, id), Keys.h2(4, id));
          if (s <= l) {
            assertTrue(
                in,
                "URL of generation "
                    + (gi - s)
                    + " forgotten after "
                    + s
                    + " shifts (window "
                    + l
                    + ")");
          } else if (gi >= r) {
            tried[s]++;
            if (in) {
              seen[s]++;
            }
          }
        }
      }
      if (gi >= r) {
        measured++;
        for (long j = 0; j < probesPerGeneration; j++) {
          long id = gi * (long) probesPerGeneration + j;
          if (f.mightContain(Keys.h1(5, id), Keys.h2(5, id))) {
            fp++;
          }
          probes++;
        }
      }
    }
    double lambda = g.lambda();
    double independentRows = (double) g.rows() * measured / r;
    for (int s = l + 1; s < r; s++) {
      double[] model = model(g, s);
      double p = model[0];
      double measuredShare = (double) seen[s] / tried[s];
      double tol = tolerance(p, model[1], tried[s], independentRows);
      assertEquals(p, measuredShare, tol, "seen after " + s + " shifts (l = " + l + ")");
    }
    int by = g.forgottenByShifts();
    double forgotten = 1 - (double) seen[by] / tried[by];
    double[] atBy = model(g, by);
    assertTrue(
        forgotten
            >= AgedMath.FORGOTTEN_SHARE - tolerance(atBy[0], atBy[1], tried[by], independentRows),
        "forgotten after " + by + " shifts (window x " + (1 + g.slack()) + "): " + forgotten);

    double[] fprModel = model(g, 0);
    double fpr = (double) fp / probes;
    assertEquals(g.fpr(), fprModel[0], 1e-12, "the model's FPR is the geometry's");
    assertEquals(
        fprModel[0],
        fpr,
        tolerance(fprModel[0], fprModel[1], probes, independentRows),
        "FPR of fresh URLs");
    assertTrue(fprModel[0] <= EPS, "designed at or below --fpr");
  }

  /**
   * 4 sds of the measurement (binomial over the trials, plus the row-load spread over the
   * independent rows) + 3 standard errors of the model's Monte Carlo mean.
   */
  static double tolerance(double p, double spread, long trials, double independentRows) {
    double binomial = p * (1 - p) / trials;
    double rows = spread * spread / independentRows;
    double mc = spread / Math.sqrt(AgedMath.SAMPLES);
    return 4 * Math.sqrt(binomial + rows) + 3 * mc;
  }

  /**
   * Hard, time window below the planned rate: generations advance by time step (with gaps: idle
   * time skips steps), each step holds a random number of inserts up to the plan and repeats. A URL
   * emitted in step e is seen through step e + l; after step e + R it is gone (seen only as a false
   * positive).
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 2, 0})
  void timeWindowNeverReEmitsInsideTheWindow(int rowLines) {
    AgedMath.Geometry g = geometry(400, rowLines);
    AgedBloomFilter f = filter(g, true, new HeapPageStore());
    int l = g.l();
    int ids = 200_000;
    long[] emittedIn = new long[ids];
    Arrays.fill(emittedIn, Long.MIN_VALUE);
    SplittableRandom rnd = new SplittableRandom(17);
    int next = 0;
    long epoch = 1000;
    f.advanceToEpoch(epoch);
    long inside = 0;
    long repeatsInside = 0;
    long goneSeen = 0;
    long goneTried = 0;
    while (next < ids - 1000) {
      // at most g / 2 new URLs and as many repeats per step: inserts (new + forgotten repeats) <= g
      long news = rnd.nextLong(g.generationSize() / 2 + 1);
      for (long a = 0; a < 2 * news; a++) {
        int id;
        if (next < 10 || (a & 1) == 0) {
          id = next++;
        } else {
          id = next - 1 - (int) rnd.nextLong(Math.min(next, 3L * l * g.generationSize()));
        }
        boolean seen = f.testAndAdd(Keys.h1(6, id), Keys.h2(6, id));
        long age = epoch - emittedIn[id];
        if (emittedIn[id] != Long.MIN_VALUE && age <= l) {
          repeatsInside++;
          if (!seen) {
            inside++;
          }
        }
        if (emittedIn[id] != Long.MIN_VALUE && age >= g.slices()) {
          goneTried++;
          if (seen) {
            goneSeen++;
          }
        }
        if (!seen) {
          emittedIn[id] = epoch;
        }
      }
      epoch += rnd.nextInt(10) == 0 ? 1 + rnd.nextInt(3) : 1;
      f.advanceToEpoch(epoch);
    }
    assertEquals(0, f.clock().earlyAdvances(), "below the plan no generation fills up");
    assertTrue(repeatsInside > 20_000, "the stream must test the window: " + repeatsInside);
    assertEquals(0, inside, "re-emissions inside the window of " + l + " time steps");
    assertTrue(goneTried > 1000, "the stream must test forgetting: " + goneTried);
    // gone URLs come back except for false positives, at most the FPR (fills are below plan)
    double gone = (double) goneSeen / goneTried;
    assertTrue(gone <= EPS + 4 * Math.sqrt(EPS / goneTried), "still seen after R steps: " + gone);
  }

  /**
   * Rate 3x the plan: each time step brings 3 g new URLs; the filter advances early at every g, so
   * every generation is full and the FPR at every generation's end stays at the model's (designed
   * at or below --fpr). Two early advances per step are counted.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 2, 0})
  void earlyAdvanceKeepsTheFprAtTargetAtThreeTimesThePlannedRate(int rowLines) {
    AgedMath.Geometry g = geometry(2_000, rowLines);
    AgedBloomFilter f = filter(g, true, new HeapPageStore());
    int r = g.slices();
    long gen = g.generationSize();
    long epoch = 0;
    f.advanceToEpoch(epoch);
    long id = 0;
    long fp = 0;
    long probes = 0;
    long probe = 0;
    int steps = r + r / 2;
    int measured = 0;
    for (int e = 0; e < steps; e++) {
      for (int third = 0; third < 3; third++) {
        for (long j = 0; j < gen; j++, id++) {
          f.add(
              Keys.h1(7, id),
              Keys.h2(7, id)); // exactly g per generation: probes land at generation ends
        }
        if (f.clock().generation() >= r) {
          measured++;
          for (int j = 0; j < 3_000; j++, probe++) {
            if (f.mightContain(Keys.h1(8, probe), Keys.h2(8, probe))) {
              fp++;
            }
            probes++;
          }
        }
      }
      f.advanceToEpoch(++epoch);
    }
    assertEquals(2L * steps, f.clock().earlyAdvances(), "two early advances per time step");
    double[] model = model(g, 0);
    double fpr = (double) fp / probes;
    double tol = tolerance(model[0], model[1], probes, (double) g.rows() * measured / r);
    assertTrue(
        fpr <= model[0] + tol,
        "FPR at 3x the rate: " + fpr + " vs model " + model[0] + " +- " + tol);
    assertTrue(model[0] <= EPS);
  }

  /**
   * Advancing is O(1) and lazy: no page is touched; R shifts later nothing inserted is seen any
   * more.
   */
  @ParameterizedTest
  @ValueSource(ints = {4, 2, 0})
  void shiftingClearsLazilyWithoutTouchingPages(int rowLines) {
    AgedMath.Geometry g = geometry(1_000, rowLines);
    HeapPageStore store = new HeapPageStore();
    AgedBloomFilter f = filter(g, false, store);
    for (long i = 0; i < 1_000; i++) {
      f.testAndAdd(Keys.h1(9, i), Keys.h2(9, i));
    }
    long marks = store.dirtyMarks();
    f.shift(g.slices());
    assertEquals(marks, store.dirtyMarks(), "shifting writes nothing");
    for (long i = 0; i < 1_000; i++) {
      assertFalse(f.mightContain(Keys.h1(9, i), Keys.h2(9, i)), "key " + i + " after R shifts");
    }
    // a re-insert restamps and zeroes the page, and is seen again
    assertFalse(f.testAndAdd(Keys.h1(9, 0), Keys.h2(9, 0)));
    assertTrue(f.mightContain(Keys.h1(9, 0), Keys.h2(9, 0)));
  }

  /**
   * Column masks of the lazily cleared slices: the shifts to stamp+1 .. g recycle base(stamp+1) ..
   * base(g).
   */
  @Test
  void staleColumnsAreTheRecycledOnes() {
    AgedMath.Geometry g = new AgedMath.Geometry(3, 4, 10, 10);
    AgedBloomFilter f = filter(g, false, new HeapPageStore());
    int r = g.slices();
    for (long stamp = 0; stamp < 20; stamp++) {
      for (long now = stamp; now < stamp + 10; now++) {
        long expected = 0;
        for (long t = stamp + 1; t <= now; t++) {
          expected |= 1L << Math.floorMod(-t, r);
        }
        assertEquals(expected, f.staleColumns(stamp, now), "stamp " + stamp + " now " + now);
      }
    }
    AgedMath.Geometry wide = new AgedMath.Geometry(14, 50, 10, 10);
    AgedBloomFilter w = filter(wide, false, new HeapPageStore());
    assertEquals(-1L, w.staleColumns(0, 64));
    assertEquals(-1L, w.staleColumns(3, 100));
    assertEquals(1L << 63 | 1L << 62, w.staleColumns(0, 2), "64 slices: columns 63 and 62");
  }
}
