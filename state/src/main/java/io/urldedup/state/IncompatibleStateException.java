package io.urldedup.state;

/**
 * Restored filter state cannot serve the current configuration (other seed, kind or parameters).
 * The message names what differs and what to do.
 */
public class IncompatibleStateException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  public IncompatibleStateException(String message) {
    super(message);
  }
}
