package io.urldedup.operators.url;

/**
 * Input the URL front end refuses: the WHATWG URL Standard fails it, or it is no absolute http(s)
 * URL. Invalid URLs are data, not bugs, so the exception carries no stack trace. The decoder maps
 * {@link Reason} onto its dead-letter reasons ({@code UrlCanonicalizer}); this package depends on
 * nothing else of urldedup.
 */
public final class InvalidUrlException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Why, as the dead-letter output names it (lower case). */
  public enum Reason {
    /** Nothing left after trimming C0 controls and spaces. */
    EMPTY,
    /** No scheme, or a scheme-relative or path-only reference: nothing to resolve it against. */
    RELATIVE_URL,
    /** A scheme other than http and https. */
    UNSUPPORTED_SCHEME,
    /** The host fails host parsing (IPv4, IPv6, IDNA, forbidden code points) or is empty. */
    BAD_HOST,
    /** The port is not a number below 65536. */
    BAD_PORT
  }

  private final Reason reason;

  public InvalidUrlException(Reason reason, String detail) {
    super(detail, null, false, false);
    this.reason = reason;
  }

  public Reason reason() {
    return reason;
  }

  /** What exactly was wrong, quoting at most a clipped part of the input. */
  public String detail() {
    return getMessage();
  }
}
