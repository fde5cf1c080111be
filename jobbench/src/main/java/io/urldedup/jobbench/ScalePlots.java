package io.urldedup.jobbench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The scale rehearsal's plots, against distinct URLs seen, one line per layout ({@code n<N>.*}
 * files of a {@code scale.sh} output directory): throughput, checkpoint bytes per interval,
 * checkpoint duration and RSS.
 *
 * <pre>ScalePlots OUTDIR</pre>
 */
public final class ScalePlots {

  private ScalePlots() {}

  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    List<Path> runs;
    try (Stream<Path> s = Files.list(dir)) {
      runs =
          s.filter(p -> p.getFileName().toString().matches("n\\d+\\.series\\.csv"))
              .sorted()
              .toList();
    }
    LinePlot throughput =
        new LinePlot("Throughput", "distinct URLs seen", "records/s (10 s moving)");
    LinePlot bytes =
        new LinePlot("Checkpoint bytes per interval (incremental)", "distinct URLs seen", "MB");
    LinePlot duration = new LinePlot("Checkpoint duration", "distinct URLs seen", "seconds");
    LinePlot rss = new LinePlot("Resident set size of the job's JVM", "distinct URLs seen", "GiB");
    for (Path series : runs) {
      String n = series.getFileName().toString().replace(".series.csv", "");
      String name =
          n.equals("n1")
              ? "every checkpoint writes its pages (N=1)"
              : "insert log, materialize every " + n.substring(1);
      List<double[]> rows = csv(series);
      List<double[]> rate = new ArrayList<>();
      List<double[]> mem = new ArrayList<>();
      for (int i = 10; i < rows.size(); i++) {
        double[] a = rows.get(i - 10);
        double[] b = rows.get(i);
        rate.add(new double[] {b[2], (b[1] - a[1]) / (b[0] - a[0])});
        mem.add(new double[] {b[2], b[4] / (1024.0 * 1024.0)});
      }
      throughput.add(name, rate);
      rss.add(name, mem);
      List<double[]> b = new ArrayList<>();
      List<double[]> d = new ArrayList<>();
      Path cps = dir.resolve(n + ".checkpoints.csv");
      if (Files.exists(cps)) {
        List<String> lines = Files.readAllLines(cps);
        for (String line : lines.subList(1, lines.size())) {
          String[] f = line.split(",");
          if (f[1].equals("COMPLETED")) {
            double urls = Double.parseDouble(f[3]);
            b.add(new double[] {urls, Double.parseDouble(f[5]) / 1e6});
            d.add(new double[] {urls, Double.parseDouble(f[6]) / 1e3});
          }
        }
      }
      bytes.add(name, b);
      duration.add(name, d);
    }
    throughput.write(dir.resolve("throughput.png"));
    bytes.write(dir.resolve("checkpoint-bytes.png"));
    duration.write(dir.resolve("checkpoint-duration.png"));
    rss.write(dir.resolve("rss.png"));
  }

  private static List<double[]> csv(Path p) throws IOException {
    List<double[]> out = new ArrayList<>();
    List<String> lines = Files.readAllLines(p);
    for (String l : lines.subList(1, lines.size())) {
      String[] f = l.split(",");
      double[] v = new double[f.length];
      for (int i = 0; i < f.length; i++) {
        v[i] = Double.parseDouble(f[i]);
      }
      out.add(v);
    }
    return out;
  }
}
