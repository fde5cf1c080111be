package io.urldedup.job;

import io.urldedup.operators.RawRecord;
import io.urldedup.operators.RecordDecoder;
import io.urldedup.operators.UrlRecord;
import io.urldedup.operators.UrlRejectedException;
import io.urldedup.state.IncompatibleStateException;
import io.urldedup.state.UrlMapping;
import io.urldedup.stateops.FilterStateReader;
import io.urldedup.stateops.ProbeAnswer;
import io.urldedup.stateops.StateLocation;
import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;

/**
 * {@code probe}: whether the state has seen each given URL, read from a savepoint or checkpoint.
 */
final class ProbeCommand {

  private ProbeCommand() {}

  /**
   * One line per URL, tab-separated: the input line (its bytes as read or passed), its canonical
   * form, {@code seen}, {@code unseen} or {@code invalid}, then the slice (scalable; {@code -}
   * otherwise) or the reject reason. {@code --input} is read as raw lines, as {@code run} reads it;
   * all lines are held until the answers come back (about 100 bytes per URL).
   */
  static int probe(JobConfig c, LocalCluster cluster, List<String> urls, PrintStream out)
      throws Exception {
    // the arguments' bytes as passed, as run would read them from a file (not the JVM's decoding)
    List<byte[]> lines = new ArrayList<>(ArgvBytes.of(urls));
    if (c.input != null) {
      if (!urls.isEmpty()) {
        throw new ConfigException("probe takes URLs or --input FILE|-, not both");
      }
      StateCommands.readLines(c.input, lines);
    }
    if (lines.isEmpty()) {
      throw new ConfigException("probe needs URLs: probe --state DIR URL... or --input FILE|-");
    }
    StateLocation at = StateCommands.location(c);
    RecordDecoder decoder = new RecordDecoder(c.decodeConfig());
    int n = lines.size();
    String[] canonical = new String[n];
    String[] rejected = new String[n];
    Queries queries = new Queries(Math.max(1, c.shards));
    for (int i = 0; i < n; i++) {
      try {
        UrlRecord r =
            decoder.decode(
                new RawRecord(
                    null,
                    lines.get(i),
                    io.urldedup.operators.RecordHeaders.EMPTY,
                    "probe:" + (i + 1)));
        canonical[i] = r.url();
        queries.add(r.shard, i, r.h1, r.h2);
      } catch (UrlRejectedException e) {
        rejected[i] = e.reason().toString().toLowerCase(Locale.ROOT);
      }
    }
    List<ProbeAnswer> answers =
        FilterStateReader.probe(StateCommands.readerEnv(c, cluster, at), at, queries.byShard());
    checkMapping(answers, c.decodeConfig().urlMapping(), c.allowCanonicalizationChange);
    ProbeAnswer[] byIndex = new ProbeAnswer[n];
    for (ProbeAnswer a : answers) {
      if (a.index >= 0) {
        byIndex[a.index] = a;
      }
    }
    OutputStream o = new BufferedOutputStream(out, 1 << 16);
    for (int i = 0; i < n; i++) {
      o.write(lines.get(i));
      StringBuilder b = new StringBuilder().append('\t');
      if (canonical[i] == null) {
        b.append('\t').append("invalid").append('\t').append(rejected[i]);
      } else {
        ProbeAnswer a = byIndex[i];
        boolean seen = a != null && a.seen;
        b.append(canonical[i])
            .append('\t')
            .append(seen ? "seen" : "unseen")
            .append('\t')
            .append(a != null && a.slice >= 0 ? Integer.toString(a.slice) : "-");
      }
      b.append('\n');
      o.write(b.toString().getBytes(StandardCharsets.UTF_8));
    }
    o.flush();
    return 0;
  }

  /** Per shard: index, h1, h2 of each URL, flattened into a growing primitive array. */
  private static final class Queries {
    private final long[][] q;
    private final int[] size;

    Queries(int shards) {
      q = new long[shards][];
      size = new int[shards];
    }

    void add(int shard, int index, long h1, long h2) {
      long[] a = q[shard];
      if (a == null) {
        a = q[shard] = new long[48];
      } else if (size[shard] + 3 > a.length) {
        a = q[shard] = Arrays.copyOf(a, a.length * 2);
      }
      int s = size[shard];
      a[s] = index;
      a[s + 1] = h1;
      a[s + 2] = h2;
      size[shard] = s + 3;
    }

    HashMap<Integer, long[]> byShard() {
      HashMap<Integer, long[]> out = new HashMap<>();
      for (int s = 0; s < q.length; s++) {
        if (q[s] != null) {
          out.put(s, Arrays.copyOf(q[s], size[s]));
        }
      }
      return out;
    }
  }

  /**
   * A probe with another seed, shard count or canonicalization would answer for other bits: refused
   * as a restore is, by the headers' mapping.
   */
  private static void checkMapping(
      List<ProbeAnswer> answers, UrlMapping now, boolean allowCanonicalizationChange) {
    for (ProbeAnswer a : answers) {
      if (a.index < 0) {
        try {
          a.storedMapping().checkServes(now, allowCanonicalizationChange);
        } catch (IncompatibleStateException e) {
          throw new ConfigException(
              Flags.flagMessage(e) + " (probe takes the job's flags and seed)");
        }
      }
    }
  }
}
