#!/usr/bin/python3
"""Every committed record of a topic, up to its current end, as JSON lines.

    /usr/bin/python3 topicdump.py --bootstrap HOST:PORT --topic T --out FILE

Reads with isolation.level=read_committed from the beginning of every partition, without a
consumer group commit, and stops when each partition's position reaches its end offset (or after
10 s without a record). Line: {"partition", "offset", "timestamp", "key", "value", "headers"}.
"""
import argparse
import json
import time

from confluent_kafka import Consumer, KafkaError, TopicPartition, OFFSET_BEGINNING


def text(b):
    return None if b is None else b.decode("utf-8", "replace")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    c = Consumer({"bootstrap.servers": a.bootstrap, "group.id": "topicdump-%d" % time.time_ns(),
                  "isolation.level": "read_committed", "enable.auto.commit": False,
                  "enable.partition.eof": True})
    parts = c.list_topics(a.topic, timeout=30).topics[a.topic].partitions
    tps = [TopicPartition(a.topic, p, OFFSET_BEGINNING) for p in parts]
    ends = {tp.partition: c.get_watermark_offsets(tp, timeout=30)[1] for tp in tps}
    c.assign(tps)
    done = {p for p, e in ends.items() if e == 0}
    n = 0
    last = time.monotonic()
    with open(a.out, "w", encoding="utf-8") as out:
        while len(done) < len(ends) and time.monotonic() - last < 10:
            for m in c.consume(num_messages=1000, timeout=0.5):
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        done.add(m.partition())
                    continue
                last = time.monotonic()
                out.write(json.dumps({"partition": m.partition(), "offset": m.offset(), "timestamp": m.timestamp()[1],
                                      "key": text(m.key()), "value": text(m.value()),
                                      "headers": {k: text(v) for k, v in (m.headers() or [])}}) + "\n")
                n += 1
                if m.offset() + 1 >= ends[m.partition()]:
                    done.add(m.partition())
    c.close()
    print("topicdump: %s: %d records" % (a.topic, n))


if __name__ == "__main__":
    main()
