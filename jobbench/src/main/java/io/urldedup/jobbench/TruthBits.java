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
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The generator's truth file ({@code first|repeat<TAB>canonical} per line) as a bit set of
 * first-occurrence lines and, per line, the id of its page (its canonical URL: ids in order of
 * first occurrence), stored compactly: {@code long lines, long words, long[] words, int[lines]
 * ids}.
 *
 * <p>The ids let the sink count per page, which is what holds when a file is read as parallel byte
 * ranges: then which occurrence of a page is emitted depends on timing, and per line an emitted
 * later occurrence would count as one false negative and one false positive.
 */
public final class TruthBits {

  private static final ConcurrentHashMap<Path, TruthBits> LOADED = new ConcurrentHashMap<>();

  final long lines;
  final BitSet firsts;

  /** Page id of each line. */
  final int[] ids;

  TruthBits(long lines, BitSet firsts, int[] ids) {
    this.lines = lines;
    this.firsts = firsts;
    this.ids = ids;
  }

  long uniques() {
    return firsts.cardinality();
  }

  /** First occurrences among lines [0, n). */
  long uniquesBefore(long n) {
    return n >= lines ? uniques() : firsts.get(0, (int) n).cardinality();
  }

  /** First occurrences among lines [from, to). */
  long uniquesIn(long from, long to) {
    return firsts.get((int) Math.min(from, lines), (int) Math.min(to, lines)).cardinality();
  }

  static TruthBits fromTruthFile(Path truth) throws IOException {
    BitSet bits = new BitSet();
    HashMap<String, Integer> idOf = new HashMap<>();
    int[] ids = new int[1 << 16];
    long n = 0;
    try (BufferedReader r = Files.newBufferedReader(truth, StandardCharsets.UTF_8)) {
      String l;
      while ((l = r.readLine()) != null) {
        if (l.startsWith("first")) {
          bits.set((int) n);
        } else if (!l.startsWith("repeat")) {
          throw new IOException(truth + ":" + (n + 1) + ": neither first nor repeat");
        }
        int tab = l.indexOf('\t');
        String canonical = tab < 0 ? "" : l.substring(tab + 1);
        Integer id = idOf.putIfAbsent(canonical, idOf.size());
        if (n == ids.length) {
          ids = Arrays.copyOf(ids, ids.length * 2);
        }
        ids[(int) n] = id == null ? idOf.size() - 1 : id;
        n++;
        if (n > Integer.MAX_VALUE - 8) {
          throw new IOException("more than 2^31 lines");
        }
      }
    }
    return new TruthBits(n, bits, Arrays.copyOf(ids, (int) n));
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
      for (int id : ids) {
        d.writeInt(id);
      }
    }
  }

  /** The truth in {@code in}, read once per JVM (the sink writers share it). */
  static TruthBits read(Path in) throws IOException {
    try {
      return LOADED.computeIfAbsent(
          in.toAbsolutePath(),
          p -> {
            try {
              return load(p);
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          });
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static TruthBits load(Path in) throws IOException {
    try (InputStream i = Files.newInputStream(in);
        DataInputStream d = new DataInputStream(new java.io.BufferedInputStream(i, 1 << 16))) {
      long lines = d.readLong();
      long[] w = new long[(int) d.readLong()];
      for (int k = 0; k < w.length; k++) {
        w[k] = d.readLong();
      }
      int[] ids = new int[(int) lines];
      for (int k = 0; k < ids.length; k++) {
        ids[k] = d.readInt();
      }
      return new TruthBits(lines, BitSet.valueOf(w), ids);
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
