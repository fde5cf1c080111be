package io.urldedup.job;

import io.urldedup.state.FilterSpec;
import io.urldedup.state.Parameter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.DoublePredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.util.TimeUtils;

/**
 * One flag (also a {@code --config} file key), declared once, as Flink declares a {@code
 * ConfigOption}: its type (the parser's result), default, parser with the accepted range, and help.
 * Parsing, {@code --help}, the README flag list and the manifest test all read these declarations,
 * so none of them can drift from the others.
 *
 * <p>The default is given as the text a user would type ({@code "128m"}), parsed by the same
 * parser, and shown as is in {@code --help}; a default that depends on other flags is only
 * described ({@link #describedDefault}) and computed where the option is read.
 *
 * <p>An option also declares where it applies: the {@link Command}s that take it ({@link
 * #forCommands}, {@code run} and so {@code plan} if not declared) and the filter kinds it belongs
 * to ({@link #forFilters}, all if not declared). A flag given where it does not apply is refused,
 * never ignored.
 *
 * <p>Declarations configure an option once, in a static initializer; it is immutable after that.
 *
 * @param <T> the parsed value's type
 */
public final class Option<T> {

  /**
   * Parses one value; throws {@link ConfigException} naming {@code flag} and the accepted values.
   */
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
  private String whenAlone;
  private Set<Command> commands = EnumSet.of(Command.RUN);
  private Set<FilterSpec.Kind> filters = EnumSet.allOf(FilterSpec.Kind.class);
  private Parameter parameter;

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
    return of(
        name,
        arg,
        (flag, v) -> {
          if (v == null || v.strip().isEmpty()) {
            throw new ConfigException(flag + " needs a non-empty value");
          }
          return v.strip();
        });
  }

  /**
   * A switch: given alone it is on; {@code --x=false} (or {@code x=off} in a file) turns it off.
   */
  public static Option<Boolean> toggle(String name) {
    return new Option<>(name, Option::bool, null).defaultValue("off");
  }

  public static Option<Integer> integer(String name, String arg, int min, int max) {
    return of(
        name,
        arg,
        (flag, v) -> {
          long n = parseLong(flag, v, "an integer from " + min + " to " + max);
          if (n < min || n > max) {
            throw new ConfigException(
                flag
                    + ": "
                    + v
                    + " is out of range; accepted: an integer from "
                    + min
                    + " to "
                    + max);
          }
          return (int) n;
        });
  }

  public static Option<Long> atLeast(String name, String arg, long min) {
    return of(
        name,
        arg,
        (flag, v) -> {
          long n = parseLong(flag, v, "an integer >= " + min);
          if (n < min) {
            throw new ConfigException(
                flag + ": " + v + " is out of range; accepted: an integer >= " + min);
          }
          return n;
        });
  }

  /** A number for which {@code ok} holds; {@code accepted} says which, for the message. */
  public static Option<Double> decimal(
      String name, String arg, DoublePredicate ok, String accepted) {
    return of(
        name,
        arg,
        (flag, v) -> {
          double d;
          try {
            d = Double.parseDouble(v.strip());
          } catch (NumberFormatException e) {
            d = Double.NaN;
          }
          if (!ok.test(d)) {
            throw new ConfigException(
                flag + ": '" + v + "' is not accepted; accepted: " + accepted);
          }
          return d;
        });
  }

  /** What {@link #size} accepts, for messages and {@code --help}. */
  static final String SIZE_SYNTAX =
      "a whole number of bytes with an optional unit k, m, g, t; units are"
          + " binary (1k = 1024) and case-insensitive, and B or iB may follow (1g = 1GB = 1GiB)";

  /**
   * A whole number and a unit: nothing or {@code b} (bytes), or {@code k m g t} optionally followed
   * by {@code i}, {@code b} or {@code ib}. Every unit is binary: {@code 1GB} means what {@code
   * -Xmx1g} and Flink's {@code 1gb} mean, 2^30 bytes; reading it as 10^9 here and as 2^30 there
   * would be a trap, and refusing it would refuse what users write.
   */
  private static final Pattern SIZE =
      Pattern.compile("(\\d[\\d_]*)\\s*(?:([kmgt])i?b?|b)?", Pattern.CASE_INSENSITIVE);

  /** The bytes of a {@link #SIZE}, or -1 if it is not one (or overflows). */
  static long bytes(String value) {
    Matcher m = SIZE.matcher(value.strip());
    if (!m.matches()) {
      return -1;
    }
    try {
      long n = Long.parseLong(m.group(1).replace("_", ""));
      int shift =
          m.group(2) == null
              ? 0
              : 10 * ("kmgt".indexOf(Character.toLowerCase(m.group(2).charAt(0))) + 1);
      return n > Long.MAX_VALUE >> shift ? -1 : n << shift;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** A positive byte size with an optional binary unit ({@link #SIZE_SYNTAX}). */
  public static Option<Long> size(String name, long min, String tooSmall) {
    return of(
        name,
        "SIZE",
        (flag, v) -> {
          long bytes = bytes(v);
          if (bytes <= 0) {
            throw new ConfigException(
                flag
                    + ": '"
                    + v
                    + "' is not accepted; accepted: a positive size, "
                    + SIZE_SYNTAX
                    + ", e.g. 64m, 1g");
          }
          if (bytes < min) {
            throw new ConfigException(flag + ": " + tooSmall);
          }
          return bytes;
        });
  }

  /** {@code word} (e.g. {@code auto}), parsed as {@code wordValue}, or a size as {@link #size}. */
  public static Option<Long> sizeOr(
      String word, long wordValue, String name, long min, String tooSmall) {
    Option<Long> size = size(name, min, tooSmall);
    return of(
        name,
        word + "|SIZE",
        (flag, v) -> {
          if (word.equalsIgnoreCase(v.strip())) {
            return wordValue;
          }
          try {
            return size.parse(v);
          } catch (ConfigException e) {
            throw new ConfigException(
                e.getMessage()
                    .replace("accepted: a positive", "accepted: " + word + ", or a positive"));
          }
        });
  }

  /** What {@link #duration} accepts, for messages and {@code --help}. */
  static final String DURATION_SYNTAX = "whole number with a unit ms, s, min (or m), h, d";

  /**
   * A number alone is refused: Flink reads it as milliseconds, a user may mean seconds. The units
   * are Flink's ({@link TimeUtils#parseDuration}: also its long forms, e.g. 10 minutes).
   */
  private static final Pattern HAS_UNIT = Pattern.compile(".*\\d\\s*\\p{Alpha}+");

  /**
   * A positive duration with a unit, between {@code min} and {@code max}; {@code range} says so for
   * the message.
   */
  public static Option<Duration> duration(String name, Duration min, Duration max, String range) {
    return of(
        name,
        "DURATION",
        (flag, v) -> {
          Duration d;
          try {
            d = TimeUtils.parseDuration(v.strip());
          } catch (IllegalArgumentException | NullPointerException e) {
            d = null;
          }
          if (d == null || d.isNegative() || d.isZero() || !HAS_UNIT.matcher(v.strip()).matches()) {
            throw new ConfigException(
                flag
                    + ": '"
                    + v
                    + "' is not accepted; accepted: a positive "
                    + DURATION_SYNTAX
                    + ", e.g. 500ms, 10s, 10min, 7d");
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
    return of(
        name,
        String.join("|", names),
        (flag, v) -> {
          for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(v.strip())) {
              return e;
            }
          }
          throw new ConfigException(
              flag + ": '" + v + "' is not accepted; accepted: " + String.join(", ", names));
        });
  }

  /** A comma-separated list of non-empty items. */
  public static Option<List<String>> list(String name, String arg) {
    return of(
        name,
        arg,
        (flag, v) -> {
          List<String> out = new ArrayList<>();
          for (String s : v.split(",")) {
            if (!s.strip().isEmpty()) {
              out.add(s.strip());
            }
          }
          if (out.isEmpty()) {
            throw new ConfigException(
                flag + ": '" + v + "' is not accepted; accepted: a comma-separated list");
          }
          return List.copyOf(out);
        });
  }

  /** The commands that take it (plan: those of run); {@code run} alone if not declared. */
  Option<T> forCommands(Command first, Command... more) {
    this.commands = EnumSet.of(first, more);
    return this;
  }

  /**
   * The library {@link Parameter} this flag sets: the library's messages name the parameter, and
   * the job says the flag instead ({@link Flags#parameterFlags()}).
   */
  Option<T> sets(Parameter p) {
    this.parameter = p;
    return this;
  }

  /** The library parameter this flag sets; null if none. */
  Parameter parameter() {
    return parameter;
  }

  /** The filter kinds it belongs to; all if not declared. */
  Option<T> forFilters(FilterSpec.Kind first, FilterSpec.Kind... more) {
    this.filters = EnumSet.of(first, more);
    return this;
  }

  /**
   * The value may be left out ({@code --strip-params} alone, or {@code strip-params} alone on a
   * config line) and then is {@code value}; an empty value given explicitly is not the same.
   */
  Option<T> whenAlone(String value) {
    this.whenAlone = value;
    return this;
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
    return whenAlone != null;
  }

  /**
   * The value of a flag given without one: "true" for a switch, the declared one for an optional
   * value.
   */
  String valueWhenAlone() {
    return isSwitch() ? "true" : whenAlone;
  }

  /** Whether {@code command} takes it; {@code plan} takes what {@code run} takes. */
  boolean takenBy(Command command) {
    return commands.contains(command) || command == Command.PLAN && commands.contains(Command.RUN);
  }

  /** The commands that take it, as typed, in {@link Command} order. */
  List<String> commandWords() {
    List<String> out = new ArrayList<>();
    for (Command c : Command.values()) {
      if (takenBy(c)) {
        out.add(c.word());
      }
    }
    return out;
  }

  /** Whether it belongs to the filter {@code kind}. */
  boolean appliesTo(FilterSpec.Kind kind) {
    return filters.contains(kind);
  }

  /** Whether it belongs to some filter kinds only (then it sizes or shapes that filter). */
  boolean filterSpecific() {
    return filters.size() < FilterSpec.Kind.values().length;
  }

  /** The filter kinds it belongs to, as typed. */
  List<String> filterWords() {
    List<String> out = new ArrayList<>();
    for (FilterSpec.Kind k : filters) {
      out.add(k.name().toLowerCase(Locale.ROOT));
    }
    return out;
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
      case "true":
      case "yes":
      case "on":
      case "1":
        return true;
      case "false":
      case "no":
      case "off":
      case "0":
        return false;
      default:
        throw new ConfigException(
            flag + ": '" + value + "' is not accepted; accepted: true, false");
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
