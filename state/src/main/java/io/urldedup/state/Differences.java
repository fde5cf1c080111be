package io.urldedup.state;

/**
 * The "what differs" list of an {@link IncompatibleStateException}: {@code {parameter} was in state
 * vs now now}, comma-separated, in the order the checks run.
 */
final class Differences {

  private final StringBuilder text = new StringBuilder();

  /** Adds {@code p} if {@code was} and {@code now} differ ({@link Object#equals}). */
  Differences add(Parameter p, Object was, Object now) {
    return add(p, "", was, now);
  }

  /** As {@link #add(Parameter, Object, Object)}, with a note after the name, e.g. " (ms)". */
  Differences add(Parameter p, String note, Object was, Object now) {
    return add(p.placeholder() + note, was, now);
  }

  /** Adds {@code name} (a template) if {@code was} and {@code now} differ. */
  Differences add(String name, Object was, Object now) {
    if (!was.equals(now)) {
      if (text.length() > 0) {
        text.append(", ");
      }
      text.append(name).append(' ').append(was).append(" in state vs ").append(now).append(" now");
    }
    return this;
  }

  boolean isEmpty() {
    return text.length() == 0;
  }

  @Override
  public String toString() {
    return text.toString();
  }
}
