package io.urldedup.stateops;

import io.urldedup.operators.DedupDecision;
import io.urldedup.operators.DedupMetrics;
import io.urldedup.state.AgedSpec;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.HeapPageStore;
import io.urldedup.state.UrlMapping;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.BoundedOneInput;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The bootstrap's filters: each shard's filter on heap pages, fed its URLs in input order with the
 * dedup operator's own decision ({@link DedupDecision}: the same new header, the same testAndAdd or
 * forced add), so at the end of the input every shard holds exactly the header and pages a run over
 * the same records leaves in state. Then it emits each shard as its header and its pages ({@link
 * ShardPage}) for the State Processor API to write under the operator's uid.
 *
 * <p>Why not the dedup operator itself inside the State Processor API's bootstrap task: that task
 * runs on its own thread behind a 16-element blocking queue ({@code BootstrapStreamTaskRunner} in
 * flink-state-processor-api 2.2.0), a thread handoff per URL, and its keyed input is sorted by key
 * in batch mode. Here the input is partitioned by shard without a sort and handled on the task
 * thread; only the pages (4 KiB each) go through the handoff and the sort.
 *
 * <p>Pages written: every page a filter touched. A filter only reads a page it has written before
 * or then writes it (an all-zero page answers unseen, and unseen inserts), so these are exactly the
 * pages the operator's cache writes back to state.
 */
final class BootstrapFilterOperator extends AbstractStreamOperator<ShardPage>
    implements OneInputStreamOperator<HashedUrl, ShardPage>, BoundedOneInput {

  private static final long serialVersionUID = 1L;

  private final FilterSpec spec;
  private final UrlMapping mapping;

  private transient DedupFilter[] filters;
  private transient HeapPageStore[] pages;
  private transient long emitted;
  private transient long duplicates;
  private transient long forced;

  BootstrapFilterOperator(FilterSpec spec, UrlMapping mapping) {
    if (spec instanceof AgedSpec a && a.timed()) {
      throw new IllegalArgumentException(
          "a bootstrap cannot replay an aged filter's time window (the time of"
              + " each URL is not in the input); use a count window");
    }
    if (mapping.shards() < 1) {
      throw new IllegalArgumentException("the shard count must be known: " + mapping.shards());
    }
    this.spec = spec;
    this.mapping = mapping;
  }

  @Override
  public void open() throws Exception {
    super.open();
    filters = new DedupFilter[mapping.shards()];
    pages = new HeapPageStore[mapping.shards()];
  }

  @Override
  public void processElement(StreamRecord<HashedUrl> element) {
    HashedUrl u = element.getValue();
    DedupFilter f = filters[u.shard];
    if (f == null) {
      pages[u.shard] = new HeapPageStore();
      f = filters[u.shard] = DedupDecision.newShard(spec, mapping, pages[u.shard]);
    }
    if (DedupDecision.emits(f, u.h1, u.h2, u.force)) {
      emitted++;
      if (u.force) {
        forced++;
      }
    } else {
      duplicates++;
    }
  }

  /**
   * Emits every shard (header, then pages) and lets its pages go, so the heap holds one copy at
   * most.
   */
  @Override
  public void endInput() {
    getRuntimeContext()
        .getLongCounter(DedupMetrics.ACCUMULATOR_PREFIX + DedupMetrics.EMITTED)
        .add(emitted);
    getRuntimeContext()
        .getLongCounter(DedupMetrics.ACCUMULATOR_PREFIX + DedupMetrics.DUPLICATES)
        .add(duplicates);
    getRuntimeContext()
        .getLongCounter(DedupMetrics.ACCUMULATOR_PREFIX + DedupMetrics.FORCED)
        .add(forced);
    for (int shard = 0; shard < filters.length; shard++) {
      DedupFilter f = filters[shard];
      if (f == null) {
        continue;
      }
      int s = shard;
      HeapPageStore store = pages[shard];
      output.collect(new StreamRecord<>(ShardPage.header(s, FilterStates.encode(f.header()))));
      store.forEachPageId(
          id -> output.collect(new StreamRecord<>(ShardPage.page(s, id, store.page(id)))));
      filters[shard] = null;
      pages[shard] = null;
    }
  }
}
