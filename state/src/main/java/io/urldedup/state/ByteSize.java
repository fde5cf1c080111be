package io.urldedup.state;

import java.util.Locale;

/**
 * The one formatter for byte sizes that commands print (plan, inspect, config errors, logs): binary
 * units with one decimal, "1.5 MiB", so sizes in one output compare at a glance.
 */
public final class ByteSize {
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

  private ByteSize() {}

  /**
   * {@code bytes} in the largest unit (up to TiB) it reaches; below 1 KiB (or negative) in bytes.
   */
  public static String format(long bytes) {
    double v = bytes;
    int u = 0;
    while (v >= 1024 && u < UNITS.length - 1) {
      v /= 1024;
      u++;
    }
    return u == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", v, UNITS[u]);
  }
}
