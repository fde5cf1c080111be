package io.urldedup.job;

import sun.misc.Signal;

/**
 * Ctrl-C (SIGINT) and SIGTERM in the embedded mode end the input instead of the process: the lines
 * read so far are processed, the outputs flushed and the summary printed ({@link
 * LineSourceReader#endAllInputs}). A second signal ends the process at once. Installed by {@code
 * main} only (the launcher's process), never in a JVM that runs tests.
 */
final class StopSignals {

  private static volatile String received;
  private static volatile Runnable onAbort = () -> {};

  private StopSignals() {}

  static void install() {
    for (String name : new String[] {"INT", "TERM"}) {
      Signal.handle(new Signal(name), StopSignals::handle);
    }
  }

  /**
   * What the second signal does before the process halts (shutdown hooks do not run then): say what
   * is lost, remove temporary files.
   */
  static void onAbort(Runnable action) {
    onAbort = action;
  }

  private static void handle(Signal s) {
    if (received != null) {
      System.err.println("urldedup: SIG" + s.getName() + " again: exiting at once");
      try {
        onAbort.run();
      } finally {
        // the run did not end after the first: 128 + signal number, as a shell reports it
        Runtime.getRuntime().halt(128 + s.getNumber());
      }
    }
    received = "SIG" + s.getName();
    System.err.println(
        "urldedup: "
            + received
            + ": ending the input; processing what was read"
            + " (again to abort)");
    LineSourceReader.endAllInputs();
  }

  /** The first signal received ({@code SIGINT}, {@code SIGTERM}), or null. */
  static String received() {
    return received;
  }

  /** The exit code of a run ended by a signal that cut a file short: 128 + its number. */
  static int exitCode() {
    return "SIGTERM".equals(received) ? 143 : 130;
  }
}
