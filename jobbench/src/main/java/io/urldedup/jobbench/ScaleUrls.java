package io.urldedup.jobbench;

import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordHeaders;
import io.urldedup.state.SplitMix64;
import java.nio.charset.StandardCharsets;
import org.apache.flink.connector.datagen.source.GeneratorFunction;

/**
 * The scale benchmark's stream, a function of the record index alone (no input file at 10^9): with
 * repeats, three of every four records are new URLs and the fourth repeats an earlier new URL
 * picked by a hash of the index; without, every record is a new URL. New URL {@code u} is {@code
 * https://h<u mod 65536>.example/p/<u + offset>}, already canonical, about 35 bytes.
 *
 * <p>Each record carries its URL number in the header {@link #URL_HEADER} (8 bytes, big endian),
 * passed through to the sink, so that {@link ScaleSink} counts distinct emissions without a truth
 * file.
 */
final class ScaleUrls implements GeneratorFunction<Long, RawRecord> {

  private static final long serialVersionUID = 1L;

  static final String URL_HEADER = "u";

  private final long offset;
  private final boolean repeats;

  ScaleUrls(long offset, boolean repeats) {
    this.offset = offset;
    this.repeats = repeats;
  }

  /** New URLs among the first {@code records} records. */
  static long newUrls(long records, boolean repeats) {
    return repeats ? records / 4 * 3 + Math.min(records % 4, 3) : records;
  }

  /** Records that hold {@code urls} new URLs. */
  static long recordsFor(long urls, boolean repeats) {
    return repeats ? urls / 3 * 4 + urls % 3 : urls;
  }

  @Override
  public RawRecord map(Long index) {
    long i = index;
    ScaleProbe.generated.increment();
    long u;
    if (!repeats) {
      u = i;
    } else if (i % 4 != 3) {
      u = i / 4 * 3 + i % 4;
    } else {
      // an earlier new URL: one of the i / 4 * 3 made before this record (at least one, u = 0)
      u = Long.remainderUnsigned(SplitMix64.mix(i), Math.max(1, i / 4 * 3));
    }
    long n = u + offset;
    byte[] url =
        ("https://h" + (n & 0xFFFF) + ".example/p/" + n).getBytes(StandardCharsets.US_ASCII);
    byte[] number = new byte[8];
    for (int b = 0; b < 8; b++) {
      number[b] = (byte) (n >>> (56 - 8 * b));
    }
    return new RawRecord(null, url, RecordHeaders.of(URL_HEADER, number), null);
  }
}
