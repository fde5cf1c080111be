package io.urldedup.job;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * A byte range of the input, resumable at a byte offset: the checkpointed position of the embedded
 * source. The range is {@code [offset, end)}; {@code end} is {@link #TO_END} for the rest of the
 * file (a whole-file split, and every split checkpointed before ranges existed). A range other than
 * the first starts right after a line end ({@link LineRanges}). {@code lines} counts the records of
 * the file before {@code offset}, so origins ({@code name:line}) stay right after a restore and in
 * every range. A stream ({@link LineFileSource#isStream}: stdin {@code -}, a named pipe) cannot be
 * re-read: its split is only ever read from the start.
 */
public final class LineSplit implements SourceSplit {

  static final String STDIN = "-";

  /** {@link #end} of a split that runs to the end of the file. */
  static final long TO_END = Long.MAX_VALUE;

  final String path;
  final String name;
  final long offset;
  final long lines;
  final long end;

  /** The range's index in the file (its split id); 0 for a whole-file split. */
  final int index;

  LineSplit(String path, String name, long offset, long lines) {
    this(path, name, offset, lines, TO_END, 0);
  }

  LineSplit(String path, String name, long offset, long lines, long end, int index) {
    this.path = path;
    this.name = name;
    this.offset = offset;
    this.lines = lines;
    this.end = end;
    this.index = index;
  }

  LineSplit at(long newOffset, long newLines) {
    return new LineSplit(path, name, newOffset, newLines, end, index);
  }

  @Override
  public String splitId() {
    return Integer.toString(index);
  }

  @Override
  public String toString() {
    return "LineSplit{"
        + name
        + "#"
        + index
        + "@"
        + offset
        + (end == TO_END ? "" : ".." + end)
        + "}";
  }
}
