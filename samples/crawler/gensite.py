#!/usr/bin/python3
"""A generated static site with a known page set, for the crawler sample.

    /usr/bin/python3 gensite.py --out DIR --base http://localhost:49080 [--pages 3000] [--seed 1]

Pages form a tree (index -> sections -> subsections -> pages) so that every page is reachable
from /index.html, and each page links the way real pages do: relative links, ../, absolute paths,
absolute URLs with mixed-case hosts and dot segments, fragments, tracking parameters
(utm_source, utm_medium, utm_campaign: the crawl strips them with --strip-params), the same link
twice, random cross links, and on some pages a broken link (a missing page: 404), a malformed one
(the job dead-letters it), an offsite one (not fetched) and links of other schemes (news:, ftp:,
javascript:, tel:, ...; every page has a mailto: link): the spider publishes them as it publishes
every href, and the job dead-letters them as unsupported_scheme. A few orphan pages are linked from
nowhere. DIR/manifest.json counts what was written; samples/crawler/sitecheck.py recomputes the
reachable set from the files themselves and checks it against the manifest.
"""
import argparse
import json
import math
import os
import random
import sys

MALFORMED = [
    "http://{host}:99999/bad-port.html",   # port out of range
    "http://exa mple.test/space-in-host",   # space in the host
    "http://exa^mple.test/caret-in-host",   # a forbidden host code point (WHATWG)
]

# Links of schemes other than http(s), as real pages have them; the job dead-letters each as
# unsupported_scheme. The first is the link that once failed the verdict on a real site.
OTHER_SCHEMES = [
    "news://comp.ai.genetic",
    "news:comp.infosystems.www.authoring.html",
    "ftp://ftp.example.test/pub/README.txt",
    "javascript:void(0)",
    "javascript:history.back()",
    "mailto:someone@example.test?subject=hello",
    "tel:+1-555-0100",
    "data:text/plain,hello",
    "irc://irc.example.test/#crawl",
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--base", required=True, help="scheme://host:port the site is served at")
    ap.add_argument("--pages", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.pages < 100:
        sys.exit("gensite: --pages: expected an integer >= 100, got %d" % a.pages)
    base = a.base.rstrip("/")
    scheme, hostport = base.split("://", 1)
    rnd = random.Random(a.seed)

    sections, subs = 10, 6
    per_sub = math.ceil((a.pages - 1 - sections - sections * subs) / (sections * subs))
    leaves = [(s, b, p) for s in range(sections) for b in range(subs) for p in range(per_sub)]
    leaf_paths = ["/sec%d/sub%d/p%d.html" % x for x in leaves]

    def mixed_case(h):
        return "".join(c.upper() if rnd.random() < 0.5 else c for c in h)

    counts = {"pages": 0, "orphans": 0, "broken": 0, "malformed": 0, "offsite": 0, "other_scheme": 0,
              "links": 0}
    broken, malformed = [], []

    def write(path, title, links):
        full = os.path.join(a.out, path.lstrip("/"))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        body = "\n".join('<li><a href="%s">%s</a></li>' % (h.replace("&", "&amp;").replace('"', "&quot;"), t)
                         for h, t in links)
        with open(full, "w", encoding="utf-8") as f:
            f.write("<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n"
                    "<body><h1 id=\"top\">%s</h1>\n<ul>\n%s\n</ul>\n"
                    "<p><a href=\"mailto:webmaster@example.test\">contact</a></p></body></html>\n"
                    % (title, title, body))
        counts["links"] += len(links)

    def extras(i, links):
        """Broken, malformed, offsite and other-scheme links on some pages, the same for a given seed."""
        if i % 40 == 7:
            links.append(("missing-%d.html" % i, "broken"))
            counts["broken"] += 1
            broken.append(i)
        if i % 100 == 13:
            bad = MALFORMED[(i // 100) % len(MALFORMED)].format(host=hostport.split(":")[0])
            links.append((bad, "malformed"))
            counts["malformed"] += 1
            malformed.append(bad)
        if i % 20 == 3:
            links.append(("https://offsite.example/ref/%d" % i, "offsite"))
            counts["offsite"] += 1
        if i % 50 == 11:
            links.append((OTHER_SCHEMES[(i // 50) % len(OTHER_SCHEMES)], "other scheme"))
            counts["other_scheme"] += 1

    # the home page and the section / subsection indexes
    write("/index.html", "home", [("sec%d/index.html" % s, "section %d" % s) for s in range(sections)]
          + [("#top", "top"), ("/index.html?utm_source=home", "home")])
    counts["pages"] += 1
    for s in range(sections):
        write("/sec%d/index.html" % s, "section %d" % s,
              [("sub%d/index.html" % b, "sub %d" % b) for b in range(subs)]
              + [("../index.html", "home"), ("../sec%d/index.html" % ((s + 1) % sections), "next section")])
        counts["pages"] += 1
        for b in range(subs):
            write("/sec%d/sub%d/index.html" % (s, b), "section %d sub %d" % (s, b),
                  [("p%d.html" % p, "page %d" % p) for p in range(per_sub)]
                  + [("../index.html", "up"), ("../../index.html", "home"),
                     ("%s://%s/sec%d/sub%d/index.html" % (scheme, mixed_case(hostport), s, b), "self")])
            counts["pages"] += 1

    for i, (s, b, p) in enumerate(leaves):
        links = [
            ("p%d.html" % ((p + 1) % per_sub), "next"),                       # relative
            ("./p%d.html" % ((p - 1) % per_sub), "previous"),                 # ./
            ("../index.html", "up"),                                         # ../
            ("../../sec%d/index.html" % ((s + 3) % sections), "elsewhere"),  # ../../
            ("/index.html", "home"),                                         # absolute path
            ("p%d.html#comments" % p, "comments"),                           # fragment, self
            ("#top", "top"),                                                 # fragment only
            ("p%d.html?utm_source=newsletter&utm_medium=email" % ((p + 2) % per_sub), "tracked"),
            ("%s://%s%s" % (scheme, mixed_case(hostport), rnd.choice(leaf_paths)), "mixed-case host"),
            ("%s://%s/sec%d/./sub%d/../sub%d/p%d.html" % (scheme, hostport, s, b, b, (p + 3) % per_sub),
             "dot segments"),
            ("/sec%d/sub%d/p%d.html?utm_campaign=winter" % (s, b, (p + 4) % per_sub), "campaign"),
        ]
        for _ in range(3):
            links.append((rnd.choice(leaf_paths), "see also"))
        links.append(links[0])                                               # a duplicate link
        extras(i, links)
        write(leaf_paths[i], "page %d of section %d sub %d" % (p, s, b), links)
        counts["pages"] += 1

    for o in range(5):
        write("/orphans/o%d.html" % o, "orphan %d" % o, [("/index.html", "home")])
        counts["orphans"] += 1

    manifest = dict(counts, base=base, start=base + "/index.html", seed=a.seed,
                    broken_pages=len(broken), malformed_links=malformed)
    with open(os.path.join(a.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    print("gensite: %d pages reachable from %s/index.html (+%d orphans), %d links, %d broken, %d malformed, %d offsite,"
          " %d of other schemes (and a mailto: on every page)"
          % (counts["pages"], base, counts["orphans"], counts["links"], counts["broken"], counts["malformed"],
             counts["offsite"], counts["other_scheme"]), file=sys.stderr)


if __name__ == "__main__":
    main()
