package io.urldedup.operators;

import io.urldedup.state.AgedBloomFilter;
import io.urldedup.state.DedupFilter;
import io.urldedup.state.FilterSpec;
import io.urldedup.state.InsertLog;

/**
 * One shard's open filter, and what the operator's parts track about it between checkpoints: the
 * checkpointer (base, log, chunks), the aged driver (when its generation began) and the health
 * report (its WARNs, once each).
 */
final class OpenShard {

  /** {@link #firstChunk} of restored chunks whose keys are not consecutive. */
  static final long UNKNOWN_CHUNKS = Long.MIN_VALUE;

  final int shard;
  final DedupFilter filter;

  /** The filter if it is aged (timers and early advances), else null. */
  final AgedBloomFilter aged;

  /** Aged time windows: the header's generation length (restored state keeps its own); else 0. */
  final long generationMillis;

  /** Replay is exact over pages that hold later operations (scalable: Bloom bits only). */
  final boolean idempotent;

  /** Its header changed since it was last written. */
  boolean changed = true;

  boolean warnedSaturated;
  boolean warnedFpr;

  /**
   * Aged time windows: the shard clock when its current generation began (for the measured rate).
   */
  long generationStart = Long.MIN_VALUE;

  /** Logging: operations since the last chunk written (null without logging). */
  InsertLog log;

  /** Its header is in keyed state (restored, or materialized since it was opened). */
  boolean hasBase;

  /** Log chunks in state since its base. */
  boolean stale;

  /**
   * A dirty page of this non-idempotent shard was evicted into its base: materialize at the next
   * checkpoint.
   */
  boolean mustMaterialize;

  /** Chosen for materialization by the checkpoint being taken. */
  boolean materializeNow;

  /** Key of the shard's next log chunk (rising). */
  long nextChunk;

  /** Key of its first chunk since its base: its chunks in state are firstChunk until nextChunk. */
  long firstChunk;

  OpenShard(int shard, DedupFilter filter) {
    this.shard = shard;
    this.filter = filter;
    this.aged = filter instanceof AgedBloomFilter a ? a : null;
    this.generationMillis = aged == null ? 0 : filter.header().generationMillis();
    this.idempotent = filter.header().kind() == FilterSpec.Kind.SCALABLE;
  }

  /** Changed since its base: the next materialization must write it. */
  boolean needsMaterializing() {
    return changed || stale || log != null && !log.isEmpty();
  }
}
