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
  /**
   * No longer given: the WHATWG URL Standard trims leading and trailing C0 controls, removes tabs
   * and newlines and percent-encodes other controls; in a host they are {@link #BAD_HOST}. Kept
   * because reasons are persisted by name.
   */
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
  /**
   * The WHATWG host parser fails: empty host, forbidden code point (also after percent-decoding),
   * bad IPv6 address, a host ending in a number that is no IPv4 address, UTS #46 error.
   */
  BAD_HOST,
  /** Port not a decimal number in 0..65535. */
  BAD_PORT,
  /**
   * Event time from JSON ({@code --time event} in embedded mode): the top-level field {@code ts} is
   * missing, duplicated, or neither epoch milliseconds nor an ISO-8601 date-time with an offset.
   */
  BAD_TIMESTAMP,
  /**
   * A decoder failure on this record (a bug, logged once; the record is kept as a dead letter). The
   * parser itself fails only with the reasons above.
   */
  UNPARSEABLE;

  private final String label = name().toLowerCase(Locale.ROOT);

  public String label() {
    return label;
  }
}
