package io.urldedup.operators;

import io.urldedup.state.FilterHeader;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.IncompatibleStateException;
import io.urldedup.state.Parameter;
import io.urldedup.state.UrlMapping;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.runtime.execution.SuppressRestartsException;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether restored headers fit this job. A header built for other parameters, another seed, another
 * shard count or (unless allowed) other canonicalization settings fails the job at restore, without
 * restarts, with the {@link IncompatibleStateException} message, which names the flag; it never
 * silently answers "unseen" for old URLs. Headers of state that predates the shard count and
 * canonicalization fingerprint accept the current ones and record them when their shard is next
 * written.
 */
final class RestoredStateCheck {

  private static final Logger LOG = LoggerFactory.getLogger(RestoredStateCheck.class);

  private final FilterSpec spec;
  private final UrlMapping mapping;
  private final boolean allowCanonicalizationChange;
  private final Map<Parameter, String> names;

  /**
   * @param names what the refusal calls each parameter (the job's flags)
   */
  RestoredStateCheck(
      FilterSpec spec,
      UrlMapping mapping,
      boolean allowCanonicalizationChange,
      Map<Parameter, String> names) {
    this.spec = spec;
    this.mapping = mapping;
    this.allowCanonicalizationChange = allowCanonicalizationChange;
    this.names = names;
  }

  /**
   * Checks every restored header: the restore fails at once, not when the first record of an
   * incompatible shard arrives. An allowed canonicalization change is logged once per subtask (the
   * settings hold no seed).
   */
  void checkAll(KeyedStateBackend<Integer> backend, ValueStateDescriptor<FilterHeader> headers)
      throws Exception {
    Set<String> changes = new TreeSet<>();
    backend.applyToAllKeys(
        VoidNamespace.INSTANCE,
        VoidNamespaceSerializer.INSTANCE,
        headers,
        (key, state) -> {
          FilterHeader h = state.value();
          if (h != null) {
            check(h, key);
            String change = h.canonicalizationChange(mapping);
            if (change != null) {
              changes.add(change);
            }
          }
        });
    for (String change : changes) {
      LOG.warn(
          "restored state was written with other canonicalization settings ({});"
              + " --allow-canonicalization-change is given, so it is used anyway: URLs seen before the change"
              + " may be emitted once more, and the state now records the current settings",
          change);
    }
  }

  /**
   * Restarting cannot cure a mismatch, so the failure suppresses restarts: the job fails at once
   * with the message naming the flag instead of restarting in a loop.
   */
  void check(FilterHeader h, int shard) {
    try {
      h.checkCompatible(spec, mapping, allowCanonicalizationChange);
    } catch (IncompatibleStateException e) {
      throw new SuppressRestartsException(
          e.named("restored state of shard " + shard + " does not fit this job: ", names));
    }
  }
}
