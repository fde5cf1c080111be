package io.urldedup.jobbench;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The generator's truth file ({@code first|repeat<TAB>canonical} per line) as a bit set of
 * first-occurrence lines, stored compactly: {@code long lines, long words, long[] words}.
 */
public final class TruthBits {

  final long lines;
  final BitSet firsts;

  TruthBits(long lines, BitSet firsts) {
    this.lines = lines;
    this.firsts = firsts;
  }

  long uniques() {
    return firsts.cardinality();
  }

  /** First occurrences among lines [0, n). */
  long uniquesBefore(long n) {
    return n >= lines ? uniques() : firsts.get(0, (int) n).cardinality();
  }

  static TruthBits fromTruthFile(Path truth) throws IOException {
    BitSet bits = new BitSet();
    long n = 0;
    try (BufferedReader r = Files.newBufferedReader(truth, StandardCharsets.UTF_8)) {
      String l;
      while ((l = r.readLine()) != null) {
        if (l.startsWith("first")) {
          bits.set((int) n);
        } else if (!l.startsWith("repeat")) {
          throw new IOException(truth + ":" + (n + 1) + ": neither first nor repeat");
        }
        n++;
      }
    }
    if (n > Integer.MAX_VALUE) {
      throw new IOException("more than 2^31 lines");
    }
    return new TruthBits(n, bits);
  }

  void write(Path out) throws IOException {
    long[] w = firsts.toLongArray();
    try (OutputStream o = Files.newOutputStream(out);
        DataOutputStream d = new DataOutputStream(new java.io.BufferedOutputStream(o, 1 << 16))) {
      d.writeLong(lines);
      d.writeLong(w.length);
      for (long x : w) {
        d.writeLong(x);
      }
    }
  }

  static TruthBits read(Path in) throws IOException {
    try (InputStream i = Files.newInputStream(in);
        DataInputStream d = new DataInputStream(new java.io.BufferedInputStream(i, 1 << 16))) {
      long lines = d.readLong();
      long[] w = new long[(int) d.readLong()];
      for (int k = 0; k < w.length; k++) {
        w[k] = d.readLong();
      }
      return new TruthBits(lines, BitSet.valueOf(w));
    }
  }

  /** {@code TruthBits TRUTH_FILE OUT_BITS}: prints lines and unique URLs. */
  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: TruthBits TRUTH_FILE OUT_BITS");
      System.exit(2);
    }
    TruthBits t = fromTruthFile(Path.of(args[0]));
    t.write(Path.of(args[1]));
    System.out.println("lines=" + t.lines + " uniques=" + t.uniques());
  }
}
