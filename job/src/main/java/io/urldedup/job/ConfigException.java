package io.urldedup.job;

/**
 * A user error in flags or the config file. Its message names the flag and what is accepted; the
 * launcher prints it without a stack trace and exits with {@link #EXIT_CODE}.
 */
public final class ConfigException extends RuntimeException {

  /** The exit code for usage errors (as getopt-style tools use). */
  public static final int EXIT_CODE = 2;

  public ConfigException(String message) {
    super(message, null, false, false);
  }
}
