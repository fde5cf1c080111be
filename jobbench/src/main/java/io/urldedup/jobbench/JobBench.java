package io.urldedup.jobbench;

import io.urldedup.job.DedupPipeline;
import io.urldedup.job.JobConfig;
import io.urldedup.job.LineFileSource;
import io.urldedup.operators.DecodeConfig;
import io.urldedup.operators.DecodeFunction;
import io.urldedup.operators.RawRecord;
import io.urldedup.operators.UrlRecord;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.jobmaster.JobResult;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.state.rocksdb.RocksDBOptions;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;

/**
 * One benchmark run: one job ({@code identity | exact | stable | scalable}) on one state backend,
 * in this JVM's own mini-cluster, over a numbered line file; writes a {@code key=value} result
 * file. {@code run.sh} runs each combination in a fresh JVM so that peak RSS is per job.
 *
 * <pre>
 * JobBench --job J --backend hashmap|rocksdb --input LINES --truth-bits BITS --work DIR --out FILE
 *          [--interval 10s] [--parallelism 1] [--ttl 30d] [--managed 512m] [--timeout 1800s]
 *          [--incremental true|false] [--decode full|hash-only]
 *          [any urldedup job flag: --fpr, --memory, --capacity, --shards, --cache-memory, ...]
 * </pre>
 */
public final class JobBench {

  enum Job {
    IDENTITY,
    EXACT,
    STABLE,
    SCALABLE
  }

  private JobBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> own = new LinkedHashMap<>();
    List<String> jobFlags = new ArrayList<>();
    List<String> ownNames =
        List.of(
            "job",
            "backend",
            "input",
            "truth-bits",
            "work",
            "out",
            "interval",
            "parallelism",
            "ttl",
            "managed",
            "timeout",
            "incremental",
            "decode");
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      String name = a.startsWith("--") ? a.substring(2) : null;
      if (name != null && ownNames.contains(name)) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(a + " needs a value");
        }
        own.put(name, args[++i]);
      } else {
        jobFlags.add(a);
      }
    }
    Job job = Job.valueOf(required(own, "job").toUpperCase(Locale.ROOT));
    String backend = required(own, "backend").toLowerCase(Locale.ROOT);
    if (!backend.equals("hashmap") && !backend.equals("rocksdb")) {
      throw new IllegalArgumentException(
          "--backend: '" + backend + "' is not accepted; accepted: hashmap, rocksdb");
    }
    String input = required(own, "input");
    String truthBits = required(own, "truth-bits");
    Path work = Path.of(required(own, "work")).toAbsolutePath();
    Path out = Path.of(required(own, "out"));
    Duration interval = parseDuration(own.getOrDefault("interval", "10s"));
    int parallelism = Integer.parseInt(own.getOrDefault("parallelism", "1"));
    Duration ttl = parseDuration(own.getOrDefault("ttl", "30d"));
    Duration timeout = parseDuration(own.getOrDefault("timeout", "1800s"));
    String managed = own.getOrDefault("managed", "512m");
    // hash-only: no canonicalization (HashOnlyDecode), for the cost of everything else
    boolean hashOnly =
        switch (own.getOrDefault("decode", "full")) {
          case "full" -> false;
          case "hash-only" -> true;
          default -> throw new IllegalArgumentException("--decode: accepted: full, hash-only");
        };

    List<String> cfgArgs =
        new ArrayList<>(
            List.of(
                "--input",
                input,
                "--output",
                "-",
                "--state-backend",
                backend,
                "--parallelism",
                String.valueOf(parallelism)));
    if (job == Job.STABLE || job == Job.SCALABLE) {
      cfgArgs.addAll(List.of("--filter", job.name().toLowerCase(Locale.ROOT)));
    }
    cfgArgs.addAll(jobFlags);
    JobConfig config = JobConfig.parse(cfgArgs.toArray(new String[0]), System.getenv());

    Path ckpt = work.resolve("checkpoints");
    Files.createDirectories(ckpt);
    Files.createDirectories(work.resolve("rocksdb"));
    boolean incremental = Boolean.parseBoolean(own.getOrDefault("incremental", "true"));
    Configuration conf =
        BenchCluster.configuration(
            config, backend, incremental, interval, work, parallelism, managed);
    if (job == Job.EXACT || job == Job.IDENTITY) {
      // the peer a Flink user writes keeps RocksDB's defaults: the filter pages' options would make
      // it rewrite its large L1 (keys written once) at every checkpoint
      conf.removeConfig(RocksDBOptions.OPTIONS_FACTORY);
    }

    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
    env.setParallelism(parallelism);
    DataStream<RawRecord> source =
        env.fromSource(
                new LineFileSource(input, input, new NumberedLines()),
                WatermarkStrategy.noWatermarks(),
                "lines")
            // at parallelism P the file is read as P byte ranges (LineFileSource), as the job reads
            // it
            // for the scalable filter (the job reads stable and aged with one reader, in file
            // order:
            // UrlDedupJob.inOrder; a stable run here at P > 1 measures reading, not the job's
            // decisions)
            .uid("lines")
            .setParallelism(parallelism);
    TruthSink sink = new TruthSink(truthBits);
    switch (job) {
      // the sink is chained to the keyed operator (a writer per subtask): a sink of parallelism 1
      // behind P keyed subtasks would add a network hop that parallelism 1 does not have
      case IDENTITY ->
          decode(source, config, hashOnly)
              .keyBy(new DedupPipeline.ShardKey(), Types.INT)
              .sinkTo(sink)
              .uid("truth")
              .name("truth");
      case EXACT ->
          decode(source, config, hashOnly)
              .keyBy(new UrlKey(), Types.STRING)
              .process(new ExactDedup(ttl), TypeInformation.of(UrlRecord.class))
              .uid("exact")
              .name("exact")
              .sinkTo(sink)
              .uid("truth")
              .name("truth");
      case STABLE, SCALABLE -> {
        if (hashOnly) {
          // DedupPipeline's graph with the hash-only decode in front
          DedupPipeline.dedup(decode(source, config, true), config.pipeline())
              .sinkTo(sink)
              .uid("truth")
              .name("truth");
        } else {
          DedupPipeline.build(source, sink, null, config.pipeline());
        }
      }
      default -> throw new AssertionError(job);
    }
    StreamGraph graph = env.getStreamGraph();
    graph.setJobName("jobbench-" + job.name().toLowerCase(Locale.ROOT) + "-" + backend);

    TruthBits truth = TruthBits.read(Path.of(truthBits));
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("job", job.name().toLowerCase(Locale.ROOT));
    result.put("backend", backend);
    result.put("lines", truth.lines);
    result.put("uniques", truth.uniques());
    result.put("parallelism", parallelism);
    result.put("jobFlags", String.join(" ", jobFlags));
    result.put(
        "rocksdbOptions", conf.getOptional(RocksDBOptions.OPTIONS_FACTORY).orElse("default"));
    result.put("objectReuse", conf.get(PipelineOptions.OBJECT_REUSE));
    result.put("incremental", incremental);
    result.put("decode", hashOnly ? "hash-only" : "full");

    MiniClusterConfiguration mcc =
        new MiniClusterConfiguration.Builder()
            .setConfiguration(conf)
            .setNumTaskManagers(1)
            .setNumSlotsPerTaskManager(Math.max(1, parallelism))
            .build();
    long wallStart = System.nanoTime();
    try (MiniCluster mc = new MiniCluster(mcc)) {
      mc.start();
      JobID id = mc.submitJob(graph).get().getJobID();
      JobResult jr;
      try {
        jr = mc.requestJobResult(id).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // report how far it got: the rate so far, CPU so far, the checkpoints so far
        long lines = BenchProbe.linesRead.sum();
        long now = System.nanoTime();
        CheckpointStatsSnapshot stats = mc.getExecutionGraph(id).get().getCheckpointStatsSnapshot();
        long[] cpu = taskThreadCpu();
        long procCpu = BenchProbe.processCpu();
        mc.cancelJob(id).get(60, TimeUnit.SECONDS);
        result.put("status", "timeout after " + timeout + " at line " + lines + " (partial)");
        result.put("partialLines", lines);
        if (BenchProbe.firstRecordNanos.get() != 0 && lines > 0) {
          double secs = (now - BenchProbe.firstRecordNanos.get()) / 1e9;
          result.put("processSeconds", String.format(Locale.ROOT, "%.2f", secs));
          result.put("recordsPerSecond", Math.round(lines / secs));
          result.put("decodeCpuUsPerRecord", us(cpu[0], lines));
          result.put("keyedCpuUsPerRecord", us(cpu[1], lines));
          result.put(
              "processCpuUsPerRecord", us(procCpu - BenchProbe.processCpuStart.get(), lines));
        }
        finish(result, out, truth, stats, ckpt, wallStart);
        System.exit(3);
        return;
      }
      if (!jr.isSuccess()) {
        result.put(
            "status",
            "failed: "
                + jr.getSerializedThrowable()
                    .map(t -> t.getFullStringifiedStackTrace())
                    .orElse("?")
                    .lines()
                    .limit(8)
                    .reduce((x, y) -> x + " | " + y)
                    .orElse("?"));
        finish(result, out, truth, null, ckpt, wallStart);
        System.exit(4);
        return;
      }
      JobExecutionResult er = jr.toJobExecutionResult(JobBench.class.getClassLoader());
      Object invalid = er.getAllAccumulatorResults().get("urldedup.invalid");
      result.put("status", "ok");
      result.put("invalid", invalid == null ? 0L : invalid);
      CheckpointStatsSnapshot stats =
          mc.getArchivedExecutionGraph(id).get().getCheckpointStatsSnapshot();
      finish(result, out, truth, stats, ckpt, wallStart);
    }
    System.exit(0);
  }

  private static DataStream<UrlRecord> decode(
      DataStream<RawRecord> source, JobConfig config, boolean hashOnly) {
    DecodeConfig dc = config.decodeConfig();
    return source
        .process(
            hashOnly ? new HashOnlyDecode(dc.hashSeed(), dc.shards()) : new DecodeFunction(dc),
            TypeInformation.of(UrlRecord.class))
        .uid("decode")
        .name("decode")
        .setParallelism(source.getParallelism());
  }

  private static void finish(
      Map<String, Object> r,
      Path out,
      TruthBits truth,
      CheckpointStatsSnapshot stats,
      Path ckpt,
      long wallStart)
      throws IOException {
    r.put("wallSeconds", String.format(Locale.ROOT, "%.1f", (System.nanoTime() - wallStart) / 1e9));
    long t0 = BenchProbe.firstRecordNanos.get();
    long t1 = BenchProbe.endOfInputNanos.get();
    boolean complete = !r.containsKey("partialLines");
    if (t0 != 0 && t1 > t0 && complete) {
      double secs = (t1 - t0) / 1e9;
      r.put("processSeconds", String.format(Locale.ROOT, "%.2f", secs));
      r.put("recordsPerSecond", Math.round(truth.lines / secs));
    }
    if (BenchProbe.sourcesEnded.sum() > 0 && complete) {
      r.put("decodeCpuUsPerRecord", us(BenchProbe.sourceCpu.sum(), truth.lines));
    }
    if (BenchProbe.writersEnded.sum() > 0 && complete) {
      r.put("keyedCpuUsPerRecord", us(BenchProbe.keyedCpu.sum(), truth.lines));
      r.put(
          "processCpuUsPerRecord",
          us(BenchProbe.processCpuEnd.get() - BenchProbe.processCpuStart.get(), truth.lines));
    }
    r.put("sourceReaders", BenchProbe.sourcesEnded.sum());
    r.put("emitted", BenchProbe.emitted.sum());
    // a timed-out run: against the lines read (records still in flight count as FP, slightly); with
    // several readers the lines read are not a prefix: the per-line counts assume one reader
    long covered = complete ? truth.lines : (Long) r.get("partialLines");
    long uniques = truth.uniquesBefore(covered);
    long fp = uniques - BenchProbe.emittedFirsts.sum();
    long repeats = covered - uniques;
    long fn = BenchProbe.emittedRepeats.sum();
    r.put("falsePositives", fp);
    r.put("falseNegatives", fn);
    r.put("fpr", String.format(Locale.ROOT, "%.6f", uniques == 0 ? 0.0 : (double) fp / uniques));
    r.put("fnRate", String.format(Locale.ROOT, "%.6f", repeats == 0 ? 0.0 : (double) fn / repeats));
    // per page: what holds whichever occurrence of a page comes first (parallel readers)
    long pageFp = uniques - BenchProbe.urlsEmitted.sum();
    long pageFn = BenchProbe.urlsEmittedAgain.sum();
    r.put("pageFalsePositives", pageFp);
    r.put("pageFalseNegatives", pageFn);
    r.put(
        "pageFpr",
        String.format(Locale.ROOT, "%.6f", uniques == 0 ? 0.0 : (double) pageFp / uniques));
    r.put(
        "pageFnRate",
        String.format(Locale.ROOT, "%.6f", repeats == 0 ? 0.0 : (double) pageFn / repeats));
    r.put("emittedTwice", BenchProbe.emittedTwice.sum());
    r.put("unnumbered", BenchProbe.unnumbered.sum());
    if (stats != null) {
      CheckpointCoverage.put(r, truth, stats);
    }
    r.put("checkpointDirBytes", du(ckpt));
    r.put("vmHwmKb", procStatus("VmHWM"));
    r.put("heapMaxMb", Runtime.getRuntime().maxMemory() >> 20);
    try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
      r.forEach((k, v) -> w.println(k + "=" + String.valueOf(v).replace('\n', ' ')));
    }
    r.forEach((k, v) -> System.out.println(k + "=" + v));
  }

  /**
   * CPU time so far of the source+decode task threads and of the keyed (sink writer) task threads.
   */
  private static long[] taskThreadCpu() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long[] cpu = {BenchProbe.sourceCpu.sum(), BenchProbe.keyedCpu.sum()}; // threads that ended
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      String n = t.getName();
      Long s0 = BenchProbe.sourceCpuStartByThread.get(t.getId());
      Long k0 = BenchProbe.keyedCpuStartByThread.get(t.getId());
      if (s0 != null) {
        cpu[0] += Math.max(0, mx.getThreadCpuTime(t.getId()) - s0);
      } else if (k0 != null) {
        cpu[1] += Math.max(0, mx.getThreadCpuTime(t.getId()) - k0);
      }
    }
    return cpu;
  }

  private static String us(long nanos, long records) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e3 / Math.max(1, records));
  }

  static long du(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    // the cluster may still be discarding a subsumed checkpoint: a file vanishing mid-walk is
    // skipped
    long[] total = new long[1];
    Files.walkFileTree(
        dir,
        new java.nio.file.SimpleFileVisitor<>() {
          @Override
          public java.nio.file.FileVisitResult visitFile(
              Path f, java.nio.file.attribute.BasicFileAttributes a) {
            total[0] += a.isRegularFile() ? a.size() : 0;
            return java.nio.file.FileVisitResult.CONTINUE;
          }

          @Override
          public java.nio.file.FileVisitResult visitFileFailed(Path f, IOException e) {
            return java.nio.file.FileVisitResult.CONTINUE;
          }
        });
    return total[0];
  }

  static long procStatus(String field) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (l.startsWith(field + ":")) {
          return Long.parseLong(l.substring(field.length() + 1).trim().split("\\s+")[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private static String required(Map<String, String> own, String name) {
    String v = own.get(name);
    if (v == null) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return v;
  }

  private static Duration parseDuration(String s) {
    return org.apache.flink.util.TimeUtils.parseDuration(s);
  }

  static final class UrlKey implements KeySelector<UrlRecord, String> {
    @Override
    public String getKey(UrlRecord r) {
      return r.url();
    }
  }
}
