package io.urldedup.operators.url;

import java.util.Arrays;

/**
 * WHATWG URL Standard 3.5 IPv6 parser (with an embedded IPv4 tail and {@code ::} compression) and
 * serializer (RFC 5952: lower-case hex without leading zeros, the first longest run of two or more
 * zero pieces compressed to {@code ::}).
 */
final class Ipv6Host {

  private Ipv6Host() {}

  /**
   * Parses {@code b[s, e)} (without brackets) into 8 pieces; false when the standard rejects it.
   */
  static boolean parse(byte[] b, int s, int e, int[] address) {
    Arrays.fill(address, 0);
    int pieceIndex = 0;
    int compress = -1;
    int p = s;
    if (p < e && b[p] == ':') {
      if (p + 1 >= e || b[p + 1] != ':') {
        return false;
      }
      p += 2;
      pieceIndex++;
      compress = pieceIndex;
    }
    while (p < e) {
      if (pieceIndex == 8) {
        return false;
      }
      if (b[p] == ':') {
        if (compress != -1) {
          return false;
        }
        p++;
        pieceIndex++;
        compress = pieceIndex;
        continue;
      }
      int value = 0;
      int length = 0;
      while (length < 4 && p < e && Ascii.hex(b[p]) >= 0) {
        value = value * 16 + Ascii.hex(b[p]);
        p++;
        length++;
      }
      if (p < e && b[p] == '.') {
        if (length == 0) {
          return false;
        }
        p -= length;
        if (pieceIndex > 6) {
          return false;
        }
        int numbersSeen = 0;
        while (p < e) {
          int ipv4Piece = -1;
          if (numbersSeen > 0) {
            if (b[p] == '.' && numbersSeen < 4) {
              p++;
            } else {
              return false;
            }
          }
          if (p >= e || !Ascii.isDigit(b[p])) {
            return false;
          }
          while (p < e && Ascii.isDigit(b[p])) {
            int number = b[p] - '0';
            if (ipv4Piece == -1) {
              ipv4Piece = number;
            } else if (ipv4Piece == 0) {
              return false;
            } else {
              ipv4Piece = ipv4Piece * 10 + number;
            }
            if (ipv4Piece > 255) {
              return false;
            }
            p++;
          }
          address[pieceIndex] = address[pieceIndex] * 0x100 + ipv4Piece;
          numbersSeen++;
          if (numbersSeen == 2 || numbersSeen == 4) {
            pieceIndex++;
          }
        }
        if (numbersSeen != 4) {
          return false;
        }
        break;
      } else if (p < e && b[p] == ':') {
        p++;
        if (p >= e) {
          return false;
        }
      } else if (p < e) {
        return false;
      }
      address[pieceIndex] = value;
      pieceIndex++;
    }
    if (compress != -1) {
      int swaps = pieceIndex - compress;
      pieceIndex = 7;
      while (pieceIndex != 0 && swaps > 0) {
        int t = address[pieceIndex];
        address[pieceIndex] = address[compress + swaps - 1];
        address[compress + swaps - 1] = t;
        pieceIndex--;
        swaps--;
      }
    } else if (pieceIndex != 8) {
      return false;
    }
    return true;
  }

  /** Appends the serialization (without brackets); returns the new end (at most 39 bytes). */
  static int serialize(int[] address, byte[] out, int at) {
    int compress = -1;
    int best = 1;
    for (int i = 0; i < 8; ) {
      if (address[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && address[j] == 0) {
        j++;
      }
      if (j - i > best) {
        best = j - i;
        compress = i;
      }
      i = j;
    }
    boolean ignore0 = false;
    for (int i = 0; i < 8; i++) {
      if (ignore0 && address[i] == 0) {
        continue;
      }
      ignore0 = false;
      if (compress == i) {
        out[at++] = ':';
        if (i == 0) {
          out[at++] = ':';
        }
        ignore0 = true;
        continue;
      }
      int v = address[i];
      boolean started = false;
      for (int shift = 12; shift >= 0; shift -= 4) {
        int d = (v >>> shift) & 0xF;
        if (d != 0 || started || shift == 0) {
          out[at++] = (byte) (d < 10 ? '0' + d : 'a' + d - 10);
          started = true;
        }
      }
      if (i != 7) {
        out[at++] = ':';
      }
    }
    return at;
  }
}
