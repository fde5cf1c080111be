package io.urldedup.job;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.Appender;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Routes every log event of this JVM (Flink mini cluster, Kafka broker and clients, urldedup)
 * through a searching appender for the duration of a test, at a verbose level, instead of the
 * console. Each event's message and its throwable chain are searched for the needles; only counts
 * and the first offending logger are kept (never the secret itself).
 */
final class LogCapture extends AbstractAppender implements AutoCloseable {

  /** More verbose than production (INFO) where our code and the client configs are logged. */
  static final Map<String, Level> VERBOSE =
      Map.of(
          "io.urldedup", Level.TRACE,
          "org.apache.flink", Level.DEBUG,
          "org.apache.kafka.clients", Level.DEBUG,
          "org.apache.kafka.common.security", Level.DEBUG,
          "org.apache.kafka.common.config", Level.DEBUG);

  private final List<String> needles;
  private final AtomicLong events = new AtomicLong();
  private final AtomicLong leaks = new AtomicLong();
  private final List<String> leakers = new ArrayList<>();
  private final LoggerContext ctx;
  private final Map<String, Appender> saved;
  private final Level savedLevel;

  private LogCapture(List<String> needles) {
    super("secret-search", null, null, true, Property.EMPTY_ARRAY);
    this.needles = needles;
    this.ctx = (LoggerContext) LogManager.getContext(false);
    Configuration cfg = ctx.getConfiguration();
    LoggerConfig root = cfg.getRootLogger();
    saved = Map.copyOf(root.getAppenders());
    savedLevel = root.getLevel();
    start();
    cfg.addAppender(this);
    for (String name : saved.keySet()) {
      root.removeAppender(name);
    }
    root.addAppender(this, Level.ALL, null);
    root.setLevel(Level.INFO);
    VERBOSE.forEach((name, level) -> cfg.addLogger(name, new LoggerConfig(name, level, true)));
    ctx.updateLoggers();
  }

  static LogCapture start(List<String> needles) {
    return new LogCapture(List.copyOf(needles));
  }

  @Override
  public void append(LogEvent e) {
    events.incrementAndGet();
    StringBuilder text = new StringBuilder(e.getMessage().getFormattedMessage());
    for (Throwable t = e.getThrown(); t != null; t = t.getCause()) {
      text.append('\n').append(t);
      for (Throwable s : t.getSuppressed()) {
        text.append('\n').append(s);
      }
    }
    String s = text.toString();
    for (String n : needles) {
      if (s.contains(n)) {
        leaks.incrementAndGet();
        synchronized (leakers) {
          if (leakers.size() < 20) {
            leakers.add(
                e.getLevel() + " " + e.getLoggerName() + " (needle #" + needles.indexOf(n) + ")");
          }
        }
      }
    }
  }

  long events() {
    return events.get();
  }

  long leaks() {
    return leaks.get();
  }

  List<String> leakers() {
    synchronized (leakers) {
      return List.copyOf(leakers);
    }
  }

  @Override
  public void close() {
    Configuration cfg = ctx.getConfiguration();
    LoggerConfig root = cfg.getRootLogger();
    VERBOSE.keySet().forEach(cfg::removeLogger);
    root.removeAppender(getName());
    saved.values().forEach(a -> root.addAppender(a, null, null));
    root.setLevel(savedLevel);
    ctx.updateLoggers();
    stop();
  }
}
