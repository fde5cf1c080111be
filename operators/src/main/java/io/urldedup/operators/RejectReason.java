package io.urldedup.operators;

import java.util.Locale;

/**
 * Why an input record was sent to the dead-letter output. {@link #label()} is the lower-case name
 * used in metric names ({@code invalid_<label>}) and in dead-letter headers.
 *
 * <p>Persisted by name, never by ordinal: add reasons freely, never rename one.
 */
public enum RejectReason {
  /** Null (tombstone) or empty value, or only whitespace. */
  EMPTY,
  /** Not well-formed UTF-8 (strict decoder). */
  BAD_UTF8,
  /** Value longer than the hard input limit, or URL longer than {@code --max-url-bytes}. */
  TOO_LONG,
  /** Control characters (C0, DEL, C1) inside the URL. */
  CONTROL_CHARS,
  /** JSON format: not well-formed JSON (syntax, nesting depth, trailing content). */
  NOT_JSON,
  /** JSON format: the top-level value is not an object. */
  NOT_OBJECT,
  /** JSON format: no top-level {@code url} field. */
  MISSING_URL,
  /** JSON format: {@code url} is not a string. */
  URL_NOT_STRING,
  /** JSON format: {@code force} is neither true nor false. */
  FORCE_NOT_BOOLEAN,
  /** JSON format: {@code url} or {@code force} appears twice at the top level (ambiguous). */
  DUPLICATE_FIELD,
  /** No scheme: a relative or protocol-relative reference. */
  RELATIVE_URL,
  /** A scheme other than http or https. */
  UNSUPPORTED_SCHEME,
  /** Missing, empty or malformed host (bad characters, bad escapes, bad IDN, label lengths). */
  BAD_HOST,
  /** Port not a number in 1..65535. */
  BAD_PORT,
  /** Rejected by the URL parser or the normalizer (bad port, bad syntax). */
  UNPARSEABLE;

  private final String label = name().toLowerCase(Locale.ROOT);

  public String label() {
    return label;
  }
}
