"""The spider: fetch what the frontier (urldedup's output topic) hands out, publish every link
found on the page to urldedup's input topic, record each fetch.

    /usr/bin/python3 -m scrapy crawl site -a start=URL -a bootstrap=HOST:PORT \
        -a discovered_topic=T -a frontier_topic=T [-a group=G] [-a idle_s=20] [-a fetched=FILE]

Links are published raw, as found on the page (made absolute against the page's base, which
needs the page; nothing else): urldedup canonicalizes (case, dot segments, fragments, --strip-params)
and decides what is new. Each record is JSON {"url", "referrer", "depth"}; the job passes
referrer and depth through untouched to the output topic, where the frontier reads them back.
The start URL is published with "force": true, so it is fetched even if a previous crawl of the
same job saw it (Scrapy's dont_filter, Heritrix's addForce).

Scope: only URLs on the start URL's host:port are fetched (everything else still goes through
urldedup, as a fleet would fetch it). The crawl ends when the frontier has been idle for idle_s.
"""
import collections
import json
import time
from urllib.parse import urlsplit

from confluent_kafka import Producer
from scrapy import Spider, signals
from scrapy.exceptions import DontCloseSpider
from scrapy.linkextractors import LinkExtractor
from w3lib.url import safe_url_string


def _host_port(url):
    """(lowercase host, port) of an absolute http(s) URL; None when urllib cannot parse it."""
    try:
        p = urlsplit(url.strip())
        if p.scheme.lower() not in ("http", "https") or not p.hostname:
            return None
        return p.hostname.lower(), p.port or (443 if p.scheme.lower() == "https" else 80)
    except ValueError:
        return None


class RawLinks:
    """Scrapy's LinkExtractor, keeping each link as written on the page.

    LinkExtractor makes links absolute and then normalizes them (w3lib safe_url_string lowercases
    the host, percent-encodes); its process_value hook sees each link after urljoin and before
    that. The raw forms are queued under their normalized form and handed back in page order, so
    each extracted Link gets its own raw spelling. A link that w3lib cannot parse at all (a port
    out of range raises ValueError out of extract_links in Scrapy 2.8, losing the whole page) is
    dropped from Scrapy's list and published raw: urldedup dead-letters it with the reason.
    """

    def __init__(self):
        self.extractor = LinkExtractor(unique=False, process_value=self._seen)
        self.raw = collections.defaultdict(collections.deque)
        self.unparseable = []
        self.encoding = "utf-8"

    def _seen(self, value):
        try:
            key = safe_url_string(value, encoding=self.encoding)
        except ValueError:
            self.unparseable.append(value)
            return None
        self.raw[key].append(value)
        return value

    def extract(self, response):
        self.raw.clear()
        self.unparseable = []
        self.encoding = response.encoding
        out = []
        for link in self.extractor.extract_links(response):
            q = self.raw.get(link.url)
            out.append(q.popleft() if q else link.url)
        return out + self.unparseable


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
        self.links = RawLinks()
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
            for url in self.links.extract(response):
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
