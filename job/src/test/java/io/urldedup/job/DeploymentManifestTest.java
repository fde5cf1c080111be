package io.urldedup.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;
import org.apache.flink.configuration.MetricOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.snakeyaml.engine.v2.api.Load;
import org.snakeyaml.engine.v2.api.LoadSettings;

/**
 * The Kubernetes manifests (deploy/k8s) and the sample configs name only things that exist: the
 * job's main class, the job's flags (and values it accepts), Flink 2.2 configuration keys, and
 * paths that the Secret, the ConfigMap and the Dockerfile actually provide. They cannot be applied
 * on this project's machines (no cluster), so this is their test.
 *
 * <p>Flink keys are looked up in every public static {@link ConfigOption} of the {@code *Options}
 * classes in the Flink jars on the test classpath (flink-core, -runtime, -streaming-java, -clients,
 * -statebackend-rocksdb), with their fallback and deprecated keys. Patterns: {@code
 * metrics.reporter.<name>.<option>} takes MetricOptions' reporter options plus {@code port} (the
 * Prometheus reporter's own, its jar is not on this classpath); {@code kubernetes.operator.*} keys
 * belong to the operator, not to Flink; flink-kubernetes' own keys are listed ({@code
 * KUBERNETES_KEYS}).
 */
@Timeout(60)
class DeploymentManifestTest {

  /**
   * Keys of flink-kubernetes (KubernetesConfigOptions), whose jar is not on this classpath: named
   * one by one, so that a misspelled one still fails.
   */
  private static final Set<String> KUBERNETES_KEYS = Set.of("kubernetes.rest-service.exposed.type");

  private static final Path REPO = findRepo();
  private static Map<String, Object> deployment;
  private static Map<String, Object> configMap;
  private static Map<String, Object> secret;
  private static Set<String> flinkKeys;

  @BeforeAll
  static void load() throws IOException {
    deployment = single(REPO.resolve("deploy/k8s/flinkdeployment.yaml"));
    configMap = single(REPO.resolve("deploy/k8s/configmap.yaml"));
    secret = single(REPO.resolve("deploy/k8s/secret.example.yaml"));
    flinkKeys = flinkConfigKeys();
  }

  @Test
  void entryClassAndJarAreTheJobs() throws Exception {
    assertEquals("FlinkDeployment", deployment.get("kind"));
    Map<String, Object> job = map(map(deployment, "spec"), "job");
    Class<?> main = Class.forName((String) job.get("entryClass"));
    assertEquals(UrlDedupJob.class, main);
    main.getMethod("main", String[].class);
    // the Dockerfile puts the shaded jar exactly where jarURI points
    String jar = ((String) job.get("jarURI")).replaceFirst("^local://", "");
    String dockerfile = Files.readString(REPO.resolve("deploy/docker/Dockerfile"));
    assertTrue(
        dockerfile.contains("job/target/urldedup-job.jar " + jar),
        "Dockerfile does not copy the jar to " + jar);
    assertTrue(dockerfile.contains("FROM flink:2.2.1-java17"), "base image");
    assertEquals("savepoint", job.get("upgradeMode"));
  }

  @Test
  void argsAreFlagsTheJobKnowsAndParse(@TempDir Path tmp) throws IOException {
    List<String> args = strings(map(map(deployment, "spec"), "job").get("args"));
    assertEquals("run", args.get(0), "first argument: the command");
    Set<String> flags = Flags.names();
    for (String a : args) {
      if (a.startsWith("--")) {
        assertTrue(
            flags.contains(a.substring(2)), "unknown job flag " + a + " (known: " + flags + ")");
      }
    }
    String confPath = valueOf(args, "--config");
    String kafkaPropsPath = valueOf(args, "--kafka-properties");

    // the ConfigMap is mounted where --config points, the Secret's kafka.properties where
    // --kafka-properties points
    Map<String, String> mounts = mounts();
    String confKey = key(mounts, confPath, "config");
    Map<String, Object> data = map(configMap, "data");
    assertNotNull(
        data.get(confKey), "ConfigMap has no key " + confKey + " for --config " + confPath);
    String kafkaKey = key(mounts, kafkaPropsPath, "secrets");
    assertTrue(map(secret, "stringData").containsKey(kafkaKey), "Secret has no " + kafkaKey);

    // and the whole thing parses as the job parses it, with the seed from the Secret's env var
    Path conf = tmp.resolve("urldedup.conf");
    Files.writeString(conf, (String) data.get(confKey), StandardCharsets.UTF_8);
    Path props = tmp.resolve("kafka.properties");
    Files.writeString(
        props, (String) map(secret, "stringData").get(kafkaKey), StandardCharsets.UTF_8);
    List<String> local = new ArrayList<>(args.subList(1, args.size()));
    local.set(local.indexOf(confPath), conf.toString());
    local.set(local.indexOf(kafkaPropsPath), props.toString());
    JobConfig parsed =
        JobConfig.parse(local.toArray(String[]::new), Map.of(Flags.SEED_ENV, "0x1234abcd"));
    assertEquals(JobConfig.Mode.KAFKA, parsed.mode);
  }

  @Test
  void hashSeedComesFromTheSecret() {
    Map<String, Object> container = mainContainer();
    boolean found = false;
    for (Object o : (List<?>) container.get("env")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> env = (Map<String, Object>) o;
      if (Flags.SEED_ENV.equals(env.get("name"))) {
        assertTrue(!env.containsKey("value"), "the seed must not be written into the manifest");
        Map<String, Object> ref = map(map(env, "valueFrom"), "secretKeyRef");
        assertEquals(map(secret, "metadata").get("name"), ref.get("name"));
        assertTrue(
            map(secret, "stringData").containsKey((String) ref.get("key")),
            "Secret key " + ref.get("key"));
        found = true;
      }
    }
    assertTrue(found, Flags.SEED_ENV + " not set from the Secret");
  }

  @Test
  void flinkConfigurationKeysExistInFlink22() {
    Map<String, Object> conf = map(map(deployment, "spec"), "flinkConfiguration");
    Set<String> reporterOptions = reporterOptions();
    List<String> unknown = new ArrayList<>();
    for (String key : conf.keySet()) {
      if (key.startsWith("kubernetes.operator.") || KUBERNETES_KEYS.contains(key)) {
        continue;
      }
      if (key.startsWith("metrics.reporter.")) {
        String rest = key.substring("metrics.reporter.".length());
        String option = rest.substring(rest.indexOf('.') + 1);
        if (!reporterOptions.contains(option)) {
          unknown.add(key);
        }
        continue;
      }
      if (!flinkKeys.contains(key)) {
        unknown.add(key);
      }
      assertTrue(
          conf.get(key) instanceof String,
          key + ": operator flinkConfiguration values are strings");
    }
    assertTrue(unknown.isEmpty(), "keys Flink 2.2 does not define: " + unknown);
    assertEquals(
        "org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
        conf.get("metrics.reporter.prom.factory.class"));
    assertEquals("rocksdb", conf.get("state.backend.type"));
    assertEquals("true", conf.get("execution.checkpointing.incremental"));
    // the REST API has no authentication: its Service must not leave the cluster (docs/security.md)
    assertEquals("ClusterIP", conf.get("kubernetes.rest-service.exposed.type"));
    int maxParallelism = Integer.parseInt((String) conf.get("pipeline.max-parallelism"));
    int parallelism = ((Number) map(map(deployment, "spec"), "job").get("parallelism")).intValue();
    assertTrue(parallelism <= maxParallelism, "parallelism above pipeline.max-parallelism");
  }

  /** The lookup itself works: a known key is found, a made-up one is not. */
  @Test
  void keyLookupIsSound() {
    assertTrue(flinkKeys.contains("state.backend.type"));
    assertTrue(flinkKeys.contains("execution.checkpointing.dir"));
    assertTrue(
        flinkKeys.contains("state.backend.rocksdb.localdir"),
        "RocksDB options not on the classpath");
    assertTrue(!flinkKeys.contains("state.backend.incremental.typo"));
    assertTrue(flinkKeys.size() > 300, "only " + flinkKeys.size() + " Flink keys found");
  }

  @Test
  void sampleConfigsParse() {
    for (String f : List.of("samples/stable.conf", "samples/scalable.conf")) {
      JobConfig c =
          JobConfig.parseForPlan(new String[] {"--config", REPO.resolve(f).toString()}, Map.of());
      assertNotNull(c, f);
    }
  }

  // ------------------------------------------------------------------ helpers

  private static Map<String, Object> mainContainer() {
    Map<String, Object> pod = map(map(map(deployment, "spec"), "podTemplate"), "spec");
    for (Object o : (List<?>) pod.get("containers")) {
      @SuppressWarnings("unchecked")
      Map<String, Object> c = (Map<String, Object>) o;
      if ("flink-main-container".equals(c.get("name"))) {
        return c;
      }
    }
    throw new AssertionError("no flink-main-container in the pod template");
  }

  /** mount path -> volume name. */
  private static Map<String, String> mounts() {
    Map<String, String> out = new HashMap<>();
    for (Object o : (List<?>) mainContainer().get("volumeMounts")) {
      Map<?, ?> m = (Map<?, ?>) o;
      out.put((String) m.get("mountPath"), (String) m.get("name"));
    }
    return out;
  }

  /** The file name under a mount of the named volume. */
  private static String key(Map<String, String> mounts, String path, String volume) {
    int slash = path.lastIndexOf('/');
    assertEquals(
        volume,
        mounts.get(path.substring(0, slash)),
        path + " is not under the " + volume + " volume");
    return path.substring(slash + 1);
  }

  private static String valueOf(List<String> args, String flag) {
    int i = args.indexOf(flag);
    assertTrue(i >= 0 && i + 1 < args.size(), flag + " missing");
    return args.get(i + 1);
  }

  private static Set<String> reporterOptions() {
    Set<String> out = new TreeSet<>();
    for (Field f : MetricOptions.class.getFields()) {
      ConfigOption<?> o = option(f);
      if (o != null && !o.key().startsWith("metrics.")) {
        out.add(o.key());
      }
    }
    assertTrue(out.contains("factory.class"), "MetricOptions reporter options: " + out);
    out.add("port");
    return out;
  }

  private static Set<String> flinkConfigKeys() throws IOException {
    Set<String> keys = new TreeSet<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      File f = new File(entry);
      if (!f.getName().startsWith("flink-") || !f.getName().endsWith(".jar")) {
        continue;
      }
      try (JarFile jar = new JarFile(f)) {
        Enumeration<JarEntry> entries = jar.entries();
        while (entries.hasMoreElements()) {
          String name = entries.nextElement().getName();
          if (!name.startsWith("org/apache/flink/")
              || !name.endsWith("Options.class")
              || name.contains("$")) {
            continue;
          }
          Class<?> c;
          try {
            c =
                Class.forName(
                    name.substring(0, name.length() - 6).replace('/', '.'),
                    false,
                    DeploymentManifestTest.class.getClassLoader());
          } catch (Throwable e) {
            continue; // optional dependencies of unrelated classes
          }
          for (Field field : c.getFields()) {
            ConfigOption<?> o = option(field);
            if (o != null) {
              keys.add(o.key());
              for (FallbackKey k : o.fallbackKeys()) {
                keys.add(k.getKey());
              }
            }
          }
        }
      }
    }
    return keys;
  }

  private static ConfigOption<?> option(Field f) {
    if (!Modifier.isStatic(f.getModifiers()) || !ConfigOption.class.isAssignableFrom(f.getType())) {
      return null;
    }
    try {
      return (ConfigOption<?>) f.get(null);
    } catch (Throwable e) {
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> single(Path file) throws IOException {
    Load load = new Load(LoadSettings.builder().build());
    List<Object> docs = new ArrayList<>();
    load.loadAllFromString(Files.readString(file, StandardCharsets.UTF_8)).forEach(docs::add);
    assertEquals(1, docs.size(), file + ": one YAML document");
    return (Map<String, Object>) docs.get(0);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Map<String, Object> m, String key) {
    Object v = m.get(key);
    if (!(v instanceof Map)) {
      fail("no mapping '" + key + "' in " + m.keySet());
    }
    return (Map<String, Object>) v;
  }

  private static List<String> strings(Object list) {
    List<String> out = new ArrayList<>();
    for (Object o : (List<?>) list) {
      out.add(String.valueOf(o));
    }
    return out;
  }

  private static Path findRepo() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.exists(p.resolve("deploy/k8s/flinkdeployment.yaml"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException(
          "repository root (with deploy/k8s) not found above " + Path.of("").toAbsolutePath());
    }
    return p;
  }
}
