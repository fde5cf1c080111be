package io.urldedup.operators.url;

import com.ibm.icu.text.IDNA;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The WHATWG URL Standard's "domain to ASCII" with beStrict false: UTS #46 ToASCII via ICU4J,
 * nontransitional, CheckBidi and CheckJoiners on, UseSTD3ASCIIRules, CheckHyphens and
 * VerifyDnsLength off. ICU has no switch for CheckHyphens and VerifyDnsLength, so their errors are
 * ignored after the call (as Node.js did over ICU4C before Ada). Not thread-safe.
 */
final class Idna {

  private static final IDNA UTS46 =
      IDNA.getUTS46Instance(IDNA.NONTRANSITIONAL_TO_ASCII | IDNA.CHECK_BIDI | IDNA.CHECK_CONTEXTJ);

  /** Errors of the checks the standard turns off (CheckHyphens, VerifyDnsLength). */
  private static final Set<IDNA.Error> IGNORED =
      EnumSet.of(
          IDNA.Error.HYPHEN_3_4,
          IDNA.Error.LEADING_HYPHEN,
          IDNA.Error.TRAILING_HYPHEN,
          IDNA.Error.EMPTY_LABEL,
          IDNA.Error.LABEL_TOO_LONG,
          IDNA.Error.DOMAIN_NAME_TOO_LONG);

  private final StringBuilder out = new StringBuilder(64);
  private final IDNA.Info info = new IDNA.Info();
  private String error;

  /** The ASCII form of {@code domain}, or null with {@link #error()} set when it fails. */
  String toAscii(String domain) {
    out.setLength(0);
    UTS46.nameToASCII(domain, out, info);
    for (IDNA.Error e : info.getErrors()) {
      if (!IGNORED.contains(e)) {
        error = e.name().toLowerCase(Locale.ROOT);
        return null;
      }
    }
    return out.toString();
  }

  /** The UTS #46 error of the last failed {@link #toAscii}. */
  String error() {
    return error;
  }
}
