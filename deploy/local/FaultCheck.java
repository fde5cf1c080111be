import io.urldedup.state.ForgettingModel;
import io.urldedup.state.StableMath;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The verdict of a fault run (faults.sh, savepoint-rescale.sh): the committed output topic
 * against the generator's truth file (first/repeat + canonical URL per input line) and the
 * embedded run of the same input.
 *
 * <p>Run as a single-file program: {@code java -cp state/target/classes FaultCheck.java ...}.
 * Prints {@code key=value} lines and exits 1 when a check fails.
 *
 * <p>scalable: every query's false-positive probability is at most --fpr (Almeida et al. 2007,
 * compound bound), so the number of first occurrences suppressed is stochastically below
 * Binomial(distinct, fpr): the check allows mean + 4 sd + 1 (one-sided, about 3e-5 to fail by
 * chance). Duplicates are not allowed at all: a scalable filter never forgets, so an URL emitted
 * twice is a replay that leaked through.
 *
 * <p>stable: the expected re-emissions (false negatives) of the stream are ForgettingModel's
 * replay of the truth file through the model `urldedup plan` prints (a URL is forgotten some
 * number of new URLs after it was last emitted; the model brackets that count between a low and
 * a high law). The check allows high + 4 max(sd, sqrt(high)) + 5; more would be replay
 * duplicates.
 */
public final class FaultCheck {

  public static void main(String[] a) throws IOException {
    Map<String, String> o = new HashMap<>();
    for (int i = 0; i + 1 < a.length; i += 2) {
      o.put(a[i].replaceFirst("^--", ""), a[i + 1]);
    }
    String filter = o.getOrDefault("filter", "scalable");
    double fpr = Double.parseDouble(o.getOrDefault("fpr", "0.01"));
    Map<String, Integer> out = counts(Path.of(o.get("output")));
    Map<String, Integer> emb = o.containsKey("embedded") ? counts(Path.of(o.get("embedded"))) : null;

    // truth: first occurrences, and for stable the expected false negatives over the repeat gaps
    Map<String, Long> lastSeen = new HashMap<>(1 << 20);
    long distinct = 0;
    long repeats = 0;
    long line = 0;
    Map<String, Integer> ids = new HashMap<>(1 << 20);
    int[] stream = new int[1 << 16];
    try (BufferedReader r = Files.newBufferedReader(Path.of(o.get("truth")), StandardCharsets.UTF_8)) {
      for (String s; (s = r.readLine()) != null; line++) {
        int tab = s.indexOf('\t');
        String url = s.substring(tab + 1);
        lastSeen.put(url, line);
        if (s.startsWith("first")) {
          distinct++;
        } else {
          repeats++;
        }
        if (line == stream.length) {
          stream = Arrays.copyOf(stream, 2 * stream.length);
        }
        Integer id = ids.putIfAbsent(url, ids.size());
        stream[(int) line] = id == null ? ids.size() - 1 : id;
      }
    }
    long outRecords = 0;
    long outDistinct = out.size();
    long reEmitted = 0;
    long urlsTwice = 0;
    for (int c : out.values()) {
      outRecords += c;
      if (c > 1) {
        reEmitted += c - 1;
        urlsTwice++;
      }
    }
    long missing = 0;
    for (String u : lastSeen.keySet()) {
      if (!out.containsKey(u)) {
        missing++;
      }
    }
    long extra = 0;
    for (String u : out.keySet()) {
      if (!lastSeen.containsKey(u)) {
        extra++;
      }
    }
    Map<String, String> res = new LinkedHashMap<>();
    res.put("input_lines", Long.toString(line));
    res.put("distinct_urls", Long.toString(distinct));
    res.put("output_records", Long.toString(outRecords));
    res.put("output_distinct", Long.toString(outDistinct));
    res.put("missing", Long.toString(missing));
    res.put("measured_fp_rate", String.format(Locale.ROOT, "%.3g", missing / (double) Math.max(1, distinct)));
    res.put("not_in_truth", Long.toString(extra));
    res.put("re_emitted", Long.toString(reEmitted));
    res.put("urls_emitted_twice_or_more", Long.toString(urlsTwice));
    boolean ok = extra == 0;
    if (emb != null) {
      long embMissing = 0;
      long embRe = 0;
      for (String u : lastSeen.keySet()) {
        if (!emb.containsKey(u)) {
          embMissing++;
        }
      }
      for (int c : emb.values()) {
        embRe += Math.max(0, c - 1);
      }
      res.put("embedded_missing", Long.toString(embMissing));
      res.put("embedded_re_emitted", Long.toString(embRe));
    }
    if (filter.equals("scalable")) {
      double mean = distinct * fpr;
      double bound = mean + 4 * Math.sqrt(mean * (1 - fpr)) + 1;
      res.put("fp_bound", String.format(Locale.ROOT, "%.1f", bound));
      res.put("configured_fpr", Double.toString(fpr));
      ok &= reEmitted == 0 && missing <= bound;
    } else {
      int shards = Integer.parseInt(o.getOrDefault("shards", "128"));
      long memory = Long.parseLong(o.get("memory-bytes"));
      int cellBits = Integer.parseInt(o.getOrDefault("cell-bits", "2"));
      StableMath.Geometry g = StableMath.geometry(fpr, memory / shards, cellBits);
      ForgettingModel.Estimate e = new ForgettingModel(g, line / shards + 1)
          .reemissions(Arrays.copyOf(stream, (int) line), ids.size(), shards, 20, 1);
      double bound = e.high() + 4 * Math.max(e.sd(), Math.sqrt(e.high())) + 5;
      res.put("repeats", Long.toString(repeats));
      res.put("plan_expected_fn", String.format(Locale.ROOT, "%.1f..%.1f", e.low(), e.high()));
      res.put("fn_bound", String.format(Locale.ROOT, "%.1f", bound));
      res.put("plan_stable_fpr", String.format(Locale.ROOT, "%.4g", g.stableFpr()));
      // first occurrences suppressed: at most the stable FPR (the FPR rises to it from empty)
      double fpBound = distinct * g.stableFpr() + 4 * Math.sqrt(distinct * g.stableFpr()) + 1;
      res.put("fp_bound", String.format(Locale.ROOT, "%.1f", fpBound));
      ok &= reEmitted <= bound && missing <= fpBound;
    }
    res.put("verdict", ok ? "PASS" : "FAIL");
    res.forEach((k, v) -> System.out.println(k + "=" + v));
    if (!ok) {
      System.exit(1);
    }
  }

  static Map<String, Integer> counts(Path p) throws IOException {
    Map<String, Integer> m = new HashMap<>(1 << 20);
    try (BufferedReader r = Files.newBufferedReader(p, StandardCharsets.UTF_8)) {
      for (String s; (s = r.readLine()) != null; ) {
        if (!s.isEmpty()) {
          m.merge(s, 1, Integer::sum);
        }
      }
    }
    return m;
  }
}
