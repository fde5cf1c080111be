package io.urldedup.samples;

import io.urldedup.state.SplitMix64;
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * A synthetic stream of links as a crawler's extractor discovers them, for demos, end-to-end tests
 * and accuracy measurements.
 *
 * <p>Model: the crawler fetches a page of a host (hosts Zipf-distributed) and emits a burst of its
 * links (mean {@code --burst}); most point into the same site ({@code 1 - --external}). A link is a
 * first occurrence of a page with probability {@code --unique-target / --lines}; otherwise it
 * repeats a page seen before: one of the last {@code --window} links (biased to the most recent:
 * temporal locality), one of the host's navigation pages ({@code --nav}), or a uniform draw from a
 * reservoir of all pages so far ({@code --long-range}). A fraction {@code --variants} of lines is
 * written as a non-canonical variant of its page (see {@link CrawlUrls}).
 *
 * <p>Memory is bounded by the window, the reservoir and one byte per host, whatever {@code
 * --lines}. With {@code --truth FILE} each line gets a line {@code first<TAB>canonical} or {@code
 * repeat<TAB>canonical}: the job with its default canonicalization should emit exactly the
 * canonical URLs of the {@code first} lines (less false positives).
 */
public final class CrawlStreamGenerator {

  /** What the flags ask for. */
  public record Settings(
      long lines,
      long uniqueTarget,
      int hosts,
      double zipf,
      long seed,
      boolean json,
      String output,
      String truth,
      double variants,
      double longRange,
      double nav,
      double external,
      int burst,
      int window,
      boolean messy) {

    public Settings {
      require(lines >= 0, "--lines", "an integer >= 0", lines);
      require(
          uniqueTarget >= 0 && uniqueTarget <= Math.max(lines, 1),
          "--unique-target",
          "an integer in [0, --lines]",
          uniqueTarget);
      require(hosts >= 1, "--hosts", "an integer >= 1", hosts);
      require(zipf > 0 && zipf <= 5, "--zipf", "an exponent in (0, 5]", zipf);
      require(variants >= 0 && variants <= 1, "--variants", "a fraction in [0, 1]", variants);
      require(
          longRange >= 0 && nav >= 0 && longRange + nav <= 1,
          "--long-range/--nav",
          "fractions >= 0 whose sum is <= 1",
          longRange + "/" + nav);
      require(external >= 0 && external <= 1, "--external", "a fraction in [0, 1]", external);
      require(burst >= 1, "--burst", "an integer >= 1", burst);
      require(
          window >= 1 && window <= (1 << 24), "--window", "an integer in [1, 16777216]", window);
    }

    public static Settings defaults(long lines, long seed) {
      return new Settings(
          lines,
          (long) (lines * 0.3),
          defaultHosts((long) (lines * 0.3)),
          1.1,
          seed,
          false,
          "-",
          null,
          0.3,
          0.05,
          0.15,
          0.1,
          20,
          4096,
          false);
    }
  }

  static int defaultHosts(long unique) {
    return (int) Math.max(1, Math.min(unique / 40, 1 << 22));
  }

  private static final int RESERVOIR = 1 << 16;

  private final Settings settings;
  private final CrawlUrls urls;
  private final MessyUrls messy;
  private final SplitMix64 rnd;
  private final ZipfSampler hostRank;
  private final double firstProbability;
  private final byte[] navSeen;
  private final long[] windowIds;
  private final int[] windowHosts;
  private int windowPos;
  private int windowFilled;
  private final long[] reservoirIds = new long[RESERVOIR];
  private final int[] reservoirHosts = new int[RESERVOIR];
  private int reservoirFilled;
  private long distinct;
  private long nextArticle;
  private int burstHost;
  private int burstLeft;
  private int burstDepth;
  private final StringBuilder source = new StringBuilder(128);
  private final StringBuilder scratch = new StringBuilder(256);

  public CrawlStreamGenerator(Settings settings) {
    this.settings = settings;
    this.urls = new CrawlUrls(settings.seed());
    this.messy = settings.messy() ? new MessyUrls(urls, settings.seed()) : null;
    this.rnd = new SplitMix64(SplitMix64.mix(settings.seed()));
    this.hostRank = new ZipfSampler(settings.hosts(), settings.zipf());
    this.firstProbability =
        settings.lines() == 0 ? 0 : (double) settings.uniqueTarget() / settings.lines();
    this.navSeen = new byte[settings.hosts()];
    this.windowIds = new long[settings.window()];
    this.windowHosts = new int[settings.window()];
  }

  /** Distinct canonical pages emitted so far. */
  public long distinct() {
    return distinct;
  }

  /**
   * The next link: appends the line (without newline) to {@code line} and its canonical URL to
   * {@code canonical}; returns whether it is the page's first occurrence.
   */
  public boolean next(StringBuilder line, StringBuilder canonical) {
    if (burstLeft == 0) {
      startBurst();
    }
    burstLeft--;
    int host = rnd.nextDouble() < settings.external() ? randomHost() : burstHost;
    long id;
    boolean first = windowFilled == 0 || rnd.nextDouble() < firstProbability;
    if (first) {
      int unseenNav = Integer.numberOfTrailingZeros(~navSeen[host] & 0xFF);
      if (unseenNav < CrawlUrls.NAV_PAGES && rnd.nextDouble() < 0.3) {
        navSeen[host] |= (byte) (1 << unseenNav);
        id = CrawlUrls.navId(unseenNav);
      } else {
        id = nextArticle++;
      }
      addToReservoir(id, host);
      distinct++;
    } else {
      double r = rnd.nextDouble();
      int seenNav = navSeen[host] & 0xFF;
      if (r < settings.longRange()) {
        int i = rnd.nextInt(reservoirFilled);
        id = reservoirIds[i];
        host = reservoirHosts[i];
      } else if (r < settings.longRange() + settings.nav() && seenNav != 0) {
        // a random seen navigation page: the k-th set bit, k uniform
        int k = rnd.nextInt(Integer.bitCount(seenNav));
        for (int j = 0; j < k; j++) {
          seenNav &= seenNav - 1;
        }
        id = CrawlUrls.navId(Integer.numberOfTrailingZeros(seenNav));
      } else {
        // age ~ filled * U^3: most repeats are of the last few dozen links
        double u = rnd.nextDouble();
        int age = (int) (windowFilled * u * u * u);
        int i = Math.floorMod(windowPos - 1 - age, windowIds.length);
        id = windowIds[i];
        host = windowHosts[i];
      }
    }
    windowIds[windowPos] = id;
    windowHosts[windowPos] = host;
    windowPos = windowPos + 1 == windowIds.length ? 0 : windowPos + 1;
    if (windowFilled < windowIds.length) {
      windowFilled++;
    }

    StringBuilder url = canonical;
    if (messy != null) {
      messy.canonical(canonical, host, id);
      if (settings.variants() > 0 && rnd.nextDouble() < settings.variants()) {
        scratch.setLength(0);
        messy.variant(scratch, host, id, rnd.nextLong(), settings.json());
        url = scratch;
      }
    } else {
      urls.render(canonical, host, id, 0, 0);
    }
    if (messy == null && settings.variants() > 0 && rnd.nextDouble() < settings.variants()) {
      long bits = rnd.nextLong();
      int flags = (int) (bits >>> 60) & CrawlUrls.ALL_VARIANTS;
      if (flags == 0) {
        flags = CrawlUrls.FRAGMENT;
      }
      scratch.setLength(0);
      urls.render(scratch, host, id, flags, bits);
      url = scratch;
    }
    if (settings.json()) {
      // URLs and anchors hold no character that JSON escapes (messy ones neither: no '\\' in JSON)
      line.append("{\"url\":\"")
          .append(url)
          .append("\",\"source\":\"")
          .append(source)
          .append("\",\"depth\":")
          .append(burstDepth)
          .append(",\"anchor\":\"");
      CrawlUrls.appendAnchor(line, rnd.nextLong());
      line.append("\"}");
    } else {
      line.append(url);
    }
    return first;
  }

  private void startBurst() {
    burstHost = randomHost();
    burstLeft =
        1
            + (int)
                Math.min(
                    Integer.MAX_VALUE - 1,
                    (long) (-Math.log(1 - rnd.nextDouble()) * (settings.burst() - 1) + 0.5));
    burstDepth = 1 + rnd.nextInt(5);
    if (settings.json()) {
      source.setLength(0);
      urls.render(source, burstHost, CrawlUrls.navId(rnd.nextInt(CrawlUrls.NAV_PAGES)), 0, 0);
    }
  }

  /** Host index 0..hosts-1, index 0 the most popular. */
  private int randomHost() {
    return (int) (hostRank.sample(rnd::nextDouble) - 1);
  }

  /** Algorithm R (Vitter 1985): a uniform sample of all distinct pages so far. */
  private void addToReservoir(long id, int host) {
    int slot;
    if (reservoirFilled < RESERVOIR) {
      slot = reservoirFilled++;
    } else {
      long j = rnd.nextLong(distinct + 1);
      if (j >= RESERVOIR) {
        return;
      }
      slot = (int) j;
    }
    reservoirIds[slot] = id;
    reservoirHosts[slot] = host;
  }

  /** Writes settings.lines() lines to {@code out} and, if not null, the truth to {@code truth}. */
  public void generate(OutputStream out, OutputStream truth) throws IOException {
    AsciiWriter o = new AsciiWriter(out);
    AsciiWriter t = truth == null ? null : new AsciiWriter(truth);
    StringBuilder line = new StringBuilder(512);
    StringBuilder canonical = new StringBuilder(256);
    for (long n = 0; n < settings.lines(); n++) {
      line.setLength(0);
      canonical.setLength(0);
      boolean first = next(line, canonical);
      o.line(line);
      if (t != null) {
        t.text(first ? "first\t" : "repeat\t");
        t.line(canonical);
      }
    }
    o.flush();
    if (t != null) {
      t.flush();
    }
  }

  /** Bytes of text (UTF-8) into a reused buffer: no per-line String or encoder. */
  private static final class AsciiWriter {
    private final OutputStream out;
    private final byte[] buf = new byte[1 << 16];
    private int pos;

    AsciiWriter(OutputStream out) {
      this.out = out;
    }

    void text(CharSequence s) throws IOException {
      for (int i = 0, n = s.length(); i < n; i++) {
        if (pos + 4 > buf.length) {
          drain();
        }
        char c = s.charAt(i);
        if (c < 0x80) {
          buf[pos++] = (byte) c;
        } else {
          // --messy IDN hosts: UTF-8 (no surrogate pairs among them)
          if (c < 0x800) {
            buf[pos++] = (byte) (0xC0 | c >> 6);
          } else {
            buf[pos++] = (byte) (0xE0 | c >> 12);
            buf[pos++] = (byte) (0x80 | (c >> 6 & 0x3F));
          }
          buf[pos++] = (byte) (0x80 | (c & 0x3F));
        }
      }
    }

    void line(CharSequence s) throws IOException {
      text(s);
      if (pos == buf.length) {
        drain();
      }
      buf[pos++] = '\n';
    }

    private void drain() throws IOException {
      out.write(buf, 0, pos);
      pos = 0;
    }

    void flush() throws IOException {
      drain();
      out.flush();
    }
  }

  static final String USAGE =
      String.join(
          "\n",
          "Usage: CrawlStreamGenerator [flags]",
          "  --lines N           lines to write (default 10000)",
          "  --unique-target N   expected distinct canonical pages (default 30% of --lines)",
          "  --hosts N           hosts, Zipf-popular (default unique/40, at least 1)",
          "  --zipf S            Zipf exponent of host popularity (default 1.1)",
          "  --seed S            same seed, same stream (default 1)",
          "  --format text|json  one URL per line, or JSON objects with url/source/depth/anchor (default text)",
          "  --output FILE       default - (stdout)",
          "  --truth FILE        per line: first|repeat <TAB> canonical URL",
          "  --variants P        fraction of lines written as a non-canonical variant (default 0.3)",
          "  --long-range P      fraction of repeats drawn from all pages so far (default 0.05)",
          "  --nav P             fraction of repeats that are the host's navigation pages (default 0.15)",
          "  --external P        fraction of a burst's links to other hosts (default 0.1)",
          "  --burst N           mean links per crawled page (default 20)",
          "  --window N          recent links that repeats are drawn from (default 4096)",
          "  --messy             IDN/IP hosts, ports, escapes, '//', unsorted and empty parameters in",
          "                      pages; userinfo, case, dots, whitespace, ... in variants (MessyUrls)");

  /** Parses {@code --flag value} pairs; errors name the flag and the accepted values. */
  public static Settings parse(String[] args) {
    long lines = 10_000;
    Long unique = null;
    Integer hosts = null;
    double zipf = 1.1;
    long seed = 1;
    boolean json = false;
    String output = "-";
    String truth = null;
    double variants = 0.3;
    double longRange = 0.05;
    double nav = 0.15;
    double external = 0.1;
    int burst = 20;
    int window = 4096;
    boolean messy = false;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (flag.equals("--help") || flag.equals("-h")) {
        throw new IllegalArgumentException(USAGE);
      }
      if (flag.equals("--messy")) {
        messy = true;
        continue;
      }
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(flag + " needs a value\n" + USAGE);
      }
      String v = args[++i];
      switch (flag) {
        case "--lines" -> lines = parseLong(flag, v);
        case "--unique-target" -> unique = parseLong(flag, v);
        case "--hosts" -> hosts = (int) Math.min(Integer.MAX_VALUE, parseLong(flag, v));
        case "--zipf" -> zipf = parseDouble(flag, v);
        case "--seed" -> seed = parseLong(flag, v);
        case "--format" -> {
          switch (v) {
            case "text" -> json = false;
            case "json" -> json = true;
            default ->
                throw new IllegalArgumentException(
                    "--format: '" + v + "' is not one of text, json");
          }
        }
        case "--output" -> output = v;
        case "--truth" -> truth = v;
        case "--variants" -> variants = parseDouble(flag, v);
        case "--long-range" -> longRange = parseDouble(flag, v);
        case "--nav" -> nav = parseDouble(flag, v);
        case "--external" -> external = parseDouble(flag, v);
        case "--burst" -> burst = (int) Math.min(Integer.MAX_VALUE, parseLong(flag, v));
        case "--window" -> window = (int) Math.min(Integer.MAX_VALUE, parseLong(flag, v));
        default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
      }
    }
    long u = unique != null ? unique : (long) (lines * 0.3);
    int h = hosts != null ? hosts : defaultHosts(u);
    return new Settings(
        lines, u, h, zipf, seed, json, output, truth, variants, longRange, nav, external, burst,
        window, messy);
  }

  private static long parseLong(String flag, String v) {
    try {
      return Long.parseLong(v.replace("_", ""));
    } catch (NumberFormatException e) {
      // 1e6 style
      try {
        double d = Double.parseDouble(v);
        if (d == Math.rint(d) && Math.abs(d) < 9e18) {
          return (long) d;
        }
      } catch (NumberFormatException ignored) {
        // fall through
      }
      throw new IllegalArgumentException(flag + ": '" + v + "' is not an integer");
    }
  }

  private static double parseDouble(String flag, String v) {
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(flag + ": '" + v + "' is not a number");
    }
  }

  private static void require(boolean ok, String flag, String accepted, Object got) {
    if (!ok) {
      throw new IllegalArgumentException(flag + ": expected " + accepted + ", got " + got);
    }
  }

  public static void main(String[] args) {
    Settings s;
    try {
      s = parse(args);
    } catch (IllegalArgumentException e) {
      boolean help = e.getMessage().startsWith("Usage:");
      (help ? System.out : System.err).println(e.getMessage());
      System.exit(help ? 0 : 2);
      return;
    }
    long t0 = System.nanoTime();
    CrawlStreamGenerator g = new CrawlStreamGenerator(s);
    try (OutputStream out =
            s.output().equals("-")
                ? new NonClosing(new FileOutputStream(java.io.FileDescriptor.out))
                : new BufferedOutputStream(new FileOutputStream(s.output()), 1 << 16);
        OutputStream truth =
            s.truth() == null
                ? null
                : new BufferedOutputStream(new FileOutputStream(s.truth()), 1 << 16)) {
      g.generate(out, truth);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    System.err.printf(
        Locale.ROOT,
        "generator: %d lines, %d distinct pages (%.1f%% repeats) in %.2f s (%.2f M lines/s)%n",
        s.lines(),
        g.distinct(),
        s.lines() == 0 ? 0.0 : 100.0 * (s.lines() - g.distinct()) / s.lines(),
        secs,
        s.lines() / secs / 1e6);
  }

  /** stdout stays open for the shutdown hooks; flushing is enough. */
  private static final class NonClosing extends java.io.FilterOutputStream {
    NonClosing(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      flush();
    }
  }
}
