package io.urldedup.state;

import java.util.Map;

/**
 * A parameter out of its range, or parameters that do not go together. The message names them
 * ({@link NamesParameters}); the job says them as flags.
 */
public class InvalidSpecException extends IllegalArgumentException implements NamesParameters {

  private static final long serialVersionUID = 1L;

  private final String template;

  /** {@code template} writes parameters as {@code {fpr}} ({@link Parameter#render}). */
  public InvalidSpecException(String template) {
    super(Parameter.render(template, Map.of()));
    this.template = template;
  }

  @Override
  public String template() {
    return template;
  }
}
