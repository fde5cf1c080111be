package io.urldedup.job;

import org.apache.flink.api.connector.source.SourceSplit;

/**
 * The whole input as one split, resumable at a byte offset: the checkpointed position of the
 * embedded source. {@code lines} counts the records before {@code offset}, so origins
 * ({@code name:line}) stay right after a restore. {@code path} {@code -} is stdin, which cannot
 * be re-read: its split is only ever read from the start.
 */
public final class LineSplit implements SourceSplit {

  static final String STDIN = "-";

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

  boolean isStdin() {
    return STDIN.equals(path);
  }

  LineSplit at(long newOffset, long newLines) {
    return new LineSplit(path, name, newOffset, newLines);
  }

  @Override
  public String splitId() {
    return "0";
  }

  @Override
  public String toString() {
    return "LineSplit{" + name + "@" + offset + "}";
  }
}
