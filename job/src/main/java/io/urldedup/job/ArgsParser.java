package io.urldedup.job;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads a command's flags from its arguments and an optional {@code --config FILE} ({@code
 * key=value} lines, same keys, flags win) into the values as typed, by flag name; {@link JobConfig}
 * parses each with its {@link Option}. Every error names the flag and the accepted values; a config
 * file's line is never repeated in a message (it may hold a secret).
 */
final class ArgsParser {

  /**
   * The values as typed, by flag name ({@link Flags#CONFIG} resolved and removed); {@code origins}:
   * the {@code FILE:LINE} of each value that came from the config file and not the command line.
   */
  record Given(Map<String, String> values, Map<String, String> origins) {}

  private ArgsParser() {}

  /**
   * The flags of {@code command}. A flag on the command line that the command does not take is
   * refused; a {@code --config} file's keys that it does not take are skipped (one file serves
   * every command of a job, as {@code --help} says).
   */
  static Given parse(Command command, String[] args) {
    Map<String, String> cli = parseArgs(args);
    for (String name : cli.keySet()) {
      Option<?> o = Flags.named(name);
      if (!o.takenBy(command)) {
        throw new ConfigException(
            o.flag()
                + " is not a flag of "
                + command.word()
                + " (it is for "
                + String.join(", ", o.commandWords())
                + "); "
                + command.word()
                + " takes "
                + Flags.listFor(command));
      }
    }
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> where = new HashMap<>();
    String configFile = cli.get(Flags.CONFIG.name());
    if (configFile != null) {
      readConfigFile(configFile, where)
          .forEach(
              (name, value) -> {
                if (Flags.named(name).takenBy(command)) {
                  values.put(name, value);
                }
              });
    }
    values.putAll(cli);
    where.keySet().removeAll(cli.keySet());
    values.remove(Flags.CONFIG.name());
    return new Given(values, where);
  }

  /**
   * Splits {@code args} into flags (with their values) and the words that are not flags (probe's
   * URLs), using the options' arity.
   */
  static List<List<String>> splitPositionals(String[] args) {
    List<String> flags = new ArrayList<>();
    List<String> words = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        words.add(a);
        continue;
      }
      flags.add(a);
      String name = a.substring(2);
      Option<?> f = name.contains("=") ? null : Flags.named(name);
      if (f != null
          && !f.isSwitch()
          && i + 1 < args.length
          && !(f.valueOptional() && args[i + 1].startsWith("--"))) {
        flags.add(args[++i]);
      }
    }
    return List.of(flags, words);
  }

  private static Map<String, String> parseArgs(String[] args) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--") || a.length() == 2) {
        throw new ConfigException(
            "unexpected argument '" + a + "'; flags start with -- (see --help)");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      Option<?> f = Flags.named(name);
      if (f == null) {
        throw new ConfigException(
            "--"
                + name
                + " is not a flag"
                + didYouMean(name, false)
                + "; accepted: "
                + String.join(", ", Flags.names())
                + " (see --help)");
      }
      if (value == null) {
        if (f.isSwitch()) {
          value = f.valueWhenAlone();
        } else if (f.valueOptional()) {
          value =
              i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : f.valueWhenAlone();
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new ConfigException("--" + name + " needs a value: " + f.arg());
        }
      }
      out.put(name, value);
    }
    return out;
  }

  /**
   * The file's {@code key=value} lines; {@code where} gets each key's {@code FILE:LINE}. A line
   * whose key is no flag is never repeated in the message: it may be a secret on a line of its own
   * or after a mistyped key ({@code hash-seed 0x...} without '='); only flag names are.
   */
  private static Map<String, String> readConfigFile(String file, Map<String, String> where) {
    List<String> lines;
    try {
      lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException(
          "--config: cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (int n = 0; n < lines.size(); n++) {
      String line = lines.get(n).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String at = file + ":" + (n + 1);
      int eq = line.indexOf('=');
      String name = (eq < 0 ? line : line.substring(0, eq)).strip();
      Option<?> f = Flags.named(name);
      if (f == null) {
        throw new ConfigException(
            at
                + ": the key is not a flag (the line is not shown: it may hold a secret)"
                + didYouMean(name, true)
                + "; accepted: key=value lines with the flags' names (see --help)");
      }
      if (f == Flags.CONFIG) {
        throw new ConfigException(at + ": 'config' cannot be nested");
      }
      String value = eq < 0 ? null : line.substring(eq + 1).strip();
      if (value == null) {
        value = f.valueWhenAlone();
        if (value == null) {
          throw new ConfigException(at + ": " + name + " needs a value: " + name + "=" + f.arg());
        }
      }
      out.put(name, value);
      where.put(name, at);
    }
    return out;
  }

  /**
   * ", did you mean --x?" (in a file: "x=VALUE") for the flag whose name starts {@code text} (a key
   * followed by a space and a value) or is within a few edits of it; "" if none is. Only a flag
   * name is ever shown, never the text.
   */
  private static String didYouMean(String text, boolean file) {
    String t = text.toLowerCase(Locale.ROOT).replace('_', '-');
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String name : Flags.names()) {
      if (t.startsWith(name)
          && t.length() > name.length()
          && !Character.isLetterOrDigit(t.charAt(name.length()))
          && t.charAt(name.length()) != '-') {
        best = name;
        bestDistance = 0;
        break;
      }
      int d = editDistance(t, name);
      if (d < bestDistance) {
        bestDistance = d;
        best = name;
      }
    }
    if (bestDistance > Math.max(1, best.length() / 4)) {
      return "";
    }
    return ", did you mean " + (file ? best + "=VALUE" : "--" + best) + "?";
  }

  private static int editDistance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitute = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(Math.min(cur[j - 1], prev[j]) + 1, substitute);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
