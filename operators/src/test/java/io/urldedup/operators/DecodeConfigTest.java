package io.urldedup.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.flink.util.InstantiationUtil;
import org.junit.jupiter.api.Test;

class DecodeConfigTest {

  private static void fails(Runnable r, String flag, String accepted) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
    assertTrue(e.getMessage().startsWith(flag + ":"), e.getMessage());
    assertTrue(e.getMessage().contains(accepted), e.getMessage());
  }

  @Test
  void defaults() {
    DecodeConfig c = DecodeConfig.builder().build();
    assertEquals(DecodeConfig.Format.TEXT, c.format());
    assertEquals(8192, c.maxUrlBytes());
    assertEquals(DecodeConfig.KeyMode.HOST, c.keyMode());
    assertEquals(List.of(), c.stripParams());
    assertEquals(false, c.stripWww());
    assertEquals(
        List.of("jsessionid", "phpsessid", "sid", "sessionid", "aspsessionid", "cfid", "cftoken"),
        DecodeConfig.builder().stripParams("default").build().stripParams());
  }

  @Test
  void validationNamesTheFlagAndTheAcceptedValues() {
    fails(() -> DecodeConfig.builder().format("xml"), "format", "text, json");
    fails(() -> DecodeConfig.builder().format((String) null), "format", "text, json");
    fails(() -> DecodeConfig.builder().keyMode("ip"), "key", "host, domain, none");
    fails(() -> DecodeConfig.builder().shards(0), "shards", "1 to 32768");
    fails(() -> DecodeConfig.builder().maxUrlBytes(8), "maxUrlBytes", "16 to 65536");
    fails(() -> DecodeConfig.builder().stripParams("sid,,x"), "stripParams", "default");
    fails(() -> DecodeConfig.builder().stripParams("a=b"), "stripParams", "comma-separated");
  }

  @Test
  void stripParamsSpec() {
    assertEquals(List.of(), DecodeConfig.builder().stripParams("none").build().stripParams());
    assertEquals(
        List.of("utm_source", "sid"),
        DecodeConfig.builder().stripParams(" UTM_Source , sid,sid").build().stripParams());
  }

  @Test
  void serializable() throws Exception {
    DecodeConfig c = DecodeConfig.builder().format("json").hashSeed(42).shards(7).build();
    DecodeConfig d = InstantiationUtil.clone(c);
    assertEquals(42, d.hashSeed());
    assertEquals(c.toString(), d.toString());
  }

  /**
   * The fingerprint covers exactly what changes canonical forms: the rules' settings (order of
   * --strip-params irrelevant), not the seed, shards, format, key or length limit.
   */
  @Test
  void canonicalizationFingerprintCoversTheCanonicalizationSettingsOnly() {
    DecodeConfig base = DecodeConfig.builder().hashSeed(42).build();
    long fp = base.canonicalizationFingerprint();
    assertTrue(fp != 0, "0 means unknown");
    DecodeConfig other =
        DecodeConfig.builder()
            .hashSeed(7)
            .shards(9)
            .format("json")
            .keyMode("domain")
            .maxUrlBytes(100)
            .build();
    assertEquals(fp, other.canonicalizationFingerprint());
    assertEquals(
        DecodeConfig.builder().stripParams("sid,jsessionid").build().canonicalizationFingerprint(),
        DecodeConfig.builder().stripParams("JSESSIONID,sid").build().canonicalizationFingerprint());
    assertTrue(fp != DecodeConfig.builder().stripWww(true).build().canonicalizationFingerprint());
    assertTrue(
        fp != DecodeConfig.builder().stripParams("sid").build().canonicalizationFingerprint());
    assertTrue(fp != DecodeConfig.builder().sortParams(true).build().canonicalizationFingerprint());
    assertTrue(
        fp != DecodeConfig.builder().dropEmptyParams(true).build().canonicalizationFingerprint());
    assertTrue(
        fp != DecodeConfig.builder().collapseSlashes(true).build().canonicalizationFingerprint());
    assertEquals(
        "canonicalization-version="
            + DecodeConfig.CANONICALIZATION_VERSION
            + "\nparser="
            + io.urldedup.operators.url.WhatwgUrlParser.VERSION
            + "\n--strip-params=jsessionid,sid\n--strip-www=true\n",
        DecodeConfig.builder()
            .hashSeed(42)
            .stripParams("sid,jsessionid")
            .stripWww(true)
            .build()
            .canonicalizationSettings());
    assertEquals(9, other.urlMapping().shards());
    assertEquals(
        new io.urldedup.state.UrlHasher(7).seedFingerprint(), other.urlMapping().seedFingerprint());
  }
}
