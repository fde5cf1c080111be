package io.urldedup.operators;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** Collects the WARN (and worse) messages one class logs while open. */
final class WarningCapture extends AbstractAppender implements AutoCloseable {

  private final List<String> messages = new CopyOnWriteArrayList<>();
  private final LoggerContext ctx;
  private final String logger;

  WarningCapture(Class<?> source) {
    super("warning-capture-" + source.getSimpleName(), null, null, true, Property.EMPTY_ARRAY);
    this.logger = source.getName();
    this.ctx = (LoggerContext) LogManager.getContext(false);
    Configuration cfg = ctx.getConfiguration();
    start();
    LoggerConfig lc = new LoggerConfig(logger, Level.WARN, true);
    lc.addAppender(this, Level.WARN, null);
    cfg.addLogger(logger, lc);
    ctx.updateLoggers();
  }

  @Override
  public void append(LogEvent event) {
    messages.add(event.getMessage().getFormattedMessage());
  }

  List<String> messages() {
    return List.copyOf(messages);
  }

  @Override
  public void close() {
    ctx.getConfiguration().removeLogger(logger);
    ctx.updateLoggers();
    stop();
  }
}
