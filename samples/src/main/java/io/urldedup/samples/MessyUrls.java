package io.urldedup.samples;

import io.urldedup.state.SplitMix64;
import java.net.IDN;
import java.util.Locale;

/**
 * The {@code --messy} rendering of the generator's pages: the variety real link streams have.
 *
 * <p>Pages themselves are messier than {@link CrawlUrls}' (their canonical form has it): IDN hosts
 * (Punycode), IPv4 and IPv6 hosts, non-default ports, {@code //} in paths, escapes, query
 * parameters out of order and empty parameters. These stay in the canonical form because the
 * default rules keep them (only opt-in rules merge them).
 *
 * <p>Variants differ from the canonical form only by what the default rules undo
 * (docs/canonicalization.md): scheme and host case, default port, userinfo, host trailing dot, host
 * spelling (Unicode IDN, IPv4 number forms, uncompressed IPv6), escapes in lower-case hex or of
 * unreserved characters, dot segments, a backslash or missing or extra slashes after the scheme, a
 * fragment, surrounding spaces and tabs. So the truth holds for the default rules.
 */
final class MessyUrls {

  private static final int FRAGMENT = 1;
  private static final int CASE = 1 << 1;
  private static final int DEFAULT_PORT = 1 << 2;
  private static final int USERINFO = 1 << 3;
  private static final int TRAILING_DOT = 1 << 4;
  private static final int HOST_FORM = 1 << 5;
  private static final int ESCAPES = 1 << 6;
  private static final int DOT_SEGMENTS = 1 << 7;
  private static final int SLASHES = 1 << 8;
  private static final int WHITESPACE = 1 << 9;
  private static final int VARIANT_BITS = 10;

  private static final String[] IDN_WORDS = {
    "bücher", "café", "niño", "smörgås", "übung", "crème", "пример", "例え", "παράδειγμα"
  };
  private static final String[] USERS = {"user@", "user:pw@", "a:b@", ":@", "anon:x%40y@"};
  private static final String[] FRAGMENTS = {"#top", "#", "#a/b?c", "#%20x"};

  private final CrawlUrls urls;
  private final long seedMix;
  private final StringBuilder base = new StringBuilder(256);

  MessyUrls(CrawlUrls urls, long seed) {
    this.urls = urls;
    this.seedMix = SplitMix64.mix(seed ^ 0x3C6EF372FE94F82BL);
  }

  /** One page's parts: scheme (with "://"), host kind and forms, port, path, query. */
  private final class Page {
    String scheme;
    int kind;
    String host;
    String port = "";
    String path;
    String query = "";
    int ip;
  }

  private final Page page = new Page();

  private Page page(int host, long id) {
    base.setLength(0);
    urls.render(base, host, id, 0, 0);
    String u = base.toString();
    int hs = u.indexOf("://") + 3;
    int ps = u.indexOf('/', hs);
    int qs = u.indexOf('?', ps);
    Page p = page;
    p.scheme = u.substring(0, hs);
    long hm = SplitMix64.mix(seedMix + host);
    long pm = SplitMix64.mix(seedMix ^ (id * SplitMix64.GAMMA) ^ host);
    p.kind = (int) ((hm >>> 3) % 20);
    p.ip = host;
    String name = u.substring(hs, ps);
    p.port = "";
    if (p.kind < 2) {
      int dot = name.indexOf('.', name.indexOf('-'));
      p.host =
          name.substring(0, name.indexOf('-') + 1)
              + IDN_WORDS[(int) ((hm >>> 20) % IDN_WORDS.length)]
              + name.substring(dot);
    } else if (p.kind < 4) {
      p.host = "10." + ((host >>> 16) & 255) + "." + ((host >>> 8) & 255) + "." + (host & 255);
    } else if (p.kind == 4) {
      p.host =
          "[2001:db8::"
              + Integer.toHexString(0x100 + (host >>> 16))
              + ":"
              + Integer.toHexString(host & 0xFFFF)
              + "]";
    } else {
      p.host = name;
      if (p.kind < 7) {
        p.port = ":8080";
      }
    }
    p.path = u.substring(ps, qs < 0 ? u.length() : qs);
    p.query = qs < 0 ? "" : u.substring(qs);
    int second = p.path.indexOf('/', 1);
    if ((pm & 7) == 0 && second > 0) {
      p.path = p.path.substring(0, second) + "/" + p.path.substring(second); // "//" stays
    }
    if (((pm >>> 3) & 7) == 0 && p.path.length() > 1) {
      p.path = p.path + (((pm >>> 6) & 1) == 0 ? "%20x" : "-caf%C3%A9");
    }
    if (!p.query.isEmpty()) {
      if (((pm >>> 9) & 1) == 0) {
        String[] kv = p.query.substring(1).split("&");
        StringBuilder r = new StringBuilder();
        for (int i = kv.length - 1; i >= 0; i--) {
          r.append(r.length() == 0 ? '?' : '&').append(kv[i]);
        }
        p.query = r.toString(); // out of order: a different URL under the default rules
      }
      if (((pm >>> 10) & 3) == 0) {
        p.query = p.query + "&empty=&flag";
      }
    }
    return p;
  }

  /** Appends the canonical form (default rules) of (host, id). */
  void canonical(StringBuilder sb, int host, long id) {
    Page p = page(host, id);
    sb.append(p.scheme)
        .append(p.kind < 2 ? IDN.toASCII(p.host) : p.host)
        .append(p.port)
        .append(p.path)
        .append(p.query);
  }

  /** Appends a variant of (host, id): a non-empty random set of default-rule differences. */
  void variant(StringBuilder sb, int host, long id, long bits, boolean json) {
    Page p = page(host, id);
    int v = (int) (bits & ((1 << VARIANT_BITS) - 1));
    if (v == 0) {
      v = FRAGMENT;
    }
    int start = sb.length();
    if ((v & WHITESPACE) != 0) {
      sb.append(json ? "  " : " \t");
    }
    String scheme = p.scheme;
    if ((v & CASE) != 0) {
      scheme = scheme.toUpperCase(Locale.ROOT);
    }
    if ((v & SLASHES) != 0) {
      String s = scheme.substring(0, scheme.indexOf(':') + 1);
      int k = (int) ((bits >>> 20) % 3);
      scheme = s + (k == 0 ? "/" : k == 1 ? "///" : json ? "//" : "\\\\");
    }
    sb.append(scheme);
    if ((v & USERINFO) != 0) {
      sb.append(USERS[(int) ((bits >>> 24) % USERS.length)]);
    }
    String h = p.host;
    if ((v & HOST_FORM) != 0) {
      h = hostForm(p, bits >>> 28);
    } else if (p.kind < 2) {
      h = IDN.toASCII(h);
    }
    if ((v & CASE) != 0) {
      h = upperAscii(h);
    }
    sb.append(h);
    if ((v & TRAILING_DOT) != 0 && p.kind != 4 && p.kind > 3) {
      sb.append('.');
    }
    if ((v & DEFAULT_PORT) != 0 && p.port.isEmpty()) {
      sb.append(p.scheme.startsWith("https") ? ":443" : ":080");
    } else {
      sb.append(p.port);
    }
    String path = p.path;
    if ((v & DOT_SEGMENTS) != 0) {
      path = "/" + (((bits >>> 32) & 1) == 0 ? "./" : "zz/../") + path.substring(1);
    }
    if ((v & ESCAPES) != 0) {
      path = path.replace("%C3%A9", "%c3%a9").replaceFirst("-", "%2d");
      if (!json && ((bits >>> 33) & 1) == 0) {
        path = path.replaceFirst("/", "\\\\");
      }
    }
    sb.append(path).append(p.query);
    if ((v & FRAGMENT) != 0) {
      sb.append(FRAGMENTS[(int) ((bits >>> 36) % FRAGMENTS.length)]);
    }
    if ((v & WHITESPACE) != 0) {
      sb.append(json ? " " : "\t ");
      if (!json) {
        int at = start + 2 + (int) ((bits >>> 40) % (sb.length() - start - 4));
        sb.insert(at, '\t'); // tabs inside a URL are removed by the standard
      }
    }
  }

  /** ASCII letters upper-cased only (Unicode case mapping can change a label: ß to SS). */
  private static String upperAscii(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      b.append(c >= 'a' && c <= 'z' ? (char) (c - 32) : c);
    }
    return b.toString();
  }

  /** Another spelling of the host: Unicode IDN, an IPv4 number form, uncompressed IPv6. */
  private static String hostForm(Page p, long bits) {
    if (p.kind < 2) {
      return p.host;
    }
    int a = 10;
    int b = (p.ip >>> 16) & 255;
    int c = (p.ip >>> 8) & 255;
    int d = p.ip & 255;
    if (p.kind < 4) {
      switch ((int) (bits % 4)) {
        case 0:
          return Long.toString(((long) a << 24) | (b << 16) | (c << 8) | d);
        case 1:
          return "0x" + Integer.toHexString(a) + "." + b + "." + c + "." + d;
        case 2:
          return a + "." + b + "." + ((c << 8) | d);
        default:
          return "0" + Integer.toOctalString(a) + "." + b + "." + c + "." + d + ".";
      }
    }
    if (p.kind == 4) {
      return "[2001:0DB8:0:0:0:0:"
          + Integer.toHexString(0x100 + (p.ip >>> 16))
          + ":"
          + Integer.toHexString(p.ip & 0xFFFF)
          + "]";
    }
    return p.host;
  }
}
