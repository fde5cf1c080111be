package io.urldedup.operators;

/**
 * A URL that cannot be canonicalized, with the reason. Carries no stack trace: it is an expected
 * outcome on the record path, not an error.
 */
public final class UrlRejectedException extends Exception {

  private static final long serialVersionUID = 1L;

  private final RejectReason reason;

  public UrlRejectedException(RejectReason reason, String detail) {
    super(detail, null, false, false);
    this.reason = reason;
  }

  public RejectReason reason() {
    return reason;
  }

  /** What exactly was wrong. */
  public String detail() {
    return getMessage();
  }
}
