package io.urldedup.operators;

import io.urldedup.state.InvalidSpecException;
import io.urldedup.state.Parameter;
import java.io.Serializable;
import java.util.Map;

/**
 * How the dedup operator checkpoints its shards (runtime settings: they change what a checkpoint
 * writes, never what the filters decide, so they are not checked against restored state).
 *
 * @param materializeEvery every this many checkpoints (by checkpoint id) each shard changed since
 *     its pages were last written has its pages and header written and its insert log dropped; at
 *     the other checkpoints only the shards' new insert log chunks are written (16 B per new URL).
 *     1: every checkpoint writes the changed pages and headers and no log exists (the state layout
 *     of builds before insert logs).
 * @param parameterNames what a restore refusal ({@link
 *     io.urldedup.state.IncompatibleStateException}) calls each parameter, e.g. the job's flag
 *     ({@code --fpr} for {@link Parameter#FPR}); the library's own name where it has none
 */
public record DedupSettings(int materializeEvery, Map<Parameter, String> parameterNames)
    implements Serializable {

  public static final int MAX_MATERIALIZE_EVERY = 1000;

  /**
   * Pages and headers at every checkpoint, no insert log: the layout of builds before insert logs,
   * and what an operator built without settings does. The job's default is its {@code
   * --materialize-every} flag's.
   */
  public static final DedupSettings PAGES_AT_EVERY_CHECKPOINT = new DedupSettings(1);

  public DedupSettings {
    parameterNames = Map.copyOf(parameterNames);
    if (materializeEvery < 1 || materializeEvery > MAX_MATERIALIZE_EVERY) {
      throw new InvalidSpecException(
          "{materializeEvery} takes 1 to "
              + MAX_MATERIALIZE_EVERY
              + " checkpoints; got "
              + materializeEvery);
    }
  }

  /** Refusals name the library's parameters. */
  public DedupSettings(int materializeEvery) {
    this(materializeEvery, Map.of());
  }

  /** Whether shards keep insert logs between materializations. */
  public boolean logged() {
    return materializeEvery > 1;
  }
}
