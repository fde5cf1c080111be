package io.urldedup.operators;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import io.urldedup.operators.url.CanonicalUrl;
import io.urldedup.operators.url.UsvString;
import io.urldedup.state.UrlHasher;
import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;

/**
 * Decodes one {@link RawRecord} into a {@link UrlRecord}: UTF-8 check, format (text or JSON),
 * canonical URL, one hash of its UTF-8 bytes, shard and output key. Invalid input raises {@link
 * UrlRejectedException} with the reason; no other exception is expected on any input.
 *
 * <p>JSON values keep every byte but the {@code url} string, which is replaced by the canonical URL
 * (spliced at the token's byte offsets, JSON-escaped). When the canonical URL equals the input the
 * input array is reused and hashed in place.
 *
 * <p>Not thread-safe: one instance per task.
 */
public final class RecordDecoder {

  /** Hard limit on a JSON value (Kafka's default {@code max.message.bytes} is about 1 MB). */
  public static final int MAX_JSON_BYTES = 1 << 20;

  /**
   * What a line reader keeps of a longer line (the embedded mode's: {@code MAX_JSON_BYTES + 1}, so
   * every decoder rejects it): the true length of a value this long is not known here, only that it
   * is more than {@link #MAX_JSON_BYTES}, and its {@code too_long} detail says so.
   */
  public static final int CUT_BYTES = MAX_JSON_BYTES + 1;

  private final DecodeConfig config;
  private final int maxUrlBytes;
  private final int shards;
  private final UrlCanonicalizer canonicalizer;
  private final OutputKey outputKey;
  private final UrlHasher hasher;
  private final Utf8 utf8 = new Utf8();
  // no String.intern of untrusted field names; canonicalization stays on: without it Jackson
  // falls back to a Reader-based parser that has no byte offsets (and its symbol table is bounded)
  private final JsonFactory json =
      JsonFactory.builder().disable(JsonFactory.Feature.INTERN_FIELD_NAMES).build();
  private final long[] hash = new long[2];
  private final CanonicalUrl canonical = new CanonicalUrl();

  public RecordDecoder(DecodeConfig config) {
    this.config = config;
    this.maxUrlBytes = config.maxUrlBytes();
    this.shards = config.shards();
    this.canonicalizer = UrlCanonicalizer.of(config);
    this.outputKey = new OutputKey(config.keyMode());
    this.hasher = new UrlHasher(config.hashSeed());
  }

  public UrlRecord decode(RawRecord r) throws UrlRejectedException {
    return config.format() == DecodeConfig.Format.JSON ? decodeJson(r) : decodeText(r);
  }

  private UrlRecord decodeText(RawRecord r) throws UrlRejectedException {
    byte[] v = r.value;
    if (v == null) {
      throw new UrlRejectedException(RejectReason.EMPTY, "null value (tombstone)");
    }
    int s = 0;
    int e = v.length;
    if (e >= 3 && v[0] == (byte) 0xEF && v[1] == (byte) 0xBB && v[2] == (byte) 0xBF) {
      s = 3; // a UTF-8 byte order mark, as at the start of a text file
    }
    while (s < e && isSpace(v[s])) {
      s++;
    }
    while (e > s && isSpace(v[e - 1])) {
      e--;
    }
    if (s == e) {
      throw new UrlRejectedException(
          RejectReason.EMPTY, v.length == 0 ? "empty value" : "value is only whitespace");
    }
    int len = e - s;
    if (len > maxUrlBytes) {
      throw v.length == CUT_BYTES ? cut("URL") : tooLong("URL", len);
    }
    int bad = utf8.firstMalformed(v, s, len);
    if (bad >= 0) {
      throw new UrlRejectedException(RejectReason.BAD_UTF8, "malformed UTF-8 at byte " + (s + bad));
    }
    canonicalizer.canonicalize(v, s, len, canonical);
    CanonicalUrl c = canonical;
    if (c.length() > maxUrlBytes) {
      throw tooLong("canonical URL", c.length());
    }
    // the value is the output line, the canonical URL: the input itself when it was canonical
    byte[] out =
        c.isInput && c.start == 0 && c.end == v.length
            ? v
            : Arrays.copyOfRange(c.bytes, c.start, c.end);
    return emit(out, out, 0, r, false);
  }

  private UrlRecord decodeJson(RawRecord r) throws UrlRejectedException {
    byte[] v = r.value;
    if (v == null) {
      throw new UrlRejectedException(RejectReason.EMPTY, "null value (tombstone)");
    }
    if (v.length == 0) {
      throw new UrlRejectedException(RejectReason.EMPTY, "empty value");
    }
    if (v.length > MAX_JSON_BYTES) {
      throw new UrlRejectedException(
          RejectReason.TOO_LONG,
          "JSON value is "
              + (v.length == CUT_BYTES ? "more than " + MAX_JSON_BYTES : v.length)
              + " bytes (limit "
              + MAX_JSON_BYTES
              + ")");
    }
    int bad = utf8.firstMalformed(v, 0, v.length);
    if (bad >= 0) {
      throw new UrlRejectedException(RejectReason.BAD_UTF8, "malformed UTF-8 at byte " + bad);
    }

    String url = null;
    long urlOffset = -1;
    JsonToken urlType = null;
    int urlCount = 0;
    int forceCount = 0;
    JsonToken forceType = null;
    try (JsonParser p = json.createParser(v)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        throw new UrlRejectedException(RejectReason.EMPTY, "value is only whitespace");
      }
      if (t != JsonToken.START_OBJECT) {
        p.skipChildren();
        checkEnd(p);
        throw new UrlRejectedException(
            RejectReason.NOT_OBJECT, "top-level JSON value is " + describe(t) + ", not an object");
      }
      while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        if ("url".equals(name)) {
          urlCount++;
          urlType = value;
          if (value == JsonToken.VALUE_STRING) {
            url = p.getText();
            urlOffset = p.currentTokenLocation().getByteOffset();
          }
        } else if ("force".equals(name)) {
          forceCount++;
          forceType = value;
        }
        p.skipChildren();
      }
      if (t != JsonToken.END_OBJECT) {
        throw new UrlRejectedException(
            RejectReason.NOT_JSON,
            "unexpected content at byte " + p.currentTokenLocation().getByteOffset());
      }
      checkEnd(p);
    } catch (JsonProcessingException ex) {
      throw new UrlRejectedException(RejectReason.NOT_JSON, jsonDetail(ex, v));
    } catch (IOException ex) {
      // a parser over a byte array reads nothing else; kept short and stable like the others
      throw new UrlRejectedException(RejectReason.NOT_JSON, "unreadable JSON");
    }

    if (urlCount > 1 || forceCount > 1) {
      throw new UrlRejectedException(
          RejectReason.DUPLICATE_FIELD,
          "field '" + (urlCount > 1 ? "url" : "force") + "' appears more than once");
    }
    if (urlCount == 0) {
      throw new UrlRejectedException(RejectReason.MISSING_URL, "no top-level field 'url'");
    }
    if (url == null) {
      throw new UrlRejectedException(
          RejectReason.URL_NOT_STRING, "field 'url' is " + describe(urlType) + ", not a string");
    }
    boolean force = false;
    if (forceCount == 1) {
      if (forceType == JsonToken.VALUE_TRUE) {
        force = true;
      } else if (forceType != JsonToken.VALUE_FALSE) {
        throw new UrlRejectedException(
            RejectReason.FORCE_NOT_BOOLEAN,
            "field 'force' is " + describe(forceType) + ", not true or false");
      }
    }
    // the raw string token: opening quote at urlOffset, closing quote found by skipping escapes
    int q0 = (int) urlOffset;
    if (urlOffset < 0 || urlOffset >= v.length || v[q0] != '"') {
      throw new UrlRejectedException(RejectReason.NOT_JSON, "url token not found at its offset");
    }
    int q1 = q0 + 1;
    while (q1 < v.length && v[q1] != '"') {
      q1 += v[q1] == '\\' ? 2 : 1;
    }
    if (q1 >= v.length) {
      throw new UrlRejectedException(RejectReason.NOT_JSON, "url string not terminated");
    }
    if (hasLoneSurrogate(url)) {
      // a \ud800 escape encodes no character, as the bytes ED A0 80 encode none in text: both
      // are bad_utf8. Read as U+FFFD, every such URL would be one URL (a collision).
      int at = loneSurrogateEscape(v, q0 + 1, q1);
      throw new UrlRejectedException(
          RejectReason.BAD_UTF8,
          "field 'url' has an unpaired surrogate escape "
              + new String(v, at, 6, ISO_8859_1)
              + " at byte "
              + at
              + " (no Unicode character)");
    }
    byte[] urlBytes = UsvString.utf8(url);
    if (urlBytes.length > maxUrlBytes) {
      throw tooLong("URL", urlBytes.length);
    }

    int rawLen = q1 - q0 - 1;
    canonicalizer.canonicalize(urlBytes, 0, urlBytes.length, canonical);
    CanonicalUrl c = canonical;
    if (c.length() > maxUrlBytes) {
      throw tooLong("canonical URL", c.length());
    }
    byte[] cb =
        c.isInput && c.start == 0 && c.end == urlBytes.length
            ? urlBytes
            : Arrays.copyOfRange(c.bytes, c.start, c.end);
    if (cb.length == rawLen && Arrays.equals(cb, 0, rawLen, v, q0 + 1, q1)) {
      // canonical and unescaped: the input is the output, and holds the URL
      return emit(v, v, q0 + 1, r, force);
    }
    String cs = new String(cb, ISO_8859_1);
    byte[] quoted = JsonStringEncoder.getInstance().quoteAsUTF8(cs);
    byte[] out = new byte[v.length - rawLen + quoted.length];
    System.arraycopy(v, 0, out, 0, q0 + 1);
    System.arraycopy(quoted, 0, out, q0 + 1, quoted.length);
    System.arraycopy(v, q1, out, q0 + 1 + quoted.length, v.length - q1);
    // the URL is a range of the output unless JSON escaping changed its bytes
    return Arrays.equals(quoted, cb)
        ? emit(out, out, q0 + 1, r, force)
        : emit(out, cb, 0, r, force);
  }

  /**
   * The record of the canonical URL in {@link #canonical}, whose bytes are also at {@code
   * urlBytes[off, off+length)} ({@code urlBytes} is {@code value} when the value holds them). The
   * record is the only object allocated here: URL and key are ranges.
   */
  private UrlRecord emit(byte[] value, byte[] urlBytes, int off, RawRecord r, boolean force) {
    CanonicalUrl c = canonical;
    int len = c.length();
    hasher.hash(urlBytes, off, len, hash);
    UrlRecord out = new UrlRecord();
    out.value = value;
    out.setUrl(urlBytes, off, len);
    outputKey.set(out, urlBytes, off + c.hostStart - c.start, off + c.hostEnd - c.start);
    out.headers = r.headers == null ? RecordHeaders.EMPTY : r.headers;
    out.h1 = hash[0];
    out.h2 = hash[1];
    out.shard = UrlHasher.shard(out.h1, out.h2, shards);
    out.force = force;
    return out;
  }

  private static void checkEnd(JsonParser p) throws IOException, UrlRejectedException {
    JsonToken t = p.nextToken();
    if (t != null) {
      throw new UrlRejectedException(
          RejectReason.NOT_JSON,
          "trailing content after the top-level value at byte "
              + p.currentTokenLocation().getByteOffset());
    }
  }

  private UrlRejectedException tooLong(String what, int bytes) {
    return new UrlRejectedException(
        RejectReason.TOO_LONG,
        what + " is " + bytes + " bytes (--max-url-bytes " + maxUrlBytes + ")");
  }

  /**
   * A value of {@link #CUT_BYTES}: maybe the start of a longer line, whose length is unknown here.
   */
  private UrlRejectedException cut(String what) {
    return new UrlRejectedException(
        RejectReason.TOO_LONG,
        what + " is more than " + MAX_JSON_BYTES + " bytes (--max-url-bytes " + maxUrlBytes + ")");
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\f' || b == 0x0B;
  }

  private static String describe(JsonToken t) {
    if (t == null) {
      return "missing";
    }
    switch (t) {
      case START_ARRAY:
        return "an array";
      case START_OBJECT:
        return "an object";
      case VALUE_STRING:
        return "a string";
      case VALUE_NUMBER_INT:
      case VALUE_NUMBER_FLOAT:
        return "a number";
      case VALUE_TRUE:
      case VALUE_FALSE:
        return "a boolean";
      case VALUE_NULL:
        return "null";
      default:
        return t.name().toLowerCase(Locale.ROOT);
    }
  }

  /** Whether {@code s} holds a surrogate without its other half. */
  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The offset of the first {@code \\uXXXX} escape in the string token {@code v[from, to)} that is
   * a surrogate without its other half (the parser has checked the escapes' syntax); {@code from}
   * if there is none, which {@link #hasLoneSurrogate} rules out.
   */
  private static int loneSurrogateEscape(byte[] v, int from, int to) {
    int high = -1; // a high surrogate's escape, waiting for its low half
    int i = from;
    while (i < to) {
      int c = -1;
      int next = i + 1;
      if (v[i] == '\\') {
        next = i + 2;
        if (v[i + 1] == 'u') {
          c = Integer.parseInt(new String(v, i + 2, 4, ISO_8859_1), 16);
          next = i + 6;
        }
      }
      if (high >= 0 && !(c >= 0 && Character.isLowSurrogate((char) c))) {
        return high;
      }
      if (c >= 0 && Character.isHighSurrogate((char) c) && high < 0) {
        high = i;
      } else if (c >= 0 && Character.isLowSurrogate((char) c) && high < 0) {
        return i;
      } else {
        high = -1;
      }
      i = next;
    }
    return high >= 0 ? high : from;
  }

  /**
   * What is wrong and where, in words of our own: the parser's messages name its internals (its
   * token types, its limits' class names) and change with its versions, and a dead letter's detail
   * is read by people and grepped by scripts.
   */
  private static String jsonDetail(JsonProcessingException e, byte[] v) {
    JsonLocation loc = e.getLocation();
    long at = loc == null ? -1 : loc.getByteOffset();
    String what;
    if (e instanceof JsonEOFException) {
      what = "unexpected end of input";
    } else if (e instanceof StreamConstraintsException) {
      String m = String.valueOf(e.getOriginalMessage());
      what =
          m.contains("nesting depth")
              ? "nested deeper than " + StreamReadConstraints.DEFAULT_MAX_DEPTH + " levels"
              : "a number, string or name longer than the parser allows";
    } else if (at >= 0 && at < v.length) {
      int b = v[(int) at] & 0xFF;
      what =
          "unexpected character "
              + (b > 0x20 && b < 0x7F ? "'" + (char) b + "'" : String.format("0x%02x", b));
    } else {
      what = "invalid JSON";
    }
    return at >= 0 ? what + " at byte " + at : what;
  }
}
