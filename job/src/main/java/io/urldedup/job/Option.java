package io.urldedup.job;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoublePredicate;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.util.TimeUtils;

/**
 * One flag (also a {@code --config} file key), declared once, as Flink declares a {@code
 * ConfigOption}: its type (the parser's result), default, parser with the accepted range, and
 * help. Parsing, {@code --help}, the README flag list and the manifest test all read these
 * declarations, so none of them can drift from the others.
 *
 * <p>The default is given as the text a user would type ({@code "128m"}), parsed by the same
 * parser, and shown as is in {@code --help}; a default that depends on other flags is only
 * described ({@link #describedDefault}) and computed where the option is read.
 *
 * <p>Declarations configure an option once, in a static initializer; it is immutable after that.
 *
 * @param <T> the parsed value's type
 */
public final class Option<T> {

  /** Parses one value; throws {@link ConfigException} naming {@code flag} and the accepted values. */
  @FunctionalInterface
  public interface Parser<T> {
    T parse(String flag, String value);
  }

  private final String name;
  private final Parser<T> parser;
  private String section = "";
  private String arg = "VALUE";
  private String defaultValue;
  private String defaultText;
  private String help = "";

  private Option(String name, Parser<T> parser, String arg) {
    this.name = name;
    this.parser = parser;
    this.arg = arg;
  }

  // ---- declaration ----

  public static <T> Option<T> of(String name, String arg, Parser<T> parser) {
    return new Option<>(name, parser, arg);
  }

  /** Any string, kept as given (paths keep their spaces). */
  public static Option<String> string(String name, String arg) {
    return of(name, arg, (flag, v) -> v);
  }

  /** A non-blank string, stripped. */
  public static Option<String> nonEmpty(String name, String arg) {
    return of(name, arg, (flag, v) -> {
      if (v == null || v.strip().isEmpty()) {
        throw new ConfigException(flag + " needs a non-empty value");
      }
      return v.strip();
    });
  }

  /** A switch: given alone it is on; {@code --x=false} (or {@code x=off} in a file) turns it off. */
  public static Option<Boolean> toggle(String name) {
    return new Option<>(name, Option::bool, null).defaultValue("off");
  }

  public static Option<Integer> integer(String name, String arg, int min, int max) {
    return of(name, arg, (flag, v) -> {
      long n = parseLong(flag, v, "an integer from " + min + " to " + max);
      if (n < min || n > max) {
        throw new ConfigException(flag + ": " + v + " is out of range; accepted: an integer from " + min + " to " + max);
      }
      return (int) n;
    });
  }

  public static Option<Long> atLeast(String name, String arg, long min) {
    return of(name, arg, (flag, v) -> {
      long n = parseLong(flag, v, "an integer >= " + min);
      if (n < min) {
        throw new ConfigException(flag + ": " + v + " is out of range; accepted: an integer >= " + min);
      }
      return n;
    });
  }

  /** A number for which {@code ok} holds; {@code accepted} says which, for the message. */
  public static Option<Double> decimal(String name, String arg, DoublePredicate ok, String accepted) {
    return of(name, arg, (flag, v) -> {
      double d;
      try {
        d = Double.parseDouble(v.strip());
      } catch (NumberFormatException e) {
        d = Double.NaN;
      }
      if (!ok.test(d)) {
        throw new ConfigException(flag + ": '" + v + "' is not accepted; accepted: " + accepted);
      }
      return d;
    });
  }

  /** A positive byte size with an optional unit (Flink's {@link MemorySize} syntax). */
  public static Option<Long> size(String name, long min, String tooSmall) {
    return of(name, "SIZE", (flag, v) -> {
      long bytes;
      try {
        bytes = MemorySize.parseBytes(v.strip());
      } catch (IllegalArgumentException e) {
        bytes = -1;
      }
      if (bytes <= 0) {
        throw new ConfigException(flag + ": '" + v + "' is not accepted; accepted: a positive"
            + " size with an optional unit b, k, m, g, t (e.g. 64m, 1g)");
      }
      if (bytes < min) {
        throw new ConfigException(flag + ": " + tooSmall);
      }
      return bytes;
    });
  }

  /** {@code word} (e.g. {@code auto}), parsed as {@code wordValue}, or a size as {@link #size}. */
  public static Option<Long> sizeOr(String word, long wordValue, String name, long min, String tooSmall) {
    Option<Long> size = size(name, min, tooSmall);
    return of(name, word + "|SIZE", (flag, v) -> {
      if (word.equalsIgnoreCase(v.strip())) {
        return wordValue;
      }
      try {
        return size.parse(v);
      } catch (ConfigException e) {
        throw new ConfigException(e.getMessage().replace("accepted: a positive", "accepted: " + word + ", or a positive"));
      }
    });
  }

  /** A positive duration with a unit, between {@code min} and {@code max}; {@code range} says so for the message. */
  public static Option<Duration> duration(String name, Duration min, Duration max, String range) {
    return of(name, "DURATION", (flag, v) -> {
      Duration d;
      try {
        d = TimeUtils.parseDuration(v.strip());
      } catch (IllegalArgumentException | NullPointerException e) {
        d = null;
      }
      if (d == null || d.isNegative() || d.isZero()) {
        throw new ConfigException(flag + ": '" + v + "' is not accepted; accepted: a positive"
            + " duration with a unit ms, s, min, h (e.g. 500ms, 10s, 10min)");
      }
      if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
        throw new ConfigException(flag + ": " + range);
      }
      return d;
    });
  }

  /** One of the enum's constants, case-insensitive; {@code arg} lists them in lower case. */
  public static <E extends Enum<E>> Option<E> choice(String name, Class<E> type) {
    List<String> names = new ArrayList<>();
    for (E e : type.getEnumConstants()) {
      names.add(e.name().toLowerCase(Locale.ROOT));
    }
    return of(name, String.join("|", names), (flag, v) -> {
      for (E e : type.getEnumConstants()) {
        if (e.name().equalsIgnoreCase(v.strip())) {
          return e;
        }
      }
      throw new ConfigException(flag + ": '" + v + "' is not accepted; accepted: " + String.join(", ", names));
    });
  }

  /** A comma-separated list of non-empty items. */
  public static Option<List<String>> list(String name, String arg) {
    return of(name, arg, (flag, v) -> {
      List<String> out = new ArrayList<>();
      for (String s : v.split(",")) {
        if (!s.strip().isEmpty()) {
          out.add(s.strip());
        }
      }
      if (out.isEmpty()) {
        throw new ConfigException(flag + ": '" + v + "' is not accepted; accepted: a comma-separated list");
      }
      return List.copyOf(out);
    });
  }

  /** The {@code --help} section heading it is listed under. */
  Option<T> in(String section) {
    this.section = section;
    return this;
  }

  /** The default as typed by a user; parsed by this option's parser and shown in {@code --help}. */
  Option<T> defaultValue(String value) {
    this.defaultValue = value;
    this.defaultText = value;
    return this;
  }

  /** A default that depends on other settings: only described here, computed where it is read. */
  Option<T> describedDefault(String text) {
    this.defaultValue = null;
    this.defaultText = text;
    return this;
  }

  Option<T> help(String text) {
    this.help = text;
    return this;
  }

  // ---- use ----

  /** Without the leading {@code --}. */
  public String name() {
    return name;
  }

  public String flag() {
    return "--" + name;
  }

  String section() {
    return section;
  }

  /** What the value looks like; null for a switch; in brackets if the value is optional. */
  String arg() {
    return arg;
  }

  String help() {
    return help;
  }

  /** As shown in {@code --help}; null if none. */
  String defaultText() {
    return defaultText;
  }

  boolean isSwitch() {
    return arg == null;
  }

  boolean valueOptional() {
    return arg != null && arg.startsWith("[");
  }

  /** The value of a flag given without one: "true" for a switch, "" for an optional value. */
  String valueWhenAlone() {
    return isSwitch() ? "true" : valueOptional() ? "" : null;
  }

  T parse(String value) {
    return parser.parse(flag(), value);
  }

  /** The parsed default, or null if there is none (or it is only described). */
  T defaultParsed() {
    return defaultValue == null ? null : parse(defaultValue);
  }

  private static boolean bool(String flag, String value) {
    switch (value.strip().toLowerCase(Locale.ROOT)) {
      case "true": case "yes": case "on": case "1":
        return true;
      case "false": case "no": case "off": case "0":
        return false;
      default:
        throw new ConfigException(flag + ": '" + value + "' is not accepted; accepted: true, false");
    }
  }

  private static long parseLong(String flag, String value, String accepted) {
    try {
      return Long.parseLong(value.strip().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new ConfigException(flag + ": '" + value + "' is not accepted; accepted: " + accepted);
    }
  }

  @Override
  public String toString() {
    return flag();
  }
}
