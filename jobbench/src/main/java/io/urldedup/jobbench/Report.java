package io.urldedup.jobbench;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * {@code Report OUTDIR [BASEDIR]}: the side-by-side markdown table of the runs in OUTDIR, on
 * stdout; with BASEDIR (e.g. the parallelism 1 runs, for OUTDIR at parallelism 2) a column of each
 * run's rate against the same job and backend there.
 */
public final class Report {

  private static final String[] JOBS = {"identity", "exact", "stable", "scalable"};
  private static final String[] BACKENDS = {"hashmap", "rocksdb"};

  private Report() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Path baseDir = args.length > 1 ? Path.of(args[1]) : null;
    Properties m = load(dir.resolve("machine.properties"));
    StringBuilder o = new StringBuilder();
    o.append("Machine: ")
        .append(m.getProperty("cpu", "?"))
        .append(", ")
        .append(m.getProperty("cores", "?"))
        .append(" cores, ")
        .append(m.getProperty("memory", "?"))
        .append("; ")
        .append(m.getProperty("java", "?"))
        .append("\n\n");
    o.append("Run ")
        .append(m.getProperty("date", "?"))
        .append(": ")
        .append(m.getProperty("records", "?"))
        .append(" records, ")
        .append(m.getProperty("unique", "?"))
        .append(" unique target, seed ")
        .append(m.getProperty("seed", "?"))
        .append(", -Xmx")
        .append(m.getProperty("xmx", "?"))
        .append(", checkpoint interval ")
        .append(m.getProperty("interval", "?"))
        .append("; load average before ")
        .append(m.getProperty("loadBefore", "?"))
        .append(", after ")
        .append(m.getProperty("loadAfter", "?"))
        .append("\n\n");
    o.append("| job | backend | P | records/s |")
        .append(baseDir == null ? "" : " x base |")
        .append(
            " x identity | x exact | CPU us/rec decode, keyed, process | records per CPU-second |"
                + " ckpt B/unique URL final (mean, max) | ckpt state | RSS peak | FPR (FP) | FN rate (FN) |"
                + " per page: FPR (FP), FN rate (FN) | load start/end | status |\n");
    o.append("|---|---|---:|---:|")
        .append(baseDir == null ? "" : "---:|")
        .append("---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    List<String> targets = new ArrayList<>();
    for (String b : BACKENDS) {
      Properties id = load(dir.resolve("identity-" + b + ".properties"));
      Properties ex = load(dir.resolve("exact-" + b + ".properties"));
      for (String j : JOBS) {
        Path f = dir.resolve(j + "-" + b + ".properties");
        if (!Files.exists(f)) {
          continue;
        }
        Properties p = load(f);
        double rps = num(p, "recordsPerSecond");
        double base =
            baseDir == null
                ? Double.NaN
                : num(load(baseDir.resolve(j + "-" + b + ".properties")), "recordsPerSecond");
        o.append("| ")
            .append(j)
            .append(" | ")
            .append(b)
            .append(" | ")
            .append(p.getProperty("parallelism", "?"))
            .append(" | ")
            .append(fmt0(rps));
        if (baseDir != null) {
          o.append(" | ").append(ratio(rps, base));
        }
        o.append(" | ")
            .append(ratio(rps, num(id, "recordsPerSecond")))
            .append(" | ")
            .append(ratio(rps, num(ex, "recordsPerSecond")))
            .append(" | ")
            .append(p.getProperty("decodeCpuUsPerRecord", "-"))
            .append(", ")
            .append(p.getProperty("keyedCpuUsPerRecord", "-"))
            .append(", ")
            .append(p.getProperty("processCpuUsPerRecord", "-"))
            .append(" | ")
            .append(fmt0(1e6 / num(p, "processCpuUsPerRecord")))
            .append(" | ")
            .append(p.getProperty("ckptBytesPerUnique", "-"))
            .append(" (")
            .append(p.getProperty("ckptSecondHalfMeanBytesPerUnique", "-"))
            .append(", ")
            .append(p.getProperty("ckptSecondHalfMaxBytesPerUnique", "-"))
            .append(")")
            .append(" | ")
            .append(mib(num(p, "ckptStateBytes")))
            .append(" | ")
            .append(mib(num(p, "vmHwmKb") * 1024))
            .append(" | ")
            .append(p.getProperty("fpr", "-"))
            .append(" (")
            .append(p.getProperty("falsePositives", "-"))
            .append(") | ")
            .append(p.getProperty("fnRate", "-"))
            .append(" (")
            .append(p.getProperty("falseNegatives", "-"))
            .append(") | ")
            .append(p.getProperty("pageFpr", "-"))
            .append(" (")
            .append(p.getProperty("pageFalsePositives", "-"))
            .append("), ")
            .append(p.getProperty("pageFnRate", "-"))
            .append(" (")
            .append(p.getProperty("pageFalseNegatives", "-"))
            .append(") | ")
            .append(p.getProperty("loadStart", "?"))
            .append("/")
            .append(p.getProperty("loadEnd", "?"))
            .append(" | ")
            .append(clip(p.getProperty("status", "?")))
            .append(" |\n");
        if (j.equals("stable") || j.equals("scalable")) {
          double xi = rps / num(id, "recordsPerSecond");
          double xe = rps / num(ex, "recordsPerSecond");
          if (b.equals("hashmap")) {
            targets.add(
                String.format(
                    Locale.ROOT,
                    "%s %s: %.2fx identity (issue 5 target >= 0.8): %s",
                    j,
                    b,
                    xi,
                    ok(xi >= 0.8)));
          } else {
            targets.add(
                String.format(
                    Locale.ROOT,
                    "%s %s: %.2fx exact (issue 5 target >= 3: %s; issue 10 target >= 5: %s); %.2fx identity (target >= 0.5): %s",
                    j,
                    b,
                    xe,
                    ok(xe >= 3),
                    ok(xe >= 5),
                    xi,
                    ok(xi >= 0.5)));
          }
          if ("1".equals(p.getProperty("parallelism"))) {
            targets.add(
                String.format(
                    Locale.ROOT,
                    "%s %s at parallelism 1: %s records/s (issue 10 target >= 1,000,000): %s",
                    j,
                    b,
                    fmt0(rps),
                    ok(rps >= 1e6)));
          }
          if (baseDir != null) {
            targets.add(
                String.format(
                    Locale.ROOT,
                    "%s %s: %.2fx the base run (issue 10 target at parallelism 2: >= 1.7x parallelism 1): %s",
                    j,
                    b,
                    rps / base,
                    ok(rps / base >= 1.7)));
          }
          if (j.equals("scalable") && b.equals("rocksdb")) {
            double bpu = num(p, "ckptSecondHalfMeanBytesPerUnique");
            double exBpu = num(ex, "ckptSecondHalfMeanBytesPerUnique");
            targets.add(
                String.format(
                    Locale.ROOT,
                    "scalable rocksdb checkpoint (mean over the second half): %.3f B/unique URL (target <= 2): %s; exact/scalable = %.1fx (target >= 30): %s",
                    bpu,
                    ok(bpu <= 2),
                    exBpu / bpu,
                    ok(exBpu / bpu >= 30)));
          }
        }
      }
    }
    o.append("\nTargets (same run):\n\n");
    for (String t : targets) {
      o.append("- ").append(t).append('\n');
    }
    o.append("\nCheckpoints per run (id:lines:uniques:stateBytes:incrementalBytes):\n\n");
    for (String b : BACKENDS) {
      for (String j : JOBS) {
        Path f = dir.resolve(j + "-" + b + ".properties");
        if (Files.exists(f)) {
          Properties p = load(f);
          o.append("- ")
              .append(j)
              .append('-')
              .append(b)
              .append(": ")
              .append(p.getProperty("checkpoints", "-"))
              .append("; on disk after the run ")
              .append(mib(num(p, "checkpointDirBytes")))
              .append('\n');
        }
      }
    }
    System.out.print(o);
  }

  private static String clip(String s) {
    return s.length() <= 70 ? s : s.substring(0, 70) + "...";
  }

  private static String ok(boolean b) {
    return b ? "met" : "MISSED";
  }

  private static Properties load(Path f) throws IOException {
    Properties p = new Properties();
    if (Files.exists(f)) {
      try (Reader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
        p.load(r);
      }
    }
    return p;
  }

  private static double num(Properties p, String k) {
    try {
      return Double.parseDouble(p.getProperty(k, "NaN"));
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  private static String fmt0(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,.0f", v);
  }

  private static String ratio(double a, double b) {
    return Double.isNaN(a) || Double.isNaN(b) || b == 0
        ? "-"
        : String.format(Locale.ROOT, "%.2f", a / b);
  }

  private static String mib(double bytes) {
    return Double.isNaN(bytes) ? "-" : String.format(Locale.ROOT, "%.1f MiB", bytes / (1 << 20));
  }
}
