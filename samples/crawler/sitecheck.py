#!/usr/bin/python3
"""The crawl's verdict against the site's true page set, computed from the served files.

    /usr/bin/python3 sitecheck.py --site DIR --start URL --fetched fetched.jsonl --dlq dlq.jsonl
        [--strip-params utm_source,utm_*] [--fpr 1e-6] [--filter scalable|stable] [--seconds N]

Reachable set: a breadth-first walk of the files from the start URL, resolving every <a>/<area>
href against its page (and <base href>), as a browser would, within the start URL's host:port.
A URL's identity is its normal form: lowercase scheme and host, dot segments removed (RFC 3986
5.2.4, urljoin), fragment dropped, the --strip-params names removed from the query, an empty
query dropped. A URL names a page when the file exists (a directory: its index.html); else it is
a broken link, which the crawler must have fetched as a 404. Links that do not parse as URLs are
malformed, and must be in the DLQ (by their raw value). Links of other schemes (mailto:, news:,
ftp:, javascript:, ...) are published too (the spider publishes every href): each must be in the
DLQ with the reason unsupported_scheme.

Prints the summary line
    fetched=N distinct=N refetched=N missed=N dlq=N seconds=N
and a detail line (pages, broken, malformed, other schemes, offsite, pages/s, discovery-to-fetch latency), and
exits 1 when a check fails: scalable refetched must be 0 and missed at most the FP budget
(mean + 4 sd + 1 of Binomial(distinct URLs discovered, fpr)); every broken link fetched as 404,
every malformed link dead-lettered, every link of another scheme dead-lettered as
unsupported_scheme. (stable: refetches are checked against plan's model by run.sh.)
"""
import argparse
import fnmatch
import html.parser
import json
import math
import os
import posixpath
import sys
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.hrefs = []
        self.base = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("a", "area") and a.get("href") is not None:
            self.hrefs.append(a["href"])
        elif tag == "base" and a.get("href") and self.base is None:
            self.base = a["href"]


def normal(url, strip):
    """The identity of a URL (see the module doc); None when it does not parse."""
    try:
        p = urlsplit(url.strip())
        if p.scheme.lower() not in ("http", "https") or not p.hostname:
            return None
        port = p.port
        # WHATWG forbidden host code points (the job dead-letters such hosts as bad_host)
        if any(c in p.hostname for c in " \t\n\r#/<>?@[\\]^|%"):
            return None
    except ValueError:
        return None
    scheme = p.scheme.lower()
    default = {"http": 80, "https": 443}[scheme]
    host = p.hostname.lower() + ("" if port in (None, default) else ":%d" % port)
    path = posixpath.normpath(p.path) if p.path else "/"
    if p.path.endswith("/") and not path.endswith("/"):
        path += "/"
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    query = "&".join(kv for kv in p.query.split("&")
                     if kv and not any(fnmatch.fnmatch(kv.split("=", 1)[0].lower(), s) for s in strip))
    return urlunsplit((scheme, host, path, query, ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--site", required=True)
    ap.add_argument("--start", required=True)
    ap.add_argument("--fetched", required=True)
    ap.add_argument("--dlq", required=True)
    ap.add_argument("--strip-params", default="")
    ap.add_argument("--fpr", type=float, default=0.01)
    ap.add_argument("--filter", default="scalable")
    ap.add_argument("--seconds", default="0")
    ap.add_argument("--discovered", type=int, default=None, help="distinct URLs the job saw (FP budget)")
    a = ap.parse_args()
    strip = [s.strip().lower() for s in a.strip_params.split(",") if s.strip() and s.strip().lower() != "none"]
    root = os.path.realpath(a.site)
    start = normal(a.start, strip)
    scope = urlsplit(start).netloc

    def file_of(u):
        path = unquote(urlsplit(u).path)
        f = os.path.realpath(os.path.join(root, path.lstrip("/")))
        if not (f == root or f.startswith(root + os.sep)):
            return None
        if os.path.isdir(f):
            f = os.path.join(f, "index.html")
        return f if os.path.isfile(f) else None

    pages, broken, malformed, offsite, other_scheme = set(), set(), set(), set(), set()
    queue, seen = [start], {start}
    while queue:
        u = queue.pop()
        f = file_of(u)
        if f is None:
            broken.add(u)
            continue
        pages.add(u)
        if not f.endswith((".html", ".htm")):
            continue
        p = Links()
        with open(f, encoding="utf-8", errors="replace") as fh:
            p.feed(fh.read())
        base = urljoin(u, p.base) if p.base else u
        for h in p.hrefs:
            h = h.strip()
            try:
                absolute = urljoin(base, h)
                scheme = urlsplit(absolute).scheme.lower()
            except ValueError:
                malformed.add(h)
                continue
            if scheme not in ("http", "https"):
                other_scheme.add(absolute)
                continue
            n = normal(absolute, strip)
            if n is None:
                malformed.add(absolute)
            elif urlsplit(n).netloc != scope:
                offsite.add(n)
            elif n not in seen:
                seen.add(n)
                queue.append(n)

    fetches, statuses = {}, {}
    # discovery -> fetched, and its parts: discovery -> visible to the frontier (the job, its
    # checkpoint and the transaction commit), -> taken from the frontier's queue, -> fetched
    lat = {"total": [], "urldedup": [], "queue": [], "download": []}
    first_ms, last_ms = None, None
    with open(a.fetched, encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            n = normal(r["url"], strip) or r["url"]
            fetches[n] = fetches.get(n, 0) + 1
            statuses[n] = r["status"]
            d, v, t, f = (r.get(k) for k in ("discovered_ms", "received_ms", "taken_ms", "fetched_ms"))
            if d and v and t and f:
                lat["total"].append(f - d)
                lat["urldedup"].append(v - d)
                lat["queue"].append(t - v)
                lat["download"].append(f - t)
            first_ms = r["fetched_ms"] if first_ms is None else min(first_ms, r["fetched_ms"])
            last_ms = r["fetched_ms"] if last_ms is None else max(last_ms, r["fetched_ms"])
    dlq_reasons = {}  # url -> the reasons it was dead-lettered with (header urldedup.reason)
    dlq = 0
    with open(a.dlq, encoding="utf-8") as fh:
        for line in fh:
            dlq += 1
            try:
                r = json.loads(line)
                url = json.loads(r["value"])["url"]
            except (ValueError, KeyError, TypeError):
                continue
            dlq_reasons.setdefault(url, set()).add((r.get("headers") or {}).get("urldedup.reason"))

    fetched = sum(fetches.values())
    distinct = len(fetches)
    refetched = fetched - distinct
    missed = sorted(pages - fetches.keys())
    broken_not_404 = sorted(b for b in broken if statuses.get(b) != 404)
    malformed_lost = sorted(m for m in malformed if m not in dlq_reasons)
    other_lost = sorted(o for o in other_scheme if "unsupported_scheme" not in dlq_reasons.get(o, ()))
    secs = float(a.seconds)
    print("fetched=%d distinct=%d refetched=%d missed=%d dlq=%d seconds=%d" % (fetched, distinct, refetched,
                                                                             len(missed), dlq, round(secs)))
    def pct(xs, q):
        return xs[max(0, math.ceil(q * len(xs)) - 1)] if xs else -1

    latency = []
    for k, xs in lat.items():
        xs.sort()
        latency.append("%s p50=%d p90=%d p99=%d max=%d" % (k, pct(xs, .5), pct(xs, .9), pct(xs, .99), xs[-1] if xs else -1))

    span = (last_ms - first_ms) / 1000 if fetched > 1 else 0
    # the FP budget: first occurrences wrongly suppressed ~ Binomial(distinct URLs, fpr)
    n_urls = a.discovered if a.discovered is not None else len(pages) + len(broken) + len(offsite)
    mean = n_urls * a.fpr
    budget = math.floor(mean + 4 * math.sqrt(mean * (1 - a.fpr)) + 1)
    print("crawl: pages=%d broken=%d (fetched as 404: %d) malformed=%d (in DLQ: %d) other_scheme=%d "
          "(in DLQ as unsupported_scheme: %d) offsite=%d pages_per_s=%.1f (first to last fetch %.1f s) "
          "fp_budget=%d (%d URLs x fpr %g)"
          % (len(pages), len(broken), len(broken) - len(broken_not_404), len(malformed),
             len(malformed) - len(malformed_lost), len(other_scheme), len(other_scheme) - len(other_lost),
             len(offsite), fetched / span if span else 0, span, budget, n_urls, a.fpr))
    print("crawl: discovery_to_fetch_ms " + "; ".join(latency))
    ok = True
    for what, items in (("missed page", missed), ("broken link not fetched as 404", broken_not_404),
                        ("malformed link not in the DLQ", malformed_lost),
                        ("link of another scheme not in the DLQ as unsupported_scheme", other_lost)):
        for x in items[:10]:
            print("crawl: %s: %s" % (what, x), file=sys.stderr)
    if broken_not_404 or malformed_lost or other_lost:
        ok = False
    if a.filter == "scalable" and (refetched != 0 or len(missed) > budget):
        ok = False
    print("crawl: verdict %s" % ("PASS" if ok else "FAIL"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
