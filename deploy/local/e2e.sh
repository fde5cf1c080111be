#!/usr/bin/env bash
# End-to-end test on the real local stack (run by .ci/run). Bounded: gives up after $E2E_DEADLINE
# seconds (default 340), always cleans up (trap), exits non-zero on any mismatch.
#
#   1. a fresh stack of its own (deploy/local/.work/e2e, ports 29xxx: a developer's stack.sh stack on
#      the default ports is left alone)
#   2. submit the job: scalable filter at fpr 1e-6, RocksDB, checkpoints every 2 s
#   3. produce CrawlStreamGenerator --lines $E2E_LINES --truth, then samples/urls.txt (with malformed lines)
#   4. expected output = the embedded mode (./urldedup run --input F) on the same file and settings
#   5. assert: output topic (read_committed) == expected, exactly once each; the generated part of it
#      == the truth file's first occurrences; DLQ count and reasons == the embedded dead letters;
#      every host in one output partition (FrontierConsumer); Prometheus serves urldedup's
#      counters with the right values
#   6. cancel, down
#
# False positives: the scalable filter's compound rate is <= fpr for every query, so the expected
# number of first occurrences wrongly suppressed is <= distinct * fpr = 6,000 * 1e-6 = 0.006 for the
# default 20,000 lines; the truth comparison is exact and fails with probability < 1%. The Kafka run
# and the embedded run use the same seed, shards and sizing, so they agree bit for bit anyway.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
export URLDEDUP_STACK_DIR="$HERE/.work/e2e"
export KAFKA_PORT="${E2E_KAFKA_PORT:-29092}" CONTROLLER_PORT="${E2E_CONTROLLER_PORT:-29093}"
export FLINK_REST_PORT="${E2E_FLINK_REST_PORT:-28081}" FLINK_RPC_PORT="${E2E_FLINK_RPC_PORT:-26123}"
export PROM_JM_PORT="${E2E_PROM_JM_PORT:-29249}" PROM_TM_PORT="${E2E_PROM_TM_PORT:-29250}"
# E2E_PORT_BASE=B: every port at B+xx instead (faults-lib.sh's layout, TaskManager RPC and blob
# ranges included), for a run beside another e2e.sh
if [ -n "${E2E_PORT_BASE:-}" ]; then
  export KAFKA_PORT=$(( E2E_PORT_BASE + 92 )) CONTROLLER_PORT=$(( E2E_PORT_BASE + 93 ))
  export FLINK_REST_PORT=$(( E2E_PORT_BASE + 81 )) FLINK_RPC_PORT=$(( E2E_PORT_BASE + 23 ))
  export PROM_JM_PORT=$(( E2E_PORT_BASE + 49 )) PROM_TM_PORT=$(( E2E_PORT_BASE + 50 ))
  export TM_RPC_PORT=$(( E2E_PORT_BASE + 200 )) BLOB_PORT=$(( E2E_PORT_BASE + 130 ))
fi
export INPUT_TOPIC=e2e.in OUTPUT_TOPIC=e2e.out DLQ_TOPIC=e2e.dlq GROUP_ID=urldedup-e2e
LINES="${E2E_LINES:-20000}"
DEADLINE_SECS="${E2E_DEADLINE:-340}"
# shellcheck source=stack.sh
source "$HERE/stack.sh"

# the one-time jar fetch (Maven) is not part of the timed run
fetch
T0=$(date +%s)
DEADLINE=$(( T0 + DEADLINE_SECS ))
OUT="$WORK/e2e-data"
JOB_ID=""
UP_PID=""
PRODUCER_PID=""
FAILED=0

fail() { echo "e2e: FAIL: $*" >&2; FAILED=1; }
step_clock e2e
left() { echo $(( DEADLINE - $(date +%s) )); }
check_deadline() { [ "$(left)" -gt 0 ] || { echo "e2e: FAIL: deadline of ${DEADLINE_SECS}s passed while $*" >&2; exit 1; }; }

# at exit (script-lib.sh's on_exit, last registered first): the logs on failure, cancel and down,
# the total; the background PIDs are registered where they start
on_exit 'echo "e2e: total $(( $(date +%s) - T0 )) s" >&2'
on_exit 'stack_teardown e2e'
on_exit 'if [ "$EXIT_RC" -ne 0 ] || [ "$FAILED" -ne 0 ]; then stack_failure_hint e2e; fi'

# ---------------------------------------------------------------- build what is missing
if [ ! -f "$JOB_JAR" ] || [ ! -f "$REPO/job/target/classpath.txt" ] || [ ! -f "$REPO/samples/target/classes/io/urldedup/samples/FrontierConsumer.class" ]; then
  step "building job and samples (mvn package -DskipTests)"
  (cd "$REPO" && mvn -B -ntp -q package -DskipTests -pl job,samples -am) >&2
fi

# ---------------------------------------------------------------- fresh stack, expectation
cmd_down >/dev/null 2>&1 || true
rm -rf "$WORK/kafka-data" "$WORK/flink" "$OUT" "$LOGS"
mkdir -p "$OUT" "$LOGS"
step "starting the stack (and meanwhile the embedded mode)"
t_up=$(date +%s)
cmd_up >"$LOGS/up.log" 2>&1 &
UP_PID=$!
# let a half-started stack finish starting, so that down finds every pid file
on_exit 'if [ -n "$UP_PID" ]; then wait "$UP_PID" 2>/dev/null; fi'

FILTER_ARGS=(--filter scalable --fpr 0.000001 --capacity 100000 --shards 128 --format text --key host)
java -Xmx64m -cp "$REPO/samples/target/classes:$REPO/state/target/classes" io.urldedup.samples.CrawlStreamGenerator \
  --lines "$LINES" --seed 4242 --output "$OUT/generated.txt" --truth "$OUT/truth.txt" 2>&1 | sed 's/^/e2e: /' >&2
cat "$OUT/generated.txt" "$REPO/samples/urls.txt" >"$OUT/input.txt"
TOTAL=$(wc -l <"$OUT/input.txt")
"$REPO/urldedup" run --input "$OUT/input.txt" --output "$OUT/expected.txt" --dlq "$OUT/expected-dlq.txt" \
  "${FILTER_ARGS[@]}" >"$OUT/embedded.log" 2>&1 || { cat "$OUT/embedded.log" >&2; fail "embedded run failed"; exit 1; }
EXPECTED=$(wc -l <"$OUT/expected.txt")
EXPECTED_DLQ=$(wc -l <"$OUT/expected-dlq.txt")
cut -f1 "$OUT/expected-dlq.txt" | sort | uniq -c | sort -k2 >"$OUT/expected-reasons.txt"
step "embedded mode: $(grep -o 'in=.*' "$OUT/embedded.log" | head -n1)"

if ! wait "$UP_PID"; then
  cat "$LOGS/up.log" >&2
  fail "the stack did not come up"
  exit 1
fi
STACK_SECS=$(( $(date +%s) - t_up ))
sed 's/^/e2e: /' "$LOGS/up.log" >&2
check_deadline "starting the stack"

# ---------------------------------------------------------------- job
# --starting-offsets earliest: the input can go in while the job is being deployed
step "producing $TOTAL records, submitting the job"
produce "$INPUT_TOPIC" <"$OUT/input.txt" 2>"$LOGS/producer.log" &
PRODUCER_PID=$!
on_exit 'kill_started "$PRODUCER_PID"'
t_submit=$(date +%s%3N)
JOB_ID="$(submit "${FILTER_ARGS[@]}" --state-backend rocksdb --checkpoint-interval 2s \
  --starting-offsets earliest --parallelism 2)"
until [ "$(curl -fsS --max-time 3 "http://127.0.0.1:$FLINK_REST_PORT/jobs/$JOB_ID" 2>/dev/null \
    | jq -r '[.state] + [.vertices[].status] | unique | join(",")')" = "RUNNING" ]; do
  state="$(job_state "$JOB_ID" 2>/dev/null || echo '?')"
  case "$state" in FAILED|CANCELED|FINISHED) fail "job $JOB_ID is $state"; exit 1 ;; esac
  check_deadline "waiting for the job to run"
  sleep 0.2
done
RUNNING_SECS=$(awk -v a="$t_submit" -v b="$(date +%s%3N)" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
step "job $JOB_ID RUNNING ${RUNNING_SECS}s after submission"
wait "$PRODUCER_PID" || { fail "the console producer failed: $(tail -n 3 "$LOGS/producer.log")"; exit 1; }
step "produced $TOTAL records"

# ---------------------------------------------------------------- wait
step "waiting for recordsIn = $TOTAL (Prometheus)"
until [ "$(metric recordsIn)" = "$TOTAL" ]; do
  check_deadline "waiting for recordsIn ($(metric recordsIn) of $TOTAL)"
  sleep 1
done
step "waiting for $EXPECTED committed output records"
while :; do
  read_topic "$OUTPUT_TOPIC" | cut -f3 >"$OUT/actual.txt"
  n=$(wc -l <"$OUT/actual.txt")
  [ "$n" -ge "$EXPECTED" ] && break
  check_deadline "waiting for the output ($n of $EXPECTED)"
  sleep 1
done
# one more checkpoint interval: nothing beyond the expected may arrive
sleep 3
# the frontier's view too (one JVM): --key host puts every host in exactly one partition, else exit 1
AFFINITY=0
java -Xmx256m -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" \
  -cp "$REPO/samples/target/classes:$REPO/state/target/classes:$(kafka_cp)" io.urldedup.samples.FrontierConsumer \
  --bootstrap-servers "$BOOTSTRAP" --topic "$OUTPUT_TOPIC" --print >"$OUT/actual.tsv" 2>"$OUT/frontier.txt" \
  || AFFINITY=$?
cut -f3 "$OUT/actual.tsv" >"$OUT/actual.txt"
read_topic "$DLQ_TOPIC" --print-headers | awk -F'\t' '{ print $NF }' >"$OUT/actual-dlq.txt"

# ---------------------------------------------------------------- assertions
sort "$OUT/expected.txt" >"$OUT/expected.sorted"
sort "$OUT/actual.txt" >"$OUT/actual.sorted"
ACTUAL=$(wc -l <"$OUT/actual.txt")
if cmp -s "$OUT/expected.sorted" "$OUT/actual.sorted"; then
  step "output: $ACTUAL records == embedded mode's $EXPECTED (exactly once each)"
else
  fail "output differs from the embedded mode: $ACTUAL vs $EXPECTED records (dups: $(uniq -d "$OUT/actual.sorted" | wc -l))"
  diff "$OUT/expected.sorted" "$OUT/actual.sorted" | head -n 10 >&2 || true
fi

grep '^first' "$OUT/truth.txt" | cut -f2 | sort >"$OUT/truth-first.sorted"
# the generator's hosts all carry a '-' before the TLD label and never an 'example' label
grep -v 'example' "$OUT/actual.sorted" >"$OUT/actual-generated.sorted" || true
if cmp -s "$OUT/truth-first.sorted" "$OUT/actual-generated.sorted"; then
  step "truth: $(wc -l <"$OUT/truth-first.sorted") first occurrences of $LINES generated lines, all emitted, no repeat"
else
  fail "generated part differs from the truth file: $(wc -l <"$OUT/actual-generated.sorted") vs $(wc -l <"$OUT/truth-first.sorted")"
  diff "$OUT/truth-first.sorted" "$OUT/actual-generated.sorted" | head -n 10 >&2 || true
fi

ACTUAL_DLQ=$(wc -l <"$OUT/actual-dlq.txt")
grep -o 'urldedup\.reason:[a-z_0-9]*' "$OUT/actual-dlq.txt" | sed 's/^urldedup\.reason://' | sort | uniq -c | sort -k2 \
  >"$OUT/actual-reasons.txt" || true
if [ "$ACTUAL_DLQ" -eq "$EXPECTED_DLQ" ] && cmp -s "$OUT/expected-reasons.txt" "$OUT/actual-reasons.txt" \
    && [ "$(grep -c 'urldedup.origin:' "$OUT/actual-dlq.txt" || true)" -eq "$ACTUAL_DLQ" ]; then
  step "dlq: $ACTUAL_DLQ dead letters, reasons $(awk '{printf "%s=%s ", $2, $1}' "$OUT/actual-reasons.txt")"
else
  fail "dlq: $ACTUAL_DLQ records vs $EXPECTED_DLQ expected"
  diff "$OUT/expected-reasons.txt" "$OUT/actual-reasons.txt" >&2 || true
fi
[ "$EXPECTED_DLQ" -gt 0 ] || fail "no dead letters expected: samples/urls.txt lost its malformed lines?"

if [ "$AFFINITY" -eq 0 ] && grep -q 'every host is in exactly one partition' "$OUT/frontier.txt"; then
  step "frontier: $(head -n1 "$OUT/frontier.txt"); $(tail -n1 "$OUT/frontier.txt")"
else
  fail "frontier consumer (exit $AFFINITY): $(tail -n 3 "$OUT/frontier.txt")"
fi

IN=$(metric recordsIn); EMITTED=$(metric emitted); DUPS=$(metric duplicates); INVALID=$(metric invalid)
step "prometheus: recordsIn=$IN emitted=$EMITTED duplicates=$DUPS invalid=$INVALID"
[ "$IN" = "$TOTAL" ] || fail "recordsIn $IN != $TOTAL"
[ "$EMITTED" = "$EXPECTED" ] || fail "emitted $EMITTED != $EXPECTED"
[ "$INVALID" = "$EXPECTED_DLQ" ] || fail "invalid $INVALID != $EXPECTED_DLQ"
[ "$DUPS" = "$(( TOTAL - EXPECTED - EXPECTED_DLQ ))" ] || fail "duplicates $DUPS != $(( TOTAL - EXPECTED - EXPECTED_DLQ ))"
for g in fillRatio estimatedFpr stateBytes slices; do
  [ "$(metric "$g")" != "-" ] || fail "gauge urldedup_$g missing on the Prometheus endpoint"
done

echo "e2e: timings: stack start ${STACK_SECS}s, submission to RUNNING ${RUNNING_SECS}s, total $(( $(date +%s) - T0 ))s" >&2
if [ "$FAILED" -ne 0 ]; then
  echo "e2e: 0 passed, 1 failed" >&2
  exit 1
fi
echo "e2e: 1 passed, 0 failed"
