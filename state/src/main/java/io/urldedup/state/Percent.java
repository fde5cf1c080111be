package io.urldedup.state;

import java.util.Locale;

/**
 * The one formatter for rates that commands print (plan, inspect): three decimals of a percent,
 * three significant digits below 0.1%, so a tiny FPR does not print as 0.000%.
 */
public final class Percent {

  private Percent() {}

  public static String format(double p) {
    if (p == 0) {
      return "0%";
    }
    return String.format(Locale.ROOT, p >= 0.001 ? "%.3f%%" : "%.3g%%", p * 100);
  }
}
