#!/usr/bin/env bash
# A real crawl through urldedup: Scrapy fetching a local static site, its links going through
# Kafka and the job, checked against the site's true page set.
#
#   samples/crawler/run.sh --site DIR --start URL [--idle 20s] [--filter scalable|stable]
#   samples/crawler/run.sh --generate PAGES        (a generated site, see gensite.py)
#     [--memory SIZE] [--shards N] [--fpr RATE] [--checkpoint-interval 10s]
#     [--strip-params LIST] [--out DIR] [--timeout 900]
#
# 1. a local stack of its own (deploy/local/stack.sh: Kafka broker + Flink cluster, RocksDB),
#    topics crawl.discovered (input), crawl.frontier (output), crawl.dlq
# 2. the job: --format json (url, referrer, depth, force), the given filter, --strip-params
# 3. the site served on loopback (python3 -m http.server), at the start URL's port (a --site DIR
#    must be served at localhost or 127.x: this script fetches nothing else)
# 4. the Scrapy project in this directory: it takes requests from the output topic
#    (read_committed), publishes every link it finds to the input topic, and stops when the
#    frontier has been idle for --idle
# 5. the verdict (sitecheck.py): prints
#        fetched=N distinct=N refetched=N missed=N dlq=N seconds=N
#    and a detail line; fetched URLs in OUT/fetched.txt (OUT/fetched.jsonl with status and times).
#    stable: the refetches against plan's model (deploy/local/FaultCheck.java, ForgettingModel)
#    over the stream the job actually read.
# Teardown stops only what this script started. Bounded by --timeout (crawl) + 5 min (set-up).
#
# Ports: CRAWLER_PORT_BASE (default 49000): Kafka +92, controller +93, REST +81, RPC +123,
# Prometheus JM +249, TM +250, the generated site +80; stack.sh's own variables (KAFKA_PORT,
# CONTROLLER_PORT, FLINK_REST_PORT, FLINK_RPC_PORT, PROM_JM_PORT, PROM_TM_PORT) win when set.
# Stack dir: URLDEDUP_STACK_DIR (default deploy/local/.work/crawler).
# A small site of other schemes only: --site samples/crawler/sites/other-schemes
#   --start http://localhost:<base+80>/index.html
set -euo pipefail

SAMPLE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$SAMPLE/../.." && pwd)"
# shellcheck source=../../deploy/script-lib.sh
source "$REPO/deploy/script-lib.sh"
PY=/usr/bin/python3

SITE=""
START=""
GENERATE=""
IDLE=20s
FILTER=scalable
MEMORY=""
SHARDS=""
FPR=""
CKPT=10s
STRIP="utm_source,utm_medium,utm_campaign"
OUT=""
TIMEOUT=900

usage() { header_usage "$0"; }
bad() { echo "crawler: $1" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --site) SITE="${2:-}"; shift 2 ;;
    --start) START="${2:-}"; shift 2 ;;
    --generate) GENERATE="${2:-}"; shift 2 ;;
    --idle) IDLE="${2:-}"; shift 2 ;;
    --filter) FILTER="${2:-}"; shift 2 ;;
    --memory) MEMORY="${2:-}"; shift 2 ;;
    --shards) SHARDS="${2:-}"; shift 2 ;;
    --fpr) FPR="${2:-}"; shift 2 ;;
    --checkpoint-interval) CKPT="${2:-}"; shift 2 ;;
    --strip-params) STRIP="${2:-}"; shift 2 ;;
    --out) OUT="${2:-}"; shift 2 ;;
    --timeout) TIMEOUT="${2:-}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; bad "unknown flag '$1'" ;;
  esac
done

seconds_of() {
  case "$1" in
    *ms) echo $(( ${1%ms} / 1000 )) ;;
    *min) echo $(( ${1%min} * 60 )) ;;
    *s) echo "${1%s}" ;;
    *) echo "" ;;
  esac
}
IDLE_S="$(seconds_of "$IDLE")"; CKPT_S="$(seconds_of "$CKPT")"
[[ "$IDLE_S" =~ ^[0-9]+$ ]] || bad "--idle: expected a duration such as 20s or 1min, got '$IDLE'"
[[ "$CKPT_S" =~ ^[0-9]+$ ]] && [ "$CKPT_S" -ge 1 ] || bad "--checkpoint-interval: expected a duration of at least 1s (e.g. 1s, 10s), got '$CKPT'"
# the frontier sees new URLs only at the job's checkpoints: a shorter idle ends every crawl early
[ "$IDLE_S" -gt $(( CKPT_S + 5 )) ] || bad "--idle: must exceed --checkpoint-interval + 5 s (output is visible at checkpoints), got $IDLE with $CKPT"
case "$FILTER" in
  scalable) FPR="${FPR:-1e-6}"; [ -z "$MEMORY" ] || bad "--memory applies to --filter stable only (the scalable filter grows with the URLs)" ;;
  stable) FPR="${FPR:-0.01}"; MEMORY="${MEMORY:-32k}"; SHARDS="${SHARDS:-4}" ;;
  *) bad "--filter: expected scalable or stable, got '$FILTER'" ;;
esac
SHARDS="${SHARDS:-128}"
[[ "$TIMEOUT" =~ ^[0-9]+$ ]] && [ "$TIMEOUT" -ge 30 ] && [ "$TIMEOUT" -le 7200 ] || bad "--timeout: expected seconds in [30, 7200], got '$TIMEOUT'"
if [ -n "$GENERATE" ]; then
  [ -z "$SITE" ] || bad "--generate and --site exclude each other"
  [[ "$GENERATE" =~ ^[0-9]+$ ]] && [ "$GENERATE" -ge 100 ] && [ "$GENERATE" -le 200000 ] || bad "--generate: expected a page count in [100, 200000], got '$GENERATE'"
else
  [ -n "$SITE" ] || bad "--site DIR (with --start URL) or --generate PAGES is required"
  [ -d "$SITE" ] || bad "--site: '$SITE' is not a directory"
  [ -n "$START" ] || bad "--start: the URL to start from is required with --site (e.g. http://localhost:49080/index.html)"
fi

BASE="${CRAWLER_PORT_BASE:-49000}"
SITE_PORT=$(( BASE + 80 ))
if [ -n "$START" ]; then
  [[ "$START" =~ ^[hH][tT][tT][pP]://([^/:]+)(:([0-9]+))?(/.*)?$ ]] || bad "--start: expected http://HOST[:PORT]/PATH, got '$START'"
  host="${BASH_REMATCH[1],,}"
  SITE_PORT="${BASH_REMATCH[3]:-80}"
  [[ "$host" = localhost || "$host" =~ ^127\.[0-9]+\.[0-9]+\.[0-9]+$ ]] \
    || bad "--start: the site is served here, on loopback: expected host localhost or 127.x.y.z, got '$host'"
  SITE_BIND="$host"; [ "$host" = localhost ] && SITE_BIND=127.0.0.1
else
  SITE_BIND=127.0.0.1
fi

export URLDEDUP_STACK_DIR="${URLDEDUP_STACK_DIR:-$REPO/deploy/local/.work/crawler}"
export KAFKA_PORT="${KAFKA_PORT:-$(( BASE + 92 ))}" CONTROLLER_PORT="${CONTROLLER_PORT:-$(( BASE + 93 ))}"
export FLINK_REST_PORT="${FLINK_REST_PORT:-$(( BASE + 81 ))}" FLINK_RPC_PORT="${FLINK_RPC_PORT:-$(( BASE + 123 ))}"
export PROM_JM_PORT="${PROM_JM_PORT:-$(( BASE + 249 ))}" PROM_TM_PORT="${PROM_TM_PORT:-$(( BASE + 250 ))}"
export INPUT_TOPIC=crawl.discovered OUTPUT_TOPIC=crawl.frontier DLQ_TOPIC=crawl.dlq GROUP_ID=urldedup-crawl
# shellcheck source=../../deploy/local/stack.sh
source "$REPO/deploy/local/stack.sh"
OUT="${OUT:-$WORK/out}"

T0=$(date +%s)
JOB_ID=""
SERVER_PID=""
step_clock crawler
# from here on a signal ends the script through its exit handlers (script-lib.sh's on_exit, last
# registered first): the site server and the stack (with the job) are registered where they start
on_exit

# ---------------------------------------------------------------- what it needs
if ! "$PY" -c 'import scrapy, confluent_kafka' 2>/dev/null; then
  step "installing python3-scrapy and python3-confluent-kafka (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq python3-scrapy python3-confluent-kafka >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get install -y -qq python3-scrapy python3-confluent-kafka >/dev/null; } \
    || { echo "crawler: error: apt-get install python3-scrapy python3-confluent-kafka failed" >&2; exit 1; }
fi
if [ ! -f "$JOB_JAR" ] || [ ! -f "$REPO/state/target/classes/io/urldedup/state/ForgettingModel.class" ]; then
  step "building the job (mvn package -DskipTests)"
  (cd "$REPO" && mvn -B -ntp -q package -DskipTests -pl job -am) >&2
fi
fetch

cmd_down >/dev/null 2>&1 || true
rm -rf "$WORK/kafka-data" "$WORK/flink" "$LOGS" "$OUT"
mkdir -p "$LOGS" "$OUT"
if [ -n "$GENERATE" ]; then
  SITE="$WORK/site"
  rm -rf "$SITE"
  START="http://localhost:$SITE_PORT/index.html"
  "$PY" "$SAMPLE/gensite.py" --out "$SITE" --base "http://localhost:$SITE_PORT" --pages "$GENERATE" >&2
fi
port_open "$SITE_PORT" && { echo "crawler: error: port $SITE_PORT is taken (set CRAWLER_PORT_BASE or another --start port)" >&2; exit 1; }

on_exit 'stack_teardown crawler'
step "starting the stack (ports base $BASE, $WORK)"
cmd_up 2>&1 | sed 's/^/crawler: /' >&2

JOB_FLAGS=(--format json --filter "$FILTER" --fpr "$FPR" --shards "$SHARDS" --strip-params "$STRIP"
  --checkpoint-interval "$CKPT" --state-backend rocksdb --starting-offsets earliest)
[ -n "$MEMORY" ] && JOB_FLAGS+=(--memory "$MEMORY")
step "submitting the job: ${JOB_FLAGS[*]}"
JOB_ID="$(submit "${JOB_FLAGS[@]}")"
REST="http://127.0.0.1:$FLINK_REST_PORT"
for _ in $(seq 1 120); do
  [ "$(curl -fsS --max-time 3 "$REST/jobs/$JOB_ID" 2>/dev/null | jq -r '[.vertices[].status] | all(. == "RUNNING")' 2>/dev/null)" = true ] && break
  sleep 1
done
step "job $JOB_ID running"

# The port is in Linux's ephemeral range (32768-60999): a client connection elsewhere on the
# machine can hold it for a moment, so the bind is retried a few times.
on_exit 'kill_started --wait "$SERVER_PID"'
for attempt in 1 2 3 4 5 6; do
  "$PY" -m http.server "$SITE_PORT" --bind "$SITE_BIND" --directory "$SITE" >>"$LOGS/site.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 50); do port_open "$SITE_PORT" && break; kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
  port_open "$SITE_PORT" && break
  kill_started --wait "$SERVER_PID"; SERVER_PID=""
  sleep 2
done
[ -n "$SERVER_PID" ] || { echo "crawler: error: the site server did not start on port $SITE_PORT (log: $LOGS/site.log)" >&2; exit 1; }
step "site $SITE served at http://$SITE_BIND:$SITE_PORT; crawling from $START (idle $IDLE)"

c0=$(date +%s)
crawl_rc=0
(cd "$SAMPLE" && timeout "$TIMEOUT" "$PY" -m scrapy crawl site -a start="$START" -a bootstrap="$BOOTSTRAP" \
  -a discovered_topic="$INPUT_TOPIC" -a frontier_topic="$OUTPUT_TOPIC" -a group="$GROUP_ID-scrapy" \
  -a idle_s="$IDLE_S" -a fetched="$OUT/fetched.jsonl" -s LOG_FILE="$LOGS/scrapy.log" -s CLOSESPIDER_TIMEOUT="$TIMEOUT") \
  || crawl_rc=$?
CRAWL_S=$(( $(date +%s) - c0 ))
[ "$crawl_rc" = 0 ] || { echo "crawler: error: scrapy exited $crawl_rc after ${CRAWL_S}s (log: $LOGS/scrapy.log)" >&2; tail -n 20 "$LOGS/scrapy.log" >&2; exit 1; }
grep -E "finish_reason|item_scraped|downloader/response_status_count|frontier/|crawl/" "$LOGS/scrapy.log" | sed 's/^/crawler: scrapy: /' >&2 || true
kill_started --wait "$SERVER_PID"; SERVER_PID=""

for t in "$DLQ_TOPIC:dlq" "$OUTPUT_TOPIC:frontier" "$INPUT_TOPIC:discovered"; do
  "$PY" "$SAMPLE/topicdump.py" --bootstrap "$BOOTSTRAP" --topic "${t%%:*}" --out "$OUT/${t##*:}.jsonl" >&2
done
jq -r .url "$OUT/fetched.jsonl" >"$OUT/fetched.txt"

check_rc=0
"$PY" "$SAMPLE/sitecheck.py" --site "$SITE" --start "$START" --fetched "$OUT/fetched.jsonl" --dlq "$OUT/dlq.jsonl" \
  --strip-params "$STRIP" --fpr "$FPR" --filter "$FILTER" --seconds "$CRAWL_S" | tee "$OUT/summary.txt" || check_rc=$?

if [ "$FILTER" = stable ]; then
  # The stream the job read, in order (partitions merged by record timestamp), canonicalized by the
  # job itself: the embedded mode with every record forced emits each valid record once, in order
  # at parallelism 1. FaultCheck replays it through ForgettingModel (what `plan` prints).
  step "stable: checking refetches against plan's model (ForgettingModel)"
  jq -r 'select(.value != null) | "\(.timestamp)\t\(.partition)\t\(.offset)\t\(.value)"' "$OUT/discovered.jsonl" \
    | sort -t$'\t' -k1,1n -k2,2n -k3,3n | cut -f4- | jq -cR 'fromjson? // empty | .force = true' >"$OUT/stream.jsonl"
  "$REPO/urldedup" run --input "$OUT/stream.jsonl" --format json --strip-params "$STRIP" --parallelism 1 \
    --filter scalable --fpr 1e-9 --output "$OUT/stream-canonical.jsonl" 2>"$LOGS/embedded.log" >/dev/null \
    || { tail -n 20 "$LOGS/embedded.log" >&2; echo "crawler: error: embedded canonicalization failed" >&2; exit 1; }
  jq -r .url "$OUT/stream-canonical.jsonl" | awk '{ print (seen[$0]++ ? "repeat" : "first") "\t" $0 }' >"$OUT/truth.tsv"
  jq -r '.value | fromjson | .url' "$OUT/frontier.jsonl" >"$OUT/emitted.txt"
  case "$MEMORY" in
    *[kK]) mem_bytes=$(( ${MEMORY%[kK]} * 1024 )) ;;
    *[mM]) mem_bytes=$(( ${MEMORY%[mM]} * 1048576 )) ;;
    *[gG]) mem_bytes=$(( ${MEMORY%[gG]} * 1073741824 )) ;;
    *) mem_bytes="$MEMORY" ;;
  esac
  java -cp "$REPO/state/target/classes" "$REPO/deploy/local/FaultCheck.java" --filter stable --fpr "$FPR" \
    --memory-bytes "$mem_bytes" --shards "$SHARDS" --cell-bits 2 --truth "$OUT/truth.tsv" --output "$OUT/emitted.txt" \
    | sed 's/^/crawler: stable model: /' | tee -a "$OUT/summary.txt" || check_rc=1
fi
step "fetched URLs in $OUT/fetched.txt; summary in $OUT/summary.txt"
exit "$check_rc"
