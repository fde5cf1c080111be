package io.urldedup.operators;

import io.urldedup.state.FilterHeader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.runtime.state.KeyedStateBackend;
import org.apache.flink.runtime.state.VoidNamespace;
import org.apache.flink.runtime.state.VoidNamespaceSerializer;

/**
 * What an open operator's keyed state holds, read through its backend (not the open filters): the
 * tests compare it with the open headers and with reference state. Each read restores the key the
 * operator had selected, so the operator's own record of it stays true.
 */
final class StoredState {

  private StoredState() {}

  /** Copies of the headers in keyed state (not the open, possibly newer, ones). */
  static Map<Integer, FilterHeader> headers(DedupOperator op) throws Exception {
    Map<Integer, FilterHeader> out = new TreeMap<>();
    Object key = op.getCurrentKey();
    backend(op)
        .applyToAllKeys(
            VoidNamespace.INSTANCE,
            VoidNamespaceSerializer.INSTANCE,
            op.registeredHeaderDescriptor(),
            (k, state) -> out.put(k, state.value().copy()));
    restore(op, key);
    return out;
  }

  /** Copies of the pages in keyed state, by shard and page id. */
  static Map<Integer, Map<Long, long[]>> pages(DedupOperator op) throws Exception {
    Map<Integer, Map<Long, long[]>> out = new TreeMap<>();
    Object key = op.getCurrentKey();
    backend(op)
        .applyToAllKeys(
            VoidNamespace.INSTANCE,
            VoidNamespaceSerializer.INSTANCE,
            DedupOperator.pagesDescriptor(),
            (k, state) -> {
              Map<Long, long[]> pages = new TreeMap<>();
              for (Map.Entry<Long, long[]> e : state.entries()) {
                pages.put(e.getKey(), e.getValue().clone());
              }
              if (!pages.isEmpty()) {
                out.put(k, pages);
              }
            });
    restore(op, key);
    return out;
  }

  /** The log chunk keys in keyed state, by shard. */
  static Map<Integer, List<Long>> chunkKeys(DedupOperator op) throws Exception {
    Map<Integer, List<Long>> out = new TreeMap<>();
    Object key = op.getCurrentKey();
    backend(op)
        .applyToAllKeys(
            VoidNamespace.INSTANCE,
            VoidNamespaceSerializer.INSTANCE,
            DedupOperator.logDescriptor(),
            (k, state) -> {
              List<Long> keys = new ArrayList<>();
              state.keys().forEach(keys::add);
              if (!keys.isEmpty()) {
                keys.sort(null);
                out.put(k, keys);
              }
            });
    restore(op, key);
    return out;
  }

  private static KeyedStateBackend<Integer> backend(DedupOperator op) {
    return op.getKeyedStateBackend();
  }

  /** Back to the key the operator had; with none, its next switch selects a key anyway. */
  private static void restore(DedupOperator op, Object key) {
    if (key != null) {
      op.setCurrentKey(key);
    }
  }
}
