"""The Scrapy scheduler whose queue is urldedup's output topic.

urldedup writes each unseen URL once, in Kafka transactions that commit at its checkpoints, keyed
by host. This scheduler reads that topic with isolation.level=read_committed (an uncommitted or
aborted record would be a URL fetched that the job may emit again after a failure), keeps one
queue per host (the record key) and hands out hosts round-robin, so one busy host does not fill
Scrapy's downloader while others wait; Scrapy's per-host download slots then apply the
politeness settings. In a fleet every crawler process joins the same consumer group: Kafka
assigns each one a set of partitions, and since the job partitions by host, every host is
fetched by exactly one process.

Requests the engine hands back (retries) are queued locally in front of the topic.
"""
import collections
import json
import logging
import time

from confluent_kafka import Consumer, KafkaError
from scrapy import Request
from twisted.internet import task

logger = logging.getLogger(__name__)


class KafkaFrontier:
    def __init__(self, crawler):
        self.crawler = crawler
        self.local = collections.deque()
        self.hosts = collections.OrderedDict()  # host -> deque of records, round-robin order
        self.buffered = 0
        self.consumer = None
        self.spider = None
        self.waker = None
        self.last_record = time.monotonic()
        self.records = 0
        self.out_of_scope = 0
        self.bad_records = 0

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def open(self, spider):
        self.spider = spider
        self.consumer = Consumer({
            "bootstrap.servers": spider.bootstrap,
            "group.id": spider.group,
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
            # offsets are committed as records are taken; a crash re-fetches at most a poll's worth
            "enable.auto.commit": True,
            "enable.partition.eof": False,
        })
        self.consumer.subscribe([spider.frontier_topic])
        # The engine asks for requests after each download and on a 5 s heartbeat; new records
        # should not wait for the heartbeat (it would add up to 5 s to every discovery-to-fetch).
        self.waker = task.LoopingCall(self._wake)
        self.waker.start(0.1, now=False)

    def _wake(self):
        slot = getattr(self.crawler.engine, "slot", None)
        if slot is not None:
            slot.nextcall.schedule()

    def close(self, reason):
        if self.waker is not None and self.waker.running:
            self.waker.stop()
        if self.consumer is not None:
            self.consumer.close()
        stats = self.crawler.stats
        stats.set_value("frontier/records", self.records)
        stats.set_value("frontier/out_of_scope", self.out_of_scope)
        stats.set_value("frontier/bad_records", self.bad_records)

    def idle_seconds(self):
        return time.monotonic() - self.last_record

    def _poll(self):
        if self.buffered >= 2000:
            return
        for m in self.consumer.consume(num_messages=500, timeout=0):
            if m.error():
                if m.error().code() != KafkaError._PARTITION_EOF:
                    logger.warning("frontier: %s", m.error())
                continue
            self.last_record = time.monotonic()
            self.records += 1
            try:
                rec = json.loads(m.value())
                url = rec["url"]
            except (ValueError, KeyError, TypeError):
                self.bad_records += 1
                continue
            if not self.spider.in_scope(url):
                self.out_of_scope += 1
                continue
            host = (m.key() or b"").decode("utf-8", "replace")
            self.hosts.setdefault(host, collections.deque()).append((rec, m.timestamp()[1], int(time.time() * 1000)))
            self.buffered += 1

    def has_pending_requests(self):
        if not self.local and not self.buffered:
            self._poll()
        return bool(self.local) or self.buffered > 0

    def enqueue_request(self, request):
        self.local.append(request)
        return True

    def next_request(self):
        if self.local:
            return self.local.popleft()
        self._poll()
        if not self.buffered:
            return None
        host, q = next(iter(self.hosts.items()))
        rec, ts, received = q.popleft()
        self.hosts.move_to_end(host)
        if not q:
            del self.hosts[host]
        self.buffered -= 1
        return Request(
            rec["url"],
            callback=self.spider.parse,
            errback=self.spider.failed,
            dont_filter=True,
            meta={
                "depth": rec.get("depth", 0),
                "referrer": rec.get("referrer"),
                # the output record's timestamp is the input record's: when the link was published
                "discovered_ms": ts,
                "received_ms": received,
                "taken_ms": int(time.time() * 1000),
                "handle_httpstatus_all": True,
            },
        )

    def __len__(self):
        return len(self.local) + self.buffered
