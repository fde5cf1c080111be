package io.urldedup.jobbench;

import io.urldedup.job.DedupPipeline;
import io.urldedup.job.JobConfig;
import io.urldedup.operators.RawRecord;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.util.ratelimit.RateLimiterStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.datagen.source.DataGeneratorSource;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * The scale rehearsal (issue 23): one urldedup job on a generated stream ({@link ScaleUrls}) in
 * this JVM's mini-cluster. A build-up phase adds {@code --distinct} new URLs as fast as the job
 * takes them; a steady phase then reads {@code --steady-rate} records per second (three in four new
 * URLs, so 133334 is 10^5 new URLs/s) for {@code --steady-checkpoints} checkpoints. Then the job is
 * cancelled (its last checkpoint is retained), and a second job restores it and reads fresh URLs:
 * the restore time is from its submission to its {@code --restore-mark}-th output record (by then
 * every shard has been opened).
 *
 * <pre>
 * ScaleBench --distinct D --work DIR --out PREFIX [--backend rocksdb] [--interval 10s]
 *            [--steady-rate 100000] [--steady-checkpoints 16] [--parallelism 1] [--managed 1g]
 *            [--restore-mark 100000] [--timeout 7200s]  [any urldedup job flag]
 * </pre>
 *
 * Writes {@code PREFIX.properties} (summary), {@code PREFIX.series.csv} (once a second: time,
 * records generated, new URLs, records emitted, RSS) and {@code PREFIX.checkpoints.csv}.
 */
public final class ScaleBench {

  private ScaleBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> own = new LinkedHashMap<>();
    List<String> jobFlags = new ArrayList<>();
    List<String> ownNames =
        List.of(
            "distinct",
            "work",
            "out",
            "backend",
            "interval",
            "steady-rate",
            "steady-checkpoints",
            "parallelism",
            "managed",
            "restore-mark",
            "timeout");
    for (int i = 0; i < args.length; i++) {
      String name = args[i].startsWith("--") ? args[i].substring(2) : null;
      if (name != null && ownNames.contains(name) && i + 1 < args.length) {
        own.put(name, args[++i]);
      } else {
        jobFlags.add(args[i]);
      }
    }
    long distinct = Long.parseLong(require(own, "distinct"));
    Path work = Path.of(require(own, "work")).toAbsolutePath();
    String out = require(own, "out");
    String backend = own.getOrDefault("backend", "rocksdb");
    Duration interval =
        org.apache.flink.util.TimeUtils.parseDuration(own.getOrDefault("interval", "10s"));
    double steadyRate = Double.parseDouble(own.getOrDefault("steady-rate", "100000"));
    int steadyCheckpoints = Integer.parseInt(own.getOrDefault("steady-checkpoints", "16"));
    int parallelism = Integer.parseInt(own.getOrDefault("parallelism", "1"));
    String managed = own.getOrDefault("managed", "1g");
    long restoreMark = Long.parseLong(own.getOrDefault("restore-mark", "100000"));
    Duration timeout =
        org.apache.flink.util.TimeUtils.parseDuration(own.getOrDefault("timeout", "7200s"));

    List<String> cfgArgs =
        new ArrayList<>(
            List.of(
                "--input",
                "-",
                "--output",
                "-",
                "--state-backend",
                backend,
                "--parallelism",
                String.valueOf(parallelism),
                "--filter",
                "scalable"));
    cfgArgs.addAll(jobFlags);
    JobConfig config = JobConfig.parse(cfgArgs.toArray(new String[0]), System.getenv());
    Files.createDirectories(work.resolve("checkpoints"));
    Files.createDirectories(work.resolve("rocksdb"));
    Configuration conf =
        BenchCluster.configuration(config, backend, true, interval, work, parallelism, managed);

    long buildRecords = ScaleUrls.recordsFor(distinct, true);
    long steadyRecords =
        (long) (steadyRate * interval.toMillis() / 1000.0 * (steadyCheckpoints + 3));
    long records = buildRecords + steadyRecords;
    long urls = ScaleUrls.newUrls(records, true);
    long restoreRecords = 2 * restoreMark;
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("distinct", distinct);
    r.put("backend", backend);
    r.put("interval", interval.toMillis() / 1000.0 + "s");
    r.put("steadyRate", (long) steadyRate);
    r.put("parallelism", parallelism);
    r.put("jobFlags", String.join(" ", jobFlags));
    r.put("rocksdbOptions", conf.getString("state.backend.rocksdb.options-factory", "default"));

    ScaleSink sink = new ScaleSink(urls + restoreRecords);
    MiniClusterConfiguration mcc =
        new MiniClusterConfiguration.Builder()
            .setConfiguration(conf)
            .setNumTaskManagers(1)
            .setNumSlotsPerTaskManager(parallelism)
            .build();
    ConcurrentSkipListMap<Long, long[]> series = new ConcurrentSkipListMap<>();
    try (MiniCluster mc = new MiniCluster(mcc)) {
      mc.start();
      // ---- build-up and steady phase
      ScaleProbe.reset(Long.MAX_VALUE);
      StreamGraph g1 =
          graph(
              conf,
              parallelism,
              config,
              sink,
              "scale",
              new DataGeneratorSource<>(
                  new ScaleUrls(0, true),
                  records,
                  new PhasedRateLimiter(buildRecords, steadyRate),
                  TypeInformation.of(RawRecord.class)));
      long start = System.currentTimeMillis();
      JobID id = mc.submitJob(g1).get().getJobID();
      Thread sampler = sampler(series, start);
      long deadline = start + timeout.toMillis();
      CheckpointStatsSnapshot stats = null;
      String status = "ok";
      while (true) {
        Thread.sleep(1000);
        JobStatus js = mc.getJobStatus(id).get();
        if (js.isGloballyTerminalState()) {
          status = "job ended " + js + " before the steady phase's checkpoints";
          break;
        }
        stats = mc.getExecutionGraph(id).get().getCheckpointStatsSnapshot();
        long steadyStart = ScaleProbe.steadyStartMillis.get();
        if (steadyStart != 0 && completedAfter(stats, steadyStart) >= steadyCheckpoints) {
          break;
        }
        if (System.currentTimeMillis() > deadline) {
          status = "timeout after " + timeout;
          break;
        }
      }
      if (!mc.getJobStatus(id).get().isGloballyTerminalState()) {
        stats = mc.getExecutionGraph(id).get().getCheckpointStatsSnapshot();
        mc.cancelJob(id).get(120, TimeUnit.SECONDS);
        mc.requestJobResult(id).get(300, TimeUnit.SECONDS);
      }
      sampler.interrupt();
      sampler.join();
      r.put("status", status);
      long generated = ScaleProbe.generated.sum();
      long newUrls = ScaleUrls.newUrls(generated, true);
      r.put("recordsGenerated", generated);
      r.put("newUrlsGenerated", newUrls);
      r.put("emitted", ScaleProbe.emitted.get());
      r.put("emittedAgain", ScaleProbe.emittedAgain.sum());
      // cancelled mid-stream: records in flight at the cancel count as suppressed (at most a
      // network buffer's worth, against 10^8 URLs)
      r.put(
          "fprUpperBound",
          String.format(
              Locale.ROOT,
              "%.6f",
              (double) (newUrls - (ScaleProbe.emitted.get() - ScaleProbe.emittedAgain.sum()))
                  / Math.max(1, newUrls)));
      r.put(
          "steadyStartSeconds",
          ScaleProbe.steadyStartMillis.get() == 0
              ? -1
              : (ScaleProbe.steadyStartMillis.get() - start) / 1000.0);
      phases(r, series, start);
      checkpoints(r, stats, series, start, Path.of(out + ".checkpoints.csv"), config);
      writeSeries(series, Path.of(out + ".series.csv"));

      // ---- restore from the retained checkpoint, then fresh URLs
      Path last = lastCheckpoint(work.resolve("checkpoints").resolve(id.toString()));
      if (last != null) {
        r.put("restoredFrom", last.getFileName());
        r.put("restoredBytesOnDisk", JobBench.du(work.resolve("checkpoints")));
        ScaleProbe.reset(restoreMark);
        StreamGraph g2 =
            graph(
                conf,
                parallelism,
                config,
                sink,
                "scale-restore",
                new DataGeneratorSource<>(
                    new ScaleUrls(urls, false),
                    restoreRecords,
                    RateLimiterStrategy.noOp(),
                    TypeInformation.of(RawRecord.class)));
        // the restore job's source is new (its own uid): the first job's generator position is left
        g2.setSavepointRestoreSettings(
            SavepointRestoreSettings.forPath(last.toUri().toString(), true));
        long t0 = System.currentTimeMillis();
        JobID id2 = mc.submitJob(g2).get().getJobID();
        mc.requestJobResult(id2).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        long t1 = System.currentTimeMillis();
        r.put("restoreFirstRecordSeconds", secs(ScaleProbe.firstEmitMillis.get(), t0));
        r.put("restoreMarkRecords", restoreMark);
        r.put("restoreMarkSeconds", secs(ScaleProbe.markMillis.get(), t0));
        r.put("restoreJobSeconds", (t1 - t0) / 1000.0);
        r.put("restoreEmittedAgain", ScaleProbe.emittedAgain.sum());
      }
    }
    r.put("vmHwmKb", JobBench.procStatus("VmHWM"));
    try (PrintWriter w =
        new PrintWriter(
            Files.newBufferedWriter(Path.of(out + ".properties"), StandardCharsets.UTF_8))) {
      r.forEach((k, v) -> w.println(k + "=" + v));
    }
    r.forEach((k, v) -> System.out.println(k + "=" + v));
    System.exit("ok".equals(r.get("status")) ? 0 : 3);
  }

  private static StreamGraph graph(
      Configuration conf,
      int parallelism,
      JobConfig config,
      ScaleSink sink,
      String sourceUid,
      DataGeneratorSource<RawRecord> generator) {
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    DataStream<RawRecord> source =
        env.fromSource(generator, WatermarkStrategy.noWatermarks(), sourceUid)
            .uid(sourceUid)
            .setParallelism(parallelism);
    DedupPipeline.build(source, sink, null, config.pipeline());
    StreamGraph g = env.getStreamGraph();
    g.setJobName("scalebench-" + sourceUid);
    return g;
  }

  /** Completed checkpoints triggered at or after {@code millis}. */
  private static long completedAfter(CheckpointStatsSnapshot stats, long millis) {
    return stats.getHistory().getCheckpoints().stream()
        .filter(
            s ->
                s.getStatus() == CheckpointStatsStatus.COMPLETED
                    && s.getTriggerTimestamp() >= millis)
        .count();
  }

  /** Once a second: {t ms, records generated, emitted, RSS kB}. */
  private static Thread sampler(ConcurrentSkipListMap<Long, long[]> series, long start) {
    Thread t =
        new Thread(
            () -> {
              try {
                while (!Thread.currentThread().isInterrupted()) {
                  series.put(
                      System.currentTimeMillis() - start,
                      new long[] {
                        ScaleProbe.generated.sum(),
                        ScaleProbe.emitted.get(),
                        JobBench.procStatus("VmRSS")
                      });
                  Thread.sleep(1000);
                }
              } catch (InterruptedException e) {
                // done
              }
            },
            "scalebench-sampler");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Build-up throughput over its first and last 10% of new URLs (issue 23: the last at least 0.7x
   * the first), from the sampled series.
   */
  private static void phases(
      Map<String, Object> r, ConcurrentSkipListMap<Long, long[]> series, long start) {
    long steadyAt =
        ScaleProbe.steadyStartMillis.get() == 0
            ? Long.MAX_VALUE
            : ScaleProbe.steadyStartMillis.get() - start;
    List<long[]> build = new ArrayList<>();
    series.forEach(
        (t, v) -> {
          if (t <= steadyAt) {
            build.add(new long[] {t, v[0]});
          }
        });
    if (build.size() < 20) {
      return;
    }
    long total = build.get(build.size() - 1)[1];
    r.put("buildRecordsPerSecond", Math.round(rate(build, 0, total)));
    r.put("buildFirst10PctRecordsPerSecond", Math.round(rate(build, 0, total / 10)));
    r.put("buildLast10PctRecordsPerSecond", Math.round(rate(build, total - total / 10, total)));
  }

  /**
   * Records per second between the samples where the count first reached {@code from} and {@code
   * to}.
   */
  private static double rate(List<long[]> s, long from, long to) {
    long[] a = null;
    long[] b = null;
    for (long[] x : s) {
      if (a == null && x[1] >= from) {
        a = x;
      }
      if (b == null && x[1] >= to) {
        b = x;
      }
    }
    if (a == null || b == null || b[0] == a[0]) {
      return 0;
    }
    return (b[1] - a[1]) * 1000.0 / (b[0] - a[0]);
  }

  private static void checkpoints(
      Map<String, Object> r,
      CheckpointStatsSnapshot stats,
      ConcurrentSkipListMap<Long, long[]> series,
      long start,
      Path csv,
      JobConfig config)
      throws IOException {
    if (stats == null) {
      return;
    }
    long steadyStart = ScaleProbe.steadyStartMillis.get();
    List<AbstractCheckpointStats> all = new ArrayList<>(stats.getHistory().getCheckpoints());
    all.sort((a, b) -> Long.compare(a.getCheckpointId(), b.getCheckpointId()));
    long steadyBytes = 0;
    int steadyCount = 0;
    long steadyFirstUrls = -1;
    long steadyLastUrls = 0;
    long maxDuration = 0;
    int failed = 0;
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
      w.println("id,status,trigger_s,new_urls,state_bytes,checkpointed_bytes,duration_ms,phase");
      for (AbstractCheckpointStats s : all) {
        long t = s.getTriggerTimestamp() - start;
        Map.Entry<Long, long[]> at = series.floorEntry(t);
        long newUrls = at == null ? 0 : ScaleUrls.newUrls(at.getValue()[0], true);
        boolean steady = steadyStart != 0 && s.getTriggerTimestamp() >= steadyStart;
        w.printf(
            Locale.ROOT,
            "%d,%s,%.1f,%d,%d,%d,%d,%s%n",
            s.getCheckpointId(),
            s.getStatus(),
            t / 1000.0,
            newUrls,
            s.getStateSize(),
            s.getCheckpointedSize(),
            s.getEndToEndDuration(),
            steady ? "steady" : "build");
        if (s.getStatus() == CheckpointStatsStatus.FAILED) {
          failed++;
        }
        if (s.getStatus() == CheckpointStatsStatus.COMPLETED) {
          maxDuration = Math.max(maxDuration, s.getEndToEndDuration());
          // the first steady checkpoint still carries the build-up's last interval
          if (steady && s.getTriggerTimestamp() >= steadyStart + 1000L * intervalSeconds(r)) {
            steadyBytes += s.getCheckpointedSize();
            steadyCount++;
            steadyFirstUrls = steadyFirstUrls < 0 ? newUrls : steadyFirstUrls;
            steadyLastUrls = newUrls;
          }
        }
      }
    }
    r.put("checkpointsCompleted", stats.getCounts().getNumberOfCompletedCheckpoints());
    r.put("checkpointsFailed", failed);
    // Flink also counts a trigger refused while the tasks were still starting (never in the
    // history)
    r.put(
        "checkpointsFailedBeforeTrigger",
        stats.getCounts().getNumberOfFailedCheckpoints() - failed);
    r.put("checkpointMaxDurationMs", maxDuration);
    AbstractCheckpointStats latest = stats.getHistory().getLatestCompletedCheckpoint();
    if (latest != null) {
      r.put("lastStateBytes", latest.getStateSize());
    }
    if (steadyCount > 0) {
      double mean = (double) steadyBytes / steadyCount;
      // the new URLs the steady checkpoints covered, as sampled at their triggers
      double newPerInterval =
          steadyCount < 2 ? 0 : (double) (steadyLastUrls - steadyFirstUrls) / (steadyCount - 1);
      r.put("steadyCheckpoints", steadyCount);
      r.put("steadyMeanCheckpointedBytes", Math.round(mean));
      r.put("steadyNewUrlsPerInterval", Math.round(newPerInterval));
      if (latest != null) {
        // issue 23's bound: 16 B x new URLs of the interval + filter bytes / N
        double bound =
            16 * newPerInterval + (double) latest.getStateSize() / config.materializeEvery;
        r.put("steadyBoundBytes", Math.round(bound));
        r.put("steadyMeanOverBound", String.format(Locale.ROOT, "%.3f", mean / bound));
      }
    }
  }

  private static double intervalSeconds(Map<String, Object> r) {
    String s = r.get("interval").toString();
    return Double.parseDouble(s.substring(0, s.length() - 1));
  }

  private static void writeSeries(ConcurrentSkipListMap<Long, long[]> series, Path csv)
      throws IOException {
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8))) {
      w.println("t_s,records,new_urls,emitted,rss_kb");
      series.forEach(
          (t, v) ->
              w.printf(
                  Locale.ROOT,
                  "%.1f,%d,%d,%d,%d%n",
                  t / 1000.0,
                  v[0],
                  ScaleUrls.newUrls(v[0], true),
                  v[1],
                  v[2]));
    }
  }

  private static Path lastCheckpoint(Path jobDir) throws IOException {
    if (!Files.isDirectory(jobDir)) {
      return null;
    }
    try (Stream<Path> s = Files.list(jobDir)) {
      return s.filter(
              p ->
                  p.getFileName().toString().startsWith("chk-")
                      && Files.exists(p.resolve("_metadata")))
          .max((a, b) -> Long.compare(chk(a), chk(b)))
          .orElse(null);
    }
  }

  private static long chk(Path p) {
    return Long.parseLong(p.getFileName().toString().substring(4));
  }

  private static double secs(long at, long t0) {
    return at == 0 ? -1 : (at - t0) / 1000.0;
  }

  private static String require(Map<String, String> own, String name) {
    String v = own.get(name);
    if (v == null) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }
}
