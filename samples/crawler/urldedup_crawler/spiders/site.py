"""The spider: fetch what the frontier (urldedup's output topic) hands out, publish every link
found on the page to urldedup's input topic, record each fetch.

    /usr/bin/python3 -m scrapy crawl site -a start=URL -a bootstrap=HOST:PORT \
        -a discovered_topic=T -a frontier_topic=T [-a group=G] [-a idle_s=20] [-a fetched=FILE]

Links are published raw, as found on the page (made absolute against the page's base, which
needs the page; nothing else), every one of them, other schemes too (mailto:, news:, ...):
urldedup canonicalizes (case, dot segments, fragments, --strip-params), decides what is new, and
dead-letters what is no http(s) URL, with the reason. Each record is JSON {"url", "referrer",
"depth"}; the job passes referrer and depth through untouched to the output topic, where the
frontier reads them back.
The start URL is published with "force": true, so it is fetched even if a previous crawl of the
same job saw it (Scrapy's dont_filter, Heritrix's addForce).

Scope: only URLs on the start URL's host:port are fetched (everything else still goes through
urldedup, as a fleet would fetch it). The crawl ends when the frontier has been idle for idle_s.
"""
import json
import time
from urllib.parse import urljoin, urlsplit

from confluent_kafka import Producer
from scrapy import Spider, signals
from scrapy.exceptions import DontCloseSpider


def _host_port(url):
    """(lowercase host, port) of an absolute http(s) URL; None when urllib cannot parse it."""
    try:
        p = urlsplit(url.strip())
        if p.scheme.lower() not in ("http", "https") or not p.hostname:
            return None
        return p.hostname.lower(), p.port or (443 if p.scheme.lower() == "https" else 80)
    except ValueError:
        return None


def page_links(response):
    """Every href of the page's <a> and <area> elements, in page order, as written (surrounding
    whitespace stripped) and made absolute against the page's base (its first <base href>, else
    the page's URL) with urljoin, as sitecheck.py resolves them.

    Nothing is filtered out: links of other schemes (mailto:, news:, ftp:, javascript:), links
    with a port out of range or a bad host, and links with any file extension are all published,
    and the job decides: it dead-letters what is no http(s) URL with the reason
    (unsupported_scheme, bad_port, bad_host, ...). Scrapy's LinkExtractor drops other schemes and
    some extensions (.pdf, .zip) without a word, and a link it cannot join or normalize is lost
    with it; so the sample does not use it. A link urljoin cannot resolve (ValueError: a bad IPv6
    address) is published as written.
    """
    base = response.url
    declared = response.xpath("//base/@href").get()
    if declared:
        try:
            base = urljoin(response.url, declared)
        except ValueError:
            pass
    out = []
    for href in response.xpath("//a/@href | //area/@href").getall():
        href = href.strip()
        try:
            out.append(urljoin(base, href))
        except ValueError:
            out.append(href)
    return out


class SiteSpider(Spider):
    name = "site"

    def __init__(self, start, bootstrap, discovered_topic, frontier_topic, group="urldedup-crawler",
                 idle_s="20", fetched="fetched.jsonl", **kw):
        super().__init__(**kw)
        self.start = start
        self.bootstrap = bootstrap
        self.discovered_topic = discovered_topic
        self.frontier_topic = frontier_topic
        self.group = group
        self.idle_s = float(idle_s)
        self.scope = _host_port(start)
        if self.scope is None:
            raise ValueError("start: not an absolute http(s) URL: %r" % start)
        self.fetched_path = fetched
        self.published = 0
        self.publish_errors = 0
        self.last_publish = time.monotonic()

    @classmethod
    def from_crawler(cls, crawler, *args, **kw):
        spider = super().from_crawler(crawler, *args, **kw)
        crawler.signals.connect(spider.opened, signal=signals.spider_opened)
        crawler.signals.connect(spider.idle, signal=signals.spider_idle)
        crawler.signals.connect(spider.closed_, signal=signals.spider_closed)
        return spider

    def in_scope(self, url):
        return _host_port(url) == self.scope

    def opened(self, spider):
        self.producer = Producer({"bootstrap.servers": self.bootstrap, "linger.ms": 20,
                                  "enable.idempotence": True})
        self.out = open(self.fetched_path, "w", encoding="utf-8")
        self.started = time.monotonic()
        self.publish(self.start, None, 0, force=True)
        self.producer.flush(10)

    def start_requests(self):
        return iter(())

    def publish(self, url, referrer, depth, force=False):
        rec = {"url": url, "referrer": referrer, "depth": depth}
        if force:
            rec["force"] = True
        self.producer.produce(self.discovered_topic, json.dumps(rec).encode("utf-8"),
                              on_delivery=self._delivered)
        self.published += 1
        self.last_publish = time.monotonic()
        self.producer.poll(0)

    def _delivered(self, err, msg):
        if err is not None:
            self.publish_errors += 1
            self.logger.warning("publish failed: %s", err)

    def record(self, request, status, error=None):
        now = int(time.time() * 1000)
        m = request.meta
        self.out.write(json.dumps({
            "url": request.url, "status": status, "depth": m.get("depth"), "referrer": m.get("referrer"),
            "discovered_ms": m.get("discovered_ms"), "received_ms": m.get("received_ms"),
            "taken_ms": m.get("taken_ms"), "fetched_ms": now,
            "error": error}) + "\n")

    def parse(self, response):
        self.record(response.request, response.status)
        depth = response.meta.get("depth", 0) + 1
        if 300 <= response.status < 400 and b"Location" in response.headers:
            self.publish(response.urljoin(response.headers[b"Location"].decode("latin-1")), response.url, depth)
        elif response.status == 200 and hasattr(response, "text"):
            for url in page_links(response):
                self.publish(url, response.url, depth)
        return ()

    def failed(self, failure):
        request = failure.request
        self.record(request, None, failure.getErrorMessage()[:200])

    def idle(self, spider):
        """Idle = nothing in flight and, for idle_s, no record taken and no link published (links
        published just now become visible at the job's next checkpoint)."""
        self.producer.poll(0)
        frontier = self.crawler.engine.slot.scheduler
        if min(frontier.idle_seconds(), time.monotonic() - self.last_publish) < self.idle_s:
            raise DontCloseSpider

    def closed_(self, spider, reason):
        self.producer.flush(30)
        self.out.close()
        s = self.crawler.stats
        s.set_value("crawl/published", self.published)
        s.set_value("crawl/publish_errors", self.publish_errors)
        s.set_value("crawl/seconds", round(time.monotonic() - self.started, 1))
