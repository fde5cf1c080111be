package io.urldedup.jobbench;

import io.urldedup.operators.UrlRecord;
import java.io.IOException;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Counts the scale stream's emissions by URL number ({@link ScaleUrls#URL_HEADER}): a number
 * emitted twice is a false negative; new URLs never emitted are false positives (counted by the
 * driver: new URLs generated minus distinct numbers emitted). One bit per URL number, shared by the
 * writers of this JVM: 125 MB at 10^9.
 */
final class ScaleSink implements Sink<UrlRecord> {

  private static final long serialVersionUID = 1L;

  private static BenchProbe.Bits emitted;

  private final long urls;

  /** {@code urls}: one more than the largest URL number the stream can carry. */
  ScaleSink(long urls) {
    if (urls > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "at most " + Integer.MAX_VALUE + " URL numbers, not " + urls);
    }
    this.urls = urls;
  }

  @Override
  public SinkWriter<UrlRecord> createWriter(WriterInitContext context) throws IOException {
    synchronized (ScaleSink.class) {
      if (emitted == null) {
        emitted = new BenchProbe.Bits(urls);
      }
    }
    BenchProbe.Bits bits = emitted;
    return new SinkWriter<>() {
      @Override
      public void write(UrlRecord r, Context context) {
        long n = ScaleProbe.emitted.incrementAndGet();
        if (n == 1) {
          ScaleProbe.firstEmitMillis.compareAndSet(0, System.currentTimeMillis());
        }
        if (n == ScaleProbe.markAt) {
          ScaleProbe.markMillis.compareAndSet(0, System.currentTimeMillis());
        }
        byte[] b = r.headers.lastValue(ScaleUrls.URL_HEADER);
        long u = 0;
        for (int i = 0; i < 8; i++) {
          u = (u << 8) | (b[i] & 0xFF);
        }
        if (bits.getAndSet((int) u)) {
          ScaleProbe.emittedAgain.increment();
        }
      }

      @Override
      public void flush(boolean endOfInput) {}

      @Override
      public void close() {}
    };
  }
}
