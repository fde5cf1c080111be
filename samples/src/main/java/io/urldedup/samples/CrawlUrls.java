package io.urldedup.samples;

import io.urldedup.state.SplitMix64;

/**
 * Renders the generator's pages as URLs. A page is (host index, page id): id >= 0 is an article
 * (unique per id), id < 0 one of a host's {@link #NAV_PAGES} navigation pages.
 *
 * <p>The canonical form is a fixed point of the job's default rules (lower-case scheme and host, no
 * port, no fragment, no dot segments, only unreserved characters, query keys sorted and distinct).
 * Variants differ from it only in ways the default rules undo: a fragment, the host's case, the
 * scheme's default port. So the truth a generator writes holds for the job's default rules. (The
 * order of query parameters is not among them: it is a different URL unless {@code --sort-params}.)
 * {@code --messy} renders through {@link MessyUrls}.
 */
final class CrawlUrls {
  static final int NAV_PAGES = 8;

  /** Variant flags for {@link #render}. */
  static final int FRAGMENT = 1;

  static final int HOST_CASE = 2;
  static final int DEFAULT_PORT = 4;
  static final int PARAM_ORDER = 8;

  /** The variants the default rules undo (PARAM_ORDER needs --sort-params). */
  static final int ALL_VARIANTS = FRAGMENT | HOST_CASE | DEFAULT_PORT;

  private static final String[] SYLLABLES = {
    "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "be", "da", "fe", "go", "hu", "ji", "ko", "la",
    "ma", "no", "pe", "ri", "so", "tu", "va", "wi", "xe", "yo", "zu", "bo", "ci", "du", "fi", "ga"
  };
  private static final String[] WORDS = {
    "news",
    "shop",
    "daily",
    "tech",
    "garden",
    "travel",
    "books",
    "music",
    "city",
    "food",
    "health",
    "auto",
    "sport",
    "photo",
    "craft",
    "home",
    "market",
    "review",
    "world",
    "local",
    "green",
    "data",
    "cloud",
    "learn",
    "kids",
    "style",
    "bike",
    "river",
    "coffee",
    "film",
    "game",
    "wiki",
    "forum",
    "recipe",
    "guide",
    "weather",
    "science",
    "history",
    "design",
    "energy",
    "island",
    "mountain",
    "ocean",
    "planet",
    "garage",
    "studio",
    "library",
    "museum",
    "school",
    "office",
    "family",
    "pets",
    "art",
    "code",
    "open",
    "free",
    "best",
    "top",
    "new",
    "old",
    "big",
    "small",
    "fast",
    "quiet"
  };
  private static final String[] PREFIXES = {
    "www.", "www.", "www.", "www.", "www.", "www.", "www.", "www.", "www.", "www.", "www.", "", "",
    "", "blog.", "blog.", "shop.", "news.", "docs.", "m."
  };
  private static final String[] TLDS = {
    "com", "com", "com", "com", "com", "com", "com", "com", "org", "org", "net", "net", "de", "de",
    "co.uk", "io", "fr", "nl", "info", "jp"
  };
  private static final String[] SECTIONS = {
    "news",
    "blog",
    "products",
    "wiki",
    "forum",
    "docs",
    "category",
    "tag",
    "article",
    "p",
    "events",
    "shop/item",
    "help",
    "stories",
    "reviews",
    "people"
  };
  private static final String[] NAV = {
    "/", "/about", "/contact", "/search", "/login", "/sitemap", "/news/", "/products/"
  };

  /** Sorted, so that the canonical query lists them in this order. */
  private static final String[] KEYS = {"cat", "id", "lang", "page", "q", "ref", "sort", "v"};

  private static final String[] FRAGMENTS = {
    "#top", "#comments", "#main", "#section-2", "#reviews", "#"
  };

  private final long seedMix;

  CrawlUrls(long seed) {
    this.seedMix = SplitMix64.mix(seed ^ 0x5DEECE66DL);
  }

  static long navId(int k) {
    return -1L - k;
  }

  static boolean isNav(long id) {
    return id < 0;
  }

  boolean https(int host) {
    return (SplitMix64.mix(seedMix + host) >>> 40) % 10 < 8;
  }

  /** Appends the URL of (host, id) with the given variant flags (0 = canonical). */
  void render(StringBuilder sb, int host, long id, int variants, long variantBits) {
    long hm = SplitMix64.mix(seedMix + host);
    boolean https = (hm >>> 40) % 10 < 8;
    sb.append(https ? "https://" : "http://");
    int hostStart = sb.length();
    sb.append(PREFIXES[(int) ((hm >>> 8) % PREFIXES.length)]);
    // bijective syllable code of the index keeps hosts distinct; the word only reads naturally
    int h = host;
    do {
      sb.append(SYLLABLES[h & 31]);
      h >>>= 5;
    } while (h != 0);
    sb.append('-').append(WORDS[(int) ((hm >>> 16) % WORDS.length)]);
    sb.append('.').append(TLDS[(int) ((hm >>> 28) % TLDS.length)]);
    if ((variants & HOST_CASE) != 0) {
      upperCase(sb, hostStart, (variantBits & 1) == 0);
    }
    if ((variants & DEFAULT_PORT) != 0) {
      sb.append(https ? ":443" : ":80");
    }
    int queryKeys = 0;
    long pm = 0;
    if (isNav(id)) {
      sb.append(NAV[(int) (-1L - id)]);
    } else {
      pm = SplitMix64.mix(seedMix ^ (id * SplitMix64.GAMMA));
      sb.append('/').append(SECTIONS[(int) (pm & 15)]);
      if ((pm & 0x30) == 0) {
        sb.append('/').append(2014 + (int) ((pm >>> 6) % 13));
      }
      sb.append('/');
      int words = 1 + (int) ((pm >>> 10) & 3);
      for (int i = 0; i < words; i++) {
        sb.append(WORDS[(int) ((pm >>> (12 + 6 * i)) & 63)]).append('-');
      }
      sb.append(id);
      int ext = (int) ((pm >>> 36) % 10);
      if (ext < 3) {
        sb.append(".html");
      } else if (ext == 3) {
        sb.append(".php");
      }
      if (((pm >>> 40) % 5) == 0) {
        queryKeys = queryKeys(pm);
      }
    }
    if (queryKeys != 0) {
      appendQuery(sb, queryKeys, pm, (variants & PARAM_ORDER) != 0);
    }
    if ((variants & FRAGMENT) != 0) {
      sb.append(FRAGMENTS[(int) ((variantBits >>> 8) % FRAGMENTS.length)]);
    }
  }

  /** A subset of KEYS, each key with probability 1/4 (two random bytes ANDed), never empty. */
  private static int queryKeys(long pm) {
    int keys = (int) ((pm >>> 44) & (pm >>> 52) & 0xFF);
    return keys != 0 ? keys : 1 << ((pm >>> 60) & 7);
  }

  private static void appendQuery(StringBuilder sb, int keys, long pm, boolean reversed) {
    char sep = '?';
    for (int j = 0; j < KEYS.length; j++) {
      int i = reversed ? KEYS.length - 1 - j : j;
      if ((keys & (1 << i)) == 0) {
        continue;
      }
      sb.append(sep).append(KEYS[i]).append('=');
      long v = SplitMix64.mix(pm + i);
      if ((v & 1) == 0) {
        sb.append((v >>> 1) % 1000);
      } else {
        sb.append(WORDS[(int) ((v >>> 1) & 63)]);
      }
      sep = '&';
    }
  }

  /** Whole host upper-case, or the first letter of each label. */
  private static void upperCase(StringBuilder sb, int from, boolean whole) {
    boolean labelStart = true;
    for (int i = from; i < sb.length(); i++) {
      char c = sb.charAt(i);
      if (c >= 'a' && c <= 'z' && (whole || labelStart)) {
        sb.setCharAt(i, (char) (c - 32));
      }
      labelStart = c == '.' || c == '-';
    }
  }

  /** A few words of link text for the JSON format. */
  static void appendAnchor(StringBuilder sb, long bits) {
    int words = 1 + (int) (bits & 3);
    for (int i = 0; i < words; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(WORDS[(int) ((bits >>> (2 + 6 * i)) & 63)]);
    }
  }
}
