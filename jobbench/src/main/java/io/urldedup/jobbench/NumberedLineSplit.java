package io.urldedup.jobbench;

import io.urldedup.operators.RawRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceSplit;

/** The whole file as one split, resumable at a byte offset and line number. */
final class NumberedLineSplit implements IteratorSourceSplit<RawRecord, NumberedLineReader> {

  final String path;
  final long offset;
  final long line;

  NumberedLineSplit(String path, long offset, long line) {
    this.path = path;
    this.offset = offset;
    this.line = line;
  }

  @Override
  public String splitId() {
    return "0";
  }

  @Override
  public NumberedLineReader getIterator() {
    try {
      return new NumberedLineReader(path, offset, line);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + path, e);
    }
  }

  @Override
  public IteratorSourceSplit<RawRecord, NumberedLineReader> getUpdatedSplitForIterator(
      NumberedLineReader reader) {
    return new NumberedLineSplit(path, reader.offset(), reader.line());
  }
}
