package io.urldedup.operators;

import io.urldedup.state.AgedSpec;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.InvalidSpecException;
import io.urldedup.state.Parameter;
import io.urldedup.state.UrlMapping;
import java.io.Serializable;
import java.util.Map;

/**
 * Everything a {@link DedupOperator} is built from. The spec, the mapping and the canonicalization
 * rule are checked against restored state; the rest changes how the operator runs and checkpoints,
 * never what its filters decide.
 *
 * @param spec each shard's filter
 * @param mapping seed fingerprint, shard count and canonicalization of this job, recorded in new
 *     headers and checked against restored ones
 * @param cachePages pages of 4 KiB per subtask, or {@link DedupOperator#AUTO_CACHE}: sized at open
 *     from the filter and the heap ({@link PageCacheSizing})
 * @param allowCanonicalizationChange accept restored state written with other canonicalization
 *     settings (logged as a warning) instead of refusing it
 * @param time aged filters with a time window: event or processing time (required for them, null
 *     for the others)
 * @param materializeEvery every this many checkpoints (by checkpoint id) each shard changed since
 *     its pages were last written has its pages and header written and its insert log dropped; at
 *     the other checkpoints only the shards' new insert log chunks are written (16 B per new URL).
 *     1: every checkpoint writes the changed pages and headers and no log exists (the state layout
 *     of builds before insert logs).
 * @param parameterNames what a restore refusal ({@link
 *     io.urldedup.state.IncompatibleStateException}) calls each parameter, e.g. the job's flag
 *     ({@code --fpr} for {@link Parameter#FPR}); the library's own name where it has none
 */
public record DedupSettings(
    FilterSpec spec,
    UrlMapping mapping,
    int cachePages,
    boolean allowCanonicalizationChange,
    GenerationTime time,
    int materializeEvery,
    Map<Parameter, String> parameterNames)
    implements Serializable {

  public static final int MAX_MATERIALIZE_EVERY = 1000;

  public DedupSettings {
    if (spec == null || mapping == null) {
      throw new IllegalArgumentException("a filter spec and a URL mapping are required");
    }
    if (cachePages != DedupOperator.AUTO_CACHE
        && (cachePages < 1 || cachePages > PageCache.MAX_PAGES)) {
      throw new IllegalArgumentException(
          "the page cache holds 1 to "
              + PageCache.MAX_PAGES
              + " pages of 4 KiB; got "
              + cachePages);
    }
    boolean timed = spec instanceof AgedSpec a && a.timed();
    if (timed && time == null) {
      throw new IllegalArgumentException(
          "an aged filter with a time window needs event or processing time");
    }
    time = timed ? time : null;
    if (materializeEvery < 1 || materializeEvery > MAX_MATERIALIZE_EVERY) {
      throw new InvalidSpecException(
          "{materializeEvery} takes 1 to "
              + MAX_MATERIALIZE_EVERY
              + " checkpoints; got "
              + materializeEvery);
    }
    parameterNames = Map.copyOf(parameterNames);
  }

  /**
   * {@code spec} under {@code mapping} with an automatic cache, canonicalization changes refused,
   * processing time for time windows, pages and headers at every checkpoint (no insert log: the
   * layout of builds before insert logs) and the library's parameter names. The job's defaults are
   * its flags'.
   */
  public static DedupSettings of(FilterSpec spec, UrlMapping mapping) {
    return new DedupSettings(
        spec,
        mapping,
        DedupOperator.AUTO_CACHE,
        false,
        GenerationTime.processingTime(),
        1,
        Map.of());
  }

  public DedupSettings withCachePages(int pages) {
    return new DedupSettings(
        spec, mapping, pages, allowCanonicalizationChange, time, materializeEvery, parameterNames);
  }

  public DedupSettings withCanonicalizationChangeAllowed(boolean allowed) {
    return new DedupSettings(
        spec, mapping, cachePages, allowed, time, materializeEvery, parameterNames);
  }

  public DedupSettings withTime(GenerationTime t) {
    return new DedupSettings(
        spec,
        mapping,
        cachePages,
        allowCanonicalizationChange,
        t,
        materializeEvery,
        parameterNames);
  }

  public DedupSettings withMaterializeEvery(int n) {
    return new DedupSettings(
        spec, mapping, cachePages, allowCanonicalizationChange, time, n, parameterNames);
  }

  public DedupSettings withParameterNames(Map<Parameter, String> names) {
    return new DedupSettings(
        spec, mapping, cachePages, allowCanonicalizationChange, time, materializeEvery, names);
  }

  /** Whether shards keep insert logs between materializations. */
  public boolean logged() {
    return materializeEvery > 1;
  }
}
