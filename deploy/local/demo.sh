#!/usr/bin/env bash
# Demo on the local stack: up, submit the job (once), produce samples/urls.txt, read what comes out.
# The stack stays up afterwards (Web UI, Prometheus); `deploy/local/stack.sh down` stops it.
#
#   deploy/local/demo.sh [INPUT_FILE]      default samples/urls.txt
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
# shellcheck source=stack.sh
source "$HERE/stack.sh"
INPUT="${1:-$REPO/samples/urls.txt}"
[ -f "$INPUT" ] || die "no such input file: $INPUT"

cmd_up

# one urldedup job per stack: reuse a running one (its filter already holds earlier demo runs).
# A new job starts at the group's committed offsets (a fresh stack: the beginning), so input
# produced below is read even if the source is still being assigned its partitions.
JOB_ID="$(curl -fsS --max-time 3 "http://127.0.0.1:$FLINK_REST_PORT/jobs/overview" \
  | jq -r '[.jobs[] | select(.state == "RUNNING" and .name == "urldedup")][0].jid // empty')"
if [ -z "$JOB_ID" ]; then
  log "submitting $JOB_JAR"
  JOB_ID="$(submit --filter scalable --fpr 0.0001 --capacity 100000 --state-backend rocksdb \
    --checkpoint-interval 2s --starting-offsets committed)"
  deadline=$(( $(date +%s) + 60 ))
  until [ "$(curl -fsS --max-time 3 "http://127.0.0.1:$FLINK_REST_PORT/jobs/$JOB_ID" \
      | jq -r '[.state] + [.vertices[].status] | unique | join(",")')" = "RUNNING" ]; do
    [ "$(date +%s)" -lt "$deadline" ] || die "job $JOB_ID not RUNNING after 60 s (stack.sh logs taskmanager)"
    sleep 0.5
  done
else
  log "job $JOB_ID is already running"
fi

before_out=$(read_topic "$OUTPUT_TOPIC" | wc -l)
before_dlq=$(read_topic "$DLQ_TOPIC" | wc -l)
before_in=$(metric recordsIn); [ "$before_in" = "-" ] && before_in=0
IN=$(wc -l <"$INPUT")
log "producing $IN lines of $INPUT to $INPUT_TOPIC"
produce "$INPUT_TOPIC" <"$INPUT"

# the job has read everything when recordsIn has grown by IN; the output becomes visible at the
# next checkpoint (every 2 s)
deadline=$(( $(date +%s) + 120 ))
while n=$(metric recordsIn); [ "$n" = "-" ] || [ "$n" -lt $(( before_in + IN )) ]; do
  [ "$(date +%s)" -lt "$deadline" ] || die "the job read $n of $(( before_in + IN )) records in 120 s"
  sleep 1
done
sleep 4
read_topic "$OUTPUT_TOPIC" >"$WORK/demo-out.txt"
read_topic "$DLQ_TOPIC" --print-headers >"$WORK/demo-dlq.txt"
OUT=$(( $(wc -l <"$WORK/demo-out.txt") - before_out ))
DLQ=$(( $(wc -l <"$WORK/demo-dlq.txt") - before_dlq ))

echo
echo "some unseen URLs (partition, key = host, URL):"
tail -n "$OUT" "$WORK/demo-out.txt" | head -n 8 | sed 's/^/  /'
echo "dead-letter reasons:"
tail -n "$DLQ" "$WORK/demo-dlq.txt" | grep -o 'urldedup\.reason:[a-z_0-9]*' | sed 's/^urldedup\.reason://' \
  | sort | uniq -c | sed 's/^/  /'
echo
echo "in:  $IN lines"
echo "out: $OUT unseen URLs ($OUTPUT_TOPIC, read_committed)"
echo "dlq: $DLQ dead letters ($DLQ_TOPIC)"
echo "duplicates dropped: $(( IN - OUT - DLQ ))"
echo
echo "Web UI:     http://127.0.0.1:$FLINK_REST_PORT/#/job/running/$JOB_ID"
echo "Prometheus: http://127.0.0.1:$PROM_TM_PORT/metrics (grep urldedup)"
echo "Stop:       deploy/local/stack.sh down"
