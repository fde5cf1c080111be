package io.urldedup.operators.url;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * Fast path, parser and opt-in rules in order: {@link CanonicalFastPath} answers for URLs already
 * canonical, {@link WhatwgUrlParser} for the rest, then the {@link CanonicalizationRules} when any
 * is on (their result is parsed once more, so that a stripped path parameter cannot leave a dot
 * segment behind). Not thread-safe.
 */
public final class UrlCanonicalizerCore {

  private final CanonicalizationRules rules;
  private final boolean hasRules;
  private final WhatwgUrlParser parser = new WhatwgUrlParser();
  private WhatwgUrlParser reparser;

  public UrlCanonicalizerCore(CanonicalizationRules rules) {
    this.rules = rules;
    this.hasRules = !rules.isEmpty();
  }

  public void canonicalize(byte[] b, int off, int len, CanonicalUrl out)
      throws InvalidUrlException {
    if (CanonicalFastPath.matches(b, off, off + len, rules, out)) {
      return;
    }
    parser.parse(b, off, len, out);
    if (hasRules) {
      String url = new String(out.bytes, out.start, out.length(), ISO_8859_1);
      String r =
          rules.apply(
              url,
              out.hostStart - out.start,
              out.hostEnd - out.start,
              out.pathStart - out.start,
              out.queryStart < 0 ? -1 : out.queryStart - out.start);
      if (r != url) {
        if (reparser == null) {
          reparser = new WhatwgUrlParser();
        }
        byte[] rb = r.getBytes(ISO_8859_1);
        reparser.parse(rb, 0, rb.length, out);
      }
    }
  }

  /** The slow path alone (for the differential test). */
  void parseOnly(byte[] b, int off, int len, CanonicalUrl out) throws InvalidUrlException {
    parser.parse(b, off, len, out);
  }
}
