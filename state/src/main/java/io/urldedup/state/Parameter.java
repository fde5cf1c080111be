package io.urldedup.state;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parameters the library's messages name. A message is a template that writes a parameter as
 * {@code {fpr}}; the library renders it with the parameter's own name ({@link #toString}), and a
 * front end with its own names, e.g. the job with its flags ({@code --fpr}). So no library class
 * knows the command line.
 */
public enum Parameter {
  KIND("kind"),
  FPR("fpr"),
  MEMORY_BYTES("memoryBytes"),
  CELL_BITS("cellBits"),
  CAPACITY("capacity"),
  GROWTH("growth"),
  TIGHTENING("tightening"),
  MAX_MEMORY_BYTES("maxMemoryBytes"),
  WINDOW_URLS("windowUrls"),
  WINDOW_MILLIS("windowMillis"),
  GENERATIONS("generations"),
  RATE("rate"),
  SHARDS("shards"),
  HASH_SEED("hashSeed"),
  ALLOW_CANONICALIZATION_CHANGE("allowCanonicalizationChange"),
  FORMAT("format"),
  KEY("key"),
  MAX_URL_BYTES("maxUrlBytes"),
  STRIP_PARAMS("stripParams"),
  MATERIALIZE_EVERY("materializeEvery"),
  MAX_OUT_OF_ORDERNESS("maxOutOfOrderness");

  private static final Pattern PLACEHOLDER = Pattern.compile("\\{([A-Za-z]+)\\}");

  private final String name;

  Parameter(String name) {
    this.name = name;
  }

  /** The placeholder a message template writes for this parameter. */
  public String placeholder() {
    return "{" + name + "}";
  }

  /** The library's name: the Java name of the field or argument. */
  @Override
  public String toString() {
    return name;
  }

  /**
   * {@code template} with each placeholder replaced by {@code names}' name for it, or by the
   * library's name where {@code names} has none. Text in braces that names no parameter stays.
   */
  public static String render(String template, Map<Parameter, String> names) {
    Matcher m = PLACEHOLDER.matcher(template);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      Parameter p = byName(m.group(1));
      String text = p == null ? m.group() : names.getOrDefault(p, p.name);
      m.appendReplacement(out, Matcher.quoteReplacement(text));
    }
    return m.appendTail(out).toString();
  }

  private static Parameter byName(String name) {
    for (Parameter p : values()) {
      if (p.name.equals(name)) {
        return p;
      }
    }
    return null;
  }
}
