"""Scrapy settings of the urldedup crawler sample.

The frontier is urldedup: the scheduler takes requests from the job's output topic (read_committed)
and the spider publishes every discovered link to the job's input topic. So Scrapy's own
duplicate filter is off (urldedup is the seen-set) and every request is dont_filter; re-fetching a
known URL on purpose is urldedup's "force": true.
"""

BOT_NAME = "urldedup_crawler"
SPIDER_MODULES = ["urldedup_crawler.spiders"]

SCHEDULER = "urldedup_crawler.frontier.KafkaFrontier"
DUPEFILTER_CLASS = "scrapy.dupefilters.BaseDupeFilter"

# Politeness: a few connections per host and a small delay between requests to one host
# (Scrapy's downloader slots are per host; the frontier hands out hosts round-robin).
CONCURRENT_REQUESTS = 16
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOAD_DELAY = 0.01
RANDOMIZE_DOWNLOAD_DELAY = True
DOWNLOAD_TIMEOUT = 15
ROBOTSTXT_OBEY = True
USER_AGENT = "urldedup-crawler-sample/0.1 (loopback test crawl)"

# Redirect targets are links too: the spider publishes the Location to urldedup instead of
# following it behind the frontier's back. 404s and other errors reach the spider (counted).
REDIRECT_ENABLED = False
HTTPERROR_ALLOW_ALL = True
RETRY_TIMES = 1

# The crawl runs until the frontier is idle (spider argument idle_s), bounded by this.
CLOSESPIDER_TIMEOUT = 900

TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
REQUEST_FINGERPRINTER_IMPLEMENTATION = "2.7"
