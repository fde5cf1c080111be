package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.io.Serializable;
import java.util.Arrays;

/**
 * What {@link LineFileSource} makes of a line, and where a benchmark hangs its probes. The default
 * ({@link #origins}) gives each record its origin {@code name:line} (1-based, as editors count);
 * jobbench numbers lines in a header instead and notes the lines read at each checkpoint.
 */
public interface LineHook extends Serializable {

  /**
   * The record of one line: {@code len} bytes of {@code buf} from {@code off} (reused after the
   * call: copy them).
   *
   * @param index 0-based line number
   */
  RawRecord record(byte[] buf, int off, int len, long index);

  /** The reader's state goes into checkpoint {@code checkpointId}; {@code lines} were read. */
  default void snapshot(long checkpointId, long lines) {}

  /** The input ended after {@code lines} lines (end of file, or a stop signal). */
  default void end(long lines) {}

  /** Records with origin {@code name:line} and no headers. */
  static LineHook origins(String name) {
    return (buf, off, len, index) ->
        RawRecord.fromLine(Arrays.copyOfRange(buf, off, off + len), name, index + 1);
  }
}
