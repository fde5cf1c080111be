package io.urldedup.state;

import java.util.Map;

/**
 * Restored filter state cannot serve the current configuration (other seed, kind or parameters).
 * The message names what differs and what to do; it names parameters through a template ({@link
 * NamesParameters}), so that the operator can say them as the job's flags ({@link #named}).
 */
public class IncompatibleStateException extends IllegalStateException implements NamesParameters {

  private static final long serialVersionUID = 1L;

  private final String template;

  /** {@code template} writes parameters as {@code {fpr}} ({@link Parameter#render}). */
  public IncompatibleStateException(String template) {
    super(Parameter.render(template, Map.of()));
    this.template = template;
  }

  @Override
  public String template() {
    return template;
  }

  /** The same refusal, preceded by {@code prefix} and rendered with {@code names}. */
  public IncompatibleStateException named(String prefix, Map<Parameter, String> names) {
    IncompatibleStateException e =
        new IncompatibleStateException(Parameter.render(prefix + template, names));
    e.setStackTrace(getStackTrace());
    return e;
  }
}
