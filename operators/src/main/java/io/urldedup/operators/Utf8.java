package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;

/**
 * Strict UTF-8 validation (the JDK decoder with {@link CodingErrorAction#REPORT}: overlong forms,
 * surrogates and truncated sequences are errors). ASCII is checked by a plain loop first. Reuses
 * one scratch buffer: not thread-safe.
 */
final class Utf8 {

  private final CharsetDecoder decoder =
      UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);
  private final CharBuffer scratch = CharBuffer.allocate(4096);

  /** The offset (from {@code off}) of the first malformed byte, or -1 if well-formed. */
  int firstMalformed(byte[] b, int off, int len) {
    int i = off;
    int end = off + len;
    while (i < end && b[i] >= 0) {
      i++;
    }
    if (i == end) {
      return -1;
    }
    decoder.reset();
    ByteBuffer in = ByteBuffer.wrap(b, i, end - i);
    while (true) {
      scratch.clear();
      CoderResult r = decoder.decode(in, scratch, true);
      if (r.isError()) {
        return in.position() - off;
      }
      if (r.isUnderflow()) {
        scratch.clear();
        r = decoder.flush(scratch);
        return r.isError() ? in.position() - off : -1;
      }
    }
  }
}
