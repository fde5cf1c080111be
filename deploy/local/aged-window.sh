#!/usr/bin/env bash
# The aged filter's time window on the real local stack (issue 13): the job with
#   --filter aged --window 60s --rate 100 --time event
# reads records whose Kafka timestamps say when they were sent, so the outcome does not depend on
# the machine's speed (the whole input is produced and read in seconds of wall time):
#   - 20 target URLs at t, again at t + 30 s (inside the window: suppressed), again at t + 90 s
#     (beyond the window and its 10% slack: emitted again);
#   - one new filler URL every second of record time from t to t + 90 s (each emitted once).
# Verdict: PASS if the committed output holds every target exactly twice and every filler once
# (131 records), FAIL otherwise. Bounded: gives up after $AGED_DEADLINE seconds (default 240),
# always cleans up (trap). Its own stack (deploy/local/.work/aged-window, ports 31xxx).
#
# t is 10 minutes in the past: event time never runs ahead of the machine's clock (the operator
# clamps records that do). False positives: --fpr 1e-4 over 111 first occurrences: 0.011
# expected; the seed is fixed, so the outcome is deterministic there.
#
#   deploy/local/aged-window.sh          # prints the verdict and the time it took
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
export URLDEDUP_STACK_DIR="$HERE/.work/aged-window"
export KAFKA_PORT="${AGED_KAFKA_PORT:-31092}" CONTROLLER_PORT="${AGED_CONTROLLER_PORT:-31093}"
export FLINK_REST_PORT="${AGED_FLINK_REST_PORT:-31081}" FLINK_RPC_PORT="${AGED_FLINK_RPC_PORT:-31123}"
export PROM_JM_PORT="${AGED_PROM_JM_PORT:-31249}" PROM_TM_PORT="${AGED_PROM_TM_PORT:-31250}"
export INPUT_TOPIC=aged.in OUTPUT_TOPIC=aged.out DLQ_TOPIC=aged.dlq GROUP_ID=urldedup-aged
DEADLINE_SECS="${AGED_DEADLINE:-240}"
TARGETS=20
# shellcheck source=stack.sh
source "$HERE/stack.sh"

fetch
T0_WALL=$(date +%s)
DEADLINE=$(( T0_WALL + DEADLINE_SECS ))
OUT="$WORK/aged-data"
JOB_ID=""
UP_PID=""
FAILED=0

step_clock aged-window
check_deadline() {
  [ "$(date +%s)" -lt "$DEADLINE" ] || { echo "aged-window: FAIL: deadline of ${DEADLINE_SECS}s passed while $*" >&2; exit 1; }
}

# at exit (script-lib.sh's on_exit, last registered first): the logs on failure, cancel and down,
# the total
on_exit 'echo "aged-window: total $(( $(date +%s) - T0_WALL )) s" >&2'
on_exit 'stack_teardown aged-window'
on_exit 'if [ "$EXIT_RC" -ne 0 ] || [ "$FAILED" -ne 0 ]; then stack_failure_hint aged-window; fi'

if [ ! -f "$JOB_JAR" ] || [ ! -f "$REPO/samples/target/classes/io/urldedup/samples/FrontierConsumer.class" ]; then
  step "building job and samples (mvn package -DskipTests)"
  (cd "$REPO" && mvn -B -ntp -q package -DskipTests -pl job,samples -am) >&2
fi

cmd_down >/dev/null 2>&1 || true
rm -rf "$WORK/kafka-data" "$WORK/flink" "$OUT" "$LOGS"
mkdir -p "$OUT" "$LOGS"
step "starting the stack"
cmd_up >"$LOGS/up.log" 2>&1 &
UP_PID=$!
# let a half-started stack finish starting, so that down finds every pid file
on_exit 'if [ -n "$UP_PID" ]; then wait "$UP_PID" 2>/dev/null; fi'

# the input: <epoch ms><TAB><url>, in record-time order; the expected emissions per URL
T0=$(( ($(date +%s) - 600) * 1000 ))
: >"$OUT/input.tsv"
: >"$OUT/expected.txt"
for sec in $(seq 0 90); do
  ts=$(( T0 + sec * 1000 ))
  if [ "$sec" -eq 0 ] || [ "$sec" -eq 30 ] || [ "$sec" -eq 90 ]; then
    for i in $(seq 0 $(( TARGETS - 1 ))); do
      printf '%s\thttps://target.example/page/%s\n' "$ts" "$i" >>"$OUT/input.tsv"
    done
  fi
  printf '%s\thttps://filler.example/%s\n' "$ts" "$sec" >>"$OUT/input.tsv"
  echo "https://filler.example/$sec" >>"$OUT/expected.txt"
done
for i in $(seq 0 $(( TARGETS - 1 ))); do
  echo "https://target.example/page/$i" >>"$OUT/expected.txt"   # at t
  echo "https://target.example/page/$i" >>"$OUT/expected.txt"   # at t + 90 s (not at t + 30 s)
done
sort "$OUT/expected.txt" >"$OUT/expected.sorted"
EXPECTED=$(wc -l <"$OUT/expected.sorted")
TOTAL=$(wc -l <"$OUT/input.tsv")

if ! wait "$UP_PID"; then
  cat "$LOGS/up.log" >&2
  echo "aged-window: FAIL: the stack did not come up" >&2
  exit 1
fi
UP_PID=""
step "stack up; producing $TOTAL records with explicit timestamps to $INPUT_TOPIC partition 0"
"$JAVA" -Xmx128m -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" -cp "$(kafka_cp)" \
  "$HERE/TimestampedProducer.java" "$BOOTSTRAP" "$INPUT_TOPIC" 0 <"$OUT/input.tsv" >"$OUT/produced.txt" 2>"$LOGS/producer.log" \
  || { tail -n 5 "$LOGS/producer.log" >&2; echo "aged-window: FAIL: producing failed" >&2; exit 1; }
check_deadline "producing"

step "submitting the job"
JOB_ID="$(submit --filter aged --window 60s --rate 100 --time event --max-out-of-orderness 5s --fpr 0.0001 \
  --shards 8 --hash-seed 99 --format text --state-backend rocksdb --checkpoint-interval 1s \
  --starting-offsets earliest --parallelism 2)"
step "job $JOB_ID; waiting for $EXPECTED committed output records"
while :; do
  read_topic "$OUTPUT_TOPIC" | cut -f3 >"$OUT/actual.txt"
  n=$(wc -l <"$OUT/actual.txt")
  [ "$n" -ge "$EXPECTED" ] && break
  state="$(job_state "$JOB_ID" 2>/dev/null || echo '?')"
  case "$state" in FAILED|CANCELED|FINISHED) echo "aged-window: FAIL: job $JOB_ID is $state" >&2; exit 1 ;; esac
  check_deadline "waiting for the output ($n of $EXPECTED)"
  sleep 1
done
# two more checkpoints: an extra emission (a target at t + 30 s) would be committed by now
sleep 3
read_topic "$OUTPUT_TOPIC" | cut -f3 | sort >"$OUT/actual.sorted"

IN=$(metric recordsIn); EMITTED=$(metric emitted); DUPS=$(metric duplicates); CLAMPED=$(metric timestampsClamped)
step "prometheus: recordsIn=$IN emitted=$EMITTED duplicates=$DUPS timestampsClamped=$CLAMPED"
if cmp -s "$OUT/expected.sorted" "$OUT/actual.sorted"; then
  step "output: $(wc -l <"$OUT/actual.sorted") records: $TARGETS targets at t and t + 90 s, none at t + 30 s; 91 fillers once"
else
  FAILED=1
  echo "aged-window: output differs from the expectation (< expected, > actual):" >&2
  diff "$OUT/expected.sorted" "$OUT/actual.sorted" | head -n 20 >&2 || true
fi
[ "$IN" = "$TOTAL" ] || { FAILED=1; echo "aged-window: recordsIn $IN != $TOTAL" >&2; }

if [ "$FAILED" -ne 0 ]; then
  echo "aged-window: FAIL" >&2
  exit 1
fi
echo "aged-window: PASS in $(( $(date +%s) - T0_WALL )) s" >&2
