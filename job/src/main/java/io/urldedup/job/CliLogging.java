package io.urldedup.job;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;

/**
 * {@code --verbose}. The launcher's log (job/src/main/launcher/log4j2-cli.properties) shows on
 * stderr urldedup's own warnings and only errors of Flink and Kafka: a failed run is one line
 * naming its cause ({@link UrlDedupJob#main}), not the 20-40 lines of a failing task's warning and
 * stack trace before it. With {@code --verbose} Flink's and Kafka's warnings come back, and the
 * error's stack trace is printed after its line.
 */
final class CliLogging {

  private static volatile boolean verbose;

  private CliLogging() {}

  static void verbose(boolean on) {
    verbose = on;
    if (on && !LogManager.getRootLogger().isWarnEnabled()) {
      try {
        Configurator.setRootLevel(Level.WARN);
      } catch (LinkageError noLog4jCore) {
        // another logging backend (a cluster's client): its own configuration decides
      }
    }
  }

  static boolean verbose() {
    return verbose;
  }
}
