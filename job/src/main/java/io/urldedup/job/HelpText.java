package io.urldedup.job;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code --help} text, rendered from the {@link Flags} declarations: each flag's section,
 * value, help, default and commands. README's flag block is this text (ReadmeTest pins it), so it
 * changes only with a declaration.
 */
final class HelpText {

  private HelpText() {}

  /** The {@code --help} text: every flag with its values and default. */
  static String render() {
    StringBuilder b = new StringBuilder();
    b.append("Usage: urldedup <command> [flags]\n\n")
        .append("Commands:\n")
        .append(
            "  run      deduplicate: Kafka mode if Kafka flags are given, else embedded (local files)\n")
        .append(
            "  plan     print the filter sizing for the given flags (it takes run's flags) and exit;\n")
        .append(
            "           exit 2 after the plan if run here would refuse them (the filter does not fit\n")
        .append("           this JVM's heap, with run's message)\n")
        .append(
            "           (plan --json: the same numbers as one JSON document, docs/plan-json.md)\n")
        .append(
            "  bootstrap  --input FILE|- --state DIR: a savepoint holding FILE's URLs as seen\n")
        .append(
            "  inspect  --state DIR [--json]: what the filter state holds, per shard and in total\n")
        .append(
            "  probe    --state DIR URL... | --input FILE: canonical form and seen/unseen per URL\n")
        .append("  version  print the version\n")
        .append("  help     print this text\n\n")
        .append(
            "A flag is for run and plan unless its 'commands:' line says otherwise, and for every\n")
        .append(
            "--filter kind unless its text starts with one (stable:, scalable:, aged:). A flag given\n")
        .append(
            "where it does not apply is refused (exit 2); a --config file's keys that a command\n")
        .append("does not take are skipped.\n");
    List<String> runAndPlan = List.of(Command.RUN.word(), Command.PLAN.word());
    String section = null;
    for (Option<?> f : Flags.OPTIONS) {
      if (!f.section().equals(section)) {
        section = f.section();
        b.append('\n').append(section).append(":\n");
      }
      String head = "  " + f.flag() + (f.arg() == null ? "" : " " + f.arg());
      b.append(head).append('\n');
      for (String line : wrap(f.help(), 70)) {
        b.append("      ").append(line).append('\n');
      }
      if (f.defaultText() != null) {
        b.append("      default: ").append(f.defaultText()).append('\n');
      }
      if (!f.commandWords().equals(runAndPlan)) {
        b.append("      commands: ").append(String.join(", ", f.commandWords())).append('\n');
      }
    }
    b.append('\n');
    for (String line :
        wrap(
            "SIZE: "
                + Option.SIZE_SYNTAX
                + " (e.g. 64m, 1g). DURATION: a "
                + Option.DURATION_SYNTAX
                + " (e.g. 500ms, 10s, 10min, 7d).",
            78)) {
      b.append(line).append('\n');
    }
    b.append("Invalid values exit with code 2 and a message naming the flag.\n");
    return b.toString();
  }

  private static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }
}
