package io.urldedup.job;

import java.util.Locale;

/**
 * The commands that take flags. Each {@link Option} declares the commands it is for; a command
 * refuses a flag it does not take (exit 2, naming the commands the flag is for), so that a flag
 * that would change nothing is never silently ignored. {@code plan} takes every flag {@code run}
 * takes: it shows what {@code run} would do with them. {@code version} and {@code help} take none.
 */
public enum Command {
  RUN(true),
  PLAN(false),
  BOOTSTRAP(true),
  INSPECT(false),
  PROBE(false);

  /** Whether the command needs its input and output flags (run's Kafka topics or --input). */
  final boolean requiresIo;

  Command(boolean requiresIo) {
    this.requiresIo = requiresIo;
  }

  /** As typed on the command line. */
  public String word() {
    return name().toLowerCase(Locale.ROOT);
  }
}
