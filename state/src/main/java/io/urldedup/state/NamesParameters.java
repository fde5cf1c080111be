package io.urldedup.state;

import java.util.Map;

/**
 * An exception whose message names {@link Parameter}s through a template, so that a front end can
 * say it in its own words ({@link #message(Map)}); {@code getMessage()} uses the library's names.
 */
public interface NamesParameters {

  /** The message with {@code {parameter}} placeholders. */
  String template();

  /** The message with each parameter called what {@code names} calls it. */
  default String message(Map<Parameter, String> names) {
    return Parameter.render(template(), names);
  }
}
