package io.urldedup.job;

/**
 * One command-line flag (also a {@code --config} file key): the single source for parsing and for
 * {@code --help}, so the two cannot drift apart.
 *
 * @param name        without the leading {@code --}
 * @param arg         what the value looks like; null for a switch; in brackets if optional
 * @param defaultText the default as shown in {@code --help}, or null if none
 * @param help        what it does and which values it accepts
 */
record Flag(String section, String name, String arg, String defaultText, String help) {

  boolean isSwitch() {
    return arg == null;
  }

  boolean valueOptional() {
    return arg != null && arg.startsWith("[");
  }
}
