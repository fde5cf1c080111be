package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import io.urldedup.operators.url.CanonicalUrl;
import io.urldedup.operators.url.CanonicalizationRules;
import io.urldedup.operators.url.InvalidUrlException;
import io.urldedup.operators.url.UrlCanonicalizerCore;
import io.urldedup.operators.url.UsvString;

/**
 * The canonical form of crawler URLs (docs/canonicalization.md): the WHATWG URL Standard's parsing
 * and serialization of absolute http and https URLs with the default rules (userinfo and fragment
 * dropped, percent-escapes normalized per RFC 3986 6.2.2, one host trailing dot and an empty query
 * dropped), then the job's opt-in {@link CanonicalizationRules}. URLs already in canonical form
 * take a one-pass fast path that builds nothing.
 *
 * <p>Not thread-safe (one instance per task); not serializable (build it in {@code open()}).
 */
public final class UrlCanonicalizer {

  private final UrlCanonicalizerCore core;
  private final CanonicalUrl scratch = new CanonicalUrl();

  public UrlCanonicalizer(CanonicalizationRules rules) {
    this.core = new UrlCanonicalizerCore(rules);
  }

  /** Default rules only. */
  public static UrlCanonicalizer defaults() {
    return new UrlCanonicalizer(CanonicalizationRules.NONE);
  }

  public static UrlCanonicalizer of(DecodeConfig config) {
    return new UrlCanonicalizer(config.rules());
  }

  /**
   * Canonicalizes the well-formed UTF-8 {@code b[off, off+len)} into {@code out}, a view of the
   * input (fast path) or of this canonicalizer's buffer, valid until the next call.
   *
   * @throws UrlRejectedException with the reason when the input is no absolute http(s) URL
   */
  public void canonicalize(byte[] b, int off, int len, CanonicalUrl out)
      throws UrlRejectedException {
    try {
      core.canonicalize(b, off, len, out);
    } catch (InvalidUrlException e) {
      throw rejected(e);
    }
  }

  /** The canonical form of {@code input} (unpaired surrogates read as U+FFFD). */
  public String canonicalize(String input) throws UrlRejectedException {
    byte[] b = UsvString.utf8(input);
    canonicalize(b, 0, b.length, scratch);
    return new String(scratch.bytes, scratch.start, scratch.length(), ISO_8859_1);
  }

  /** The URL front end's reasons are a subset of the decoder's dead-letter reasons, by name. */
  private static UrlRejectedException rejected(InvalidUrlException e) {
    RejectReason reason =
        switch (e.reason()) {
          case EMPTY -> RejectReason.EMPTY;
          case RELATIVE_URL -> RejectReason.RELATIVE_URL;
          case UNSUPPORTED_SCHEME -> RejectReason.UNSUPPORTED_SCHEME;
          case BAD_HOST -> RejectReason.BAD_HOST;
          case BAD_PORT -> RejectReason.BAD_PORT;
        };
    return new UrlRejectedException(reason, e.detail());
  }
}
