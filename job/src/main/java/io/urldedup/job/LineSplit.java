package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.flink.api.connector.source.lib.util.IteratorSourceSplit;

/**
 * The whole input file as one split, resumable at a byte offset: the checkpointed position of the
 * embedded source. {@code lines} counts the records before {@code offset}, so origins
 * ({@code name:line}) stay right after a restore.
 */
final class LineSplit implements IteratorSourceSplit<RawRecord, LineReader> {

  final String path;
  final String name;
  final long offset;
  final long lines;

  LineSplit(String path, String name, long offset, long lines) {
    this.path = path;
    this.name = name;
    this.offset = offset;
    this.lines = lines;
  }

  @Override
  public String splitId() {
    return "0";
  }

  @Override
  public LineReader getIterator() {
    try {
      return new LineReader(Path.of(path), name, offset, lines);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + path, e);
    }
  }

  @Override
  public IteratorSourceSplit<RawRecord, LineReader> getUpdatedSplitForIterator(LineReader reader) {
    return new LineSplit(path, name, reader.offset(), reader.lines());
  }

  @Override
  public String toString() {
    return "LineSplit{" + name + "@" + offset + "}";
  }
}
