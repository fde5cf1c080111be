package io.urldedup.jobbench;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.flink.api.connector.source.SourceSplit;
import org.apache.flink.api.connector.source.util.ratelimit.GuavaRateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiter;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;

/**
 * Two phases: the first {@code buildUp} records as fast as the job takes them, then {@code rate}
 * records per second in total (a crawl's steady discovery rate). Split evenly over the readers. The
 * first reader to leave the build-up marks the phase change in {@link ScaleProbe}.
 *
 * <p>Flink's reader asks for a permit per record and waits for each answer in its mailbox; a permit
 * per record from Guava's limiter capped the steady phase near 50,000 records/s. Permits are taken
 * {@link #BATCH} at a time instead: bursts of 10 ms at 100,000/s.
 */
final class PhasedRateLimiter implements RateLimiterStrategy<SourceSplit> {

  private static final long serialVersionUID = 1L;

  static final int BATCH = 1000;

  private final long buildUp;
  private final double rate;

  PhasedRateLimiter(long buildUp, double rate) {
    this.buildUp = buildUp;
    this.rate = rate;
  }

  @Override
  public RateLimiter<SourceSplit> createRateLimiter(int parallelism) {
    long free = buildUp / parallelism;
    double perReader = rate / parallelism;
    return new RateLimiter<>() {
      private long acquired;
      private RateLimiter<SourceSplit> steady;

      @Override
      public CompletionStage<Void> acquire(int permits) {
        acquired += permits;
        if (acquired <= free) {
          return CompletableFuture.completedFuture(null);
        }
        if (steady == null) {
          ScaleProbe.steadyStartMillis.compareAndSet(0, System.currentTimeMillis());
          steady = new GuavaRateLimiter<>(perReader);
        }
        return (acquired - free) % BATCH == 1
            ? steady.acquire(BATCH)
            : CompletableFuture.completedFuture(null);
      }
    };
  }
}
