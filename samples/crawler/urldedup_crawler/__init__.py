"""A Scrapy crawler whose frontier is urldedup: it fetches what the job's output topic says and
publishes every link it finds to the job's input topic."""
