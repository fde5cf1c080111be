#!/usr/bin/env bash
# Fault injection on the real local stack (Kafka broker JVM, Flink JobManager and TaskManager
# JVMs): the job processes a generated crawl stream while its TaskManager is killed with SIGKILL
# and restarted, and the broker is restarted; the job recovers by itself from its checkpoints
# (exponential-delay restart strategy, set at submission). Then the committed output
# (read_committed) is checked against the generator's truth file and the embedded run
# (FaultCheck.java): zero duplicates from replay, every unique URL present except false positives
# within the configured rate (scalable), re-emissions within what `urldedup plan` predicts (stable).
#
#   faults.sh [--quick] [--filter scalable|stable] [--records N]
#
#   --quick     2x10^5 records, one TaskManager kill, no embedded reference run, deadline 300 s
#               (CI: .ci/run; FAULTS_EMBEDDED=1 adds the embedded run)
#   default     10^6 records, TaskManager killed twice, broker restarted once, deadline 2400 s
#
#   faults.sh --scenario NAME [--quick] [--filter scalable|stable] [--records N]
#
#   On the production shape: stack.sh up --ha --taskmanagers 2 --brokers 3 (ZooKeeper, leader +
#   standby JobManager, two one-slot TaskManagers so keyBy crosses processes, three brokers with
#   topics at replication 3 / min.insync.replicas 2), parallelism 2. Each fault is a kill -9
#   while a chunk of input is being produced; a supervisor's restart of the killed process follows
#   at once (the broker: after the recovery, so it is measured on two brokers).
#   jobmanager-kill    the leading JobManager: the standby takes over and restores the job from the
#                      HA store (2x10^5 records, fault after chunk 2 of 4)
#   taskmanager-kill   one of the two TaskManagers (2x10^5 records)
#   broker-kill        the broker leading partition 0 of the output topic (2x10^5 records)
#   everything         the three in one 10^6-record run, spaced out (after chunks 2, 5, 8 of 10)
#   --quick            (jobmanager-kill only) 10^5 records on one broker: CI
#   Recovery times from the kill: all tasks running again (deployed after the kill), the next
#   checkpoint triggered after that completed, committed output visible after it (OutputWatch).
#
# Own stack dir (deploy/local/.work/faults[-SCENARIO][-quick]-FILTER) and ports (3x0xx; scenarios
# 38xxx, with stable 39xxx), so it never collides with stack.sh's default stack, demo.sh or e2e.sh.
# Exits non-zero on any failed check; the numbers are in .work/<name>/result.txt.
# Env: FAULTS_DEADLINE (s), REL_KEEP=1 leaves the stack and the job running.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=faults-lib.sh
source "$HERE/faults-lib.sh"

QUICK=0; FILTER=scalable; RECORDS=""; SCENARIO=""
while [ $# -gt 0 ]; do
  case "$1" in
    --scenario) SCENARIO="${2:-}"; shift ;;
    --quick) QUICK=1 ;;
    --filter) FILTER="$2"; shift ;;
    --records) RECORDS="$2"; shift ;;
    -h|--help) header_usage "$0"; exit 0 ;;
    *) echo "faults.sh: unknown argument '$1' (accepted: --scenario NAME, --quick, --filter scalable|stable, --records N)" >&2; exit 2 ;;
  esac
  shift
done
case "$FILTER" in scalable|stable) ;; *) echo "faults.sh: --filter: accepted scalable or stable, got '$FILTER'" >&2; exit 2 ;; esac

case "$SCENARIO" in
  ""|jobmanager-kill|taskmanager-kill|broker-kill|everything) ;;
  *) echo "faults.sh: --scenario: accepted jobmanager-kill, taskmanager-kill, broker-kill, everything; got '$SCENARIO'" >&2; exit 2 ;;
esac
if [ "$QUICK" = 1 ] && [ -n "$SCENARIO" ] && [ "$SCENARIO" != jobmanager-kill ]; then
  echo "faults.sh: --quick: accepted alone or with --scenario jobmanager-kill, got --scenario $SCENARIO" >&2; exit 2
fi

EMBEDDED_DEFAULT=$(( 1 - QUICK ))
if [ -n "$SCENARIO" ]; then
  # the production shape (stack.sh reads it from the environment)
  export STACK_HA=1 STACK_TASKMANAGERS=2 STACK_BROKERS=3
  EMBEDDED_DEFAULT=0
  case "$SCENARIO" in
    jobmanager-kill) BASE=38000; SCHEDULE="2:jobmanager-kill" ;;
    taskmanager-kill) BASE=38200; SCHEDULE="2:taskmanager-kill" ;;
    broker-kill) BASE=38400; SCHEDULE="2:broker-kill" ;;
    everything) BASE=38600; SCHEDULE="2:taskmanager-kill 5:broker-kill 8:jobmanager-kill" ;;
  esac
  if [ "$SCENARIO" = everything ]; then
    RECORDS="${RECORDS:-1000000}"; CHUNKS=10; REL_DEADLINE="${FAULTS_DEADLINE:-3000}"
  elif [ "$QUICK" = 1 ]; then
    # CI: one broker (the JobManager failover is what is tested), a small input
    export STACK_BROKERS=1
    RECORDS="${RECORDS:-100000}"; CHUNKS=4; BASE=38800
    REL_DEADLINE="${FAULTS_DEADLINE:-900}"
  else
    RECORDS="${RECORDS:-200000}"; CHUNKS=4; REL_DEADLINE="${FAULTS_DEADLINE:-1500}"
  fi
  NAME="faults-$SCENARIO-$FILTER"
  [ "$QUICK" = 1 ] && NAME="faults-$SCENARIO-quick-$FILTER"
elif [ "$QUICK" = 1 ]; then
  RECORDS="${RECORDS:-200000}"; CHUNKS=4; SCHEDULE="2:tm"; NAME="faults-quick-$FILTER"
  REL_DEADLINE="${FAULTS_DEADLINE:-300}"; BASE=33000
else
  RECORDS="${RECORDS:-1000000}"; CHUNKS=10; SCHEDULE="3:tm 5:broker 7:tm"; NAME="faults-$FILTER"
  REL_DEADLINE="${FAULTS_DEADLINE:-2400}"; BASE=31000
fi
[ "$FILTER" = stable ] && BASE=$(( BASE + 1000 ))
# FAULTS_PORT_BASE=B: this run's ports at B+xx (TaskManager RPC and blob ranges too), beside others
if [ -n "${FAULTS_PORT_BASE:-}" ]; then
  BASE="$FAULTS_PORT_BASE"
  export TM_RPC_PORT=$(( BASE + 200 )) BLOB_PORT=$(( BASE + 130 ))
fi
export REL_DEADLINE
rel_init "$NAME" "$BASE"

# A secret seed through the environment: a --hash-seed flag would be printed by Flink's CLI in
# its "Program Arguments" log line (see docs/security.md).
export URLDEDUP_HASH_SEED="${URLDEDUP_HASH_SEED:-0x243f6a8885a308d3}"
SHARDS=128
if [ "$FILTER" = scalable ]; then
  FPR=0.001
  # sized for the distinct URLs (about 30% of the lines), so the first slices fill and false
  # positives are measurable
  FILTER_ARGS=(--filter scalable --fpr "$FPR" --capacity $(( RECORDS * 3 / 10 )) --shards "$SHARDS")
  CHECK_ARGS=(--filter scalable --fpr "$FPR")
else
  # small enough that the filter forgets hundreds of URLs within the run (300,000 lines: about
  # 750 re-emissions predicted), so the check has something to measure
  FPR=0.01; MEMORY=512k; MEMORY_BYTES=$(( 512 * 1024 ))
  FILTER_ARGS=(--filter stable --fpr "$FPR" --memory "$MEMORY" --cell-bits 2 --shards "$SHARDS")
  CHECK_ARGS=(--filter stable --fpr "$FPR" --memory-bytes "$MEMORY_BYTES" --cell-bits 2 --shards "$SHARDS")
fi
FILTER_ARGS+=(--format text --key host)
DATA="$WORK/data"
RESULT="$WORK/result.txt"
LOAD_START="$(load_now)"

step "build and start a fresh stack"
rel_build
say "fresh stack ($WORK, Kafka $KAFKA_PORT, Flink REST $FLINK_REST_PORT); load $LOAD_START"
rel_fresh_up

step "generate $RECORDS lines with the truth file"
java -Xmx256m -cp "$REL_REPO/samples/target/classes:$REL_REPO/state/target/classes" io.urldedup.samples.CrawlStreamGenerator \
  --lines "$RECORDS" --seed 4242 --output "$DATA/input.txt" --truth "$DATA/truth.txt" 2>&1 | sed "s/^/$NAME: /" >&2
(cd "$DATA" && split -n "l/$CHUNKS" -d -a 2 input.txt chunk.)

# The embedded run of the same input is the reference the numbers are compared with (its own
# false positives); the verdict needs only the truth file, so --quick skips it for CI's time.
EMBEDDED_ARGS=()
EMBEDDED_SECS=skipped
if [ "${FAULTS_EMBEDDED:-$EMBEDDED_DEFAULT}" = 1 ]; then
  step "embedded run of the same input (the reference)"
  t=$(now_ms)
  "$REL_REPO/urldedup" run --input "$DATA/input.txt" --output "$DATA/embedded.txt" --dlq none "${FILTER_ARGS[@]}" \
    >"$DATA/embedded.log" 2>&1 || { cat "$DATA/embedded.log" >&2; fail "embedded run failed"; exit 1; }
  EMBEDDED_SECS=$(secs_since "$t")
  EMBEDDED_ARGS=(--embedded "$DATA/embedded.txt")
  say "embedded: $(wc -l <"$DATA/embedded.txt") URLs in ${EMBEDDED_SECS}s"
fi

"$REL_REPO/urldedup" plan "${FILTER_ARGS[@]}" >"$DATA/plan.txt" 2>&1 || true

step "submit the job"
say "submitting: ${FILTER_ARGS[*]} --state-backend rocksdb --checkpoint-interval 2s --parallelism 2 (shape: brokers $STACK_BROKERS, taskmanagers ${STACK_TASKMANAGERS:-1}, ha $STACK_HA)"
JOB_ID="$(rel_submit "${FILTER_ARGS[@]}" --state-backend rocksdb --checkpoint-interval 2s \
  --transaction-timeout 5min --starting-offsets earliest --parallelism 2)" || { fail "submission failed"; exit 1; }
wait_job_running "$JOB_ID" 120 || exit 1
say "job $JOB_ID running"

num_restarts() { rest_get "/jobs/$JOB_ID/metrics?get=numRestarts" 2>/dev/null | jq -r '.[0].value // 0' 2>/dev/null || echo 0; }
# When the job last entered RESTARTING (epoch ms, 0 if never), from the job's status history: the
# REST metric store can lag behind a TaskManager loss (in one CI run numRestarts still read 0 180 s
# after the job had restarted and recovered), so numRestarts is only reported, never waited on.
last_restart_ms() { rest_get "/jobs/$JOB_ID" 2>/dev/null | jq -r '.timestamps.RESTARTING // 0' 2>/dev/null || echo 0; }

RECOVERIES=()
# kill -9 the TaskManager, start a new one at once (as a supervisor would), measure:
# detect = until the job restarts (enters RESTARTING), running = until all tasks run again,
# checkpoint = until the first checkpoint after that completed (output flows again).
fault_tm() {
  local t0 pid c
  pid="$(pid_of taskmanager)"
  t0=$(now_ms)
  kill -9 "$pid"
  say "fault: kill -9 TaskManager (pid $pid); starting a new one"
  flink_up >/dev/null 2>&1
  local tm_up; tm_up=$(secs_since "$t0")
  local deadline=$(( $(date +%s) + 180 ))
  until [ "$(last_restart_ms)" -gt "$t0" ] 2>/dev/null; do
    [ "$(date +%s)" -lt "$deadline" ] || { fail "the job did not notice the lost TaskManager in 180 s"; return 1; }
    sleep 0.3
  done
  local detect; detect=$(secs_since "$t0")
  wait_job_running "$JOB_ID" 300 || return 1
  local running; running=$(secs_since "$t0")
  c="$(last_ckpt "$JOB_ID")"
  wait_ckpt_after "$JOB_ID" "$c" 180 || return 1
  local ckpt; ckpt=$(secs_since "$t0")
  RECOVERIES+=("tm_kill: new TM registered ${tm_up}s, restart ${detect}s, all tasks running ${running}s, first checkpoint ${ckpt}s (restored checkpoint $(restored_ckpt "$JOB_ID"), restarts $(num_restarts))")
  say "recovered: ${RECOVERIES[-1]}"
}

# stop the broker (SIGTERM, as stack.sh stops it), start it again on the same data
fault_broker() {
  local r0 t0 c
  r0="$(num_restarts)"
  t0=$(now_ms)
  say "fault: restarting the Kafka broker"
  stop kafka
  local down; down=$(secs_since "$t0")
  kafka_up
  local up; up=$(secs_since "$t0")
  wait_job_running "$JOB_ID" 300 || return 1
  c="$(last_ckpt "$JOB_ID")"
  wait_ckpt_after "$JOB_ID" "$c" 300 || return 1
  local ckpt; ckpt=$(secs_since "$t0")
  RECOVERIES+=("broker_restart: stopped ${down}s, serving again ${up}s, first checkpoint after it ${ckpt}s (job restarts during it: $(( $(num_restarts) - r0 )))")
  say "recovered: ${RECOVERIES[-1]}"
}

# ---------------------------------------------------------------- scenario faults (--scenario)
WATCH="$DATA/watch.txt"
# committed output as it becomes visible, for "output flowing again" (OutputWatch.java)
start_watch() {
  : >"$WATCH"
  java -Xmx192m -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" -cp "$(kafka_cp)" \
    "$REL_HERE/OutputWatch.java" "$BOOTSTRAP" "$OUTPUT_TOPIC" "$WATCH" "$REL_DEADLINE" >"$LOGS/watch.out" 2>&1 &
  REL_BG_PIDS+=($!)
}

# restart_bg NAME: start what is down again, in the background (as a supervisor would), so the
# recovery is measured meanwhile; RESTART_PID is waited for by the fault.
restart_bg() {
  ( if [[ "$1" == kafka* ]]; then kafka_up; else flink_up; fi ) >>"$LOGS/restart-$1.out" 2>&1 &
  RESTART_PID=$!
  REL_BG_PIDS+=("$RESTART_PID")
}

secs_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# all_running_ms: when the last subtask of the job switched to RUNNING, from Flink's own state
# timestamps (REST subtasktimes), not from when a poll noticed: a poll during a failover waits
# for a JobManager that is still coming up, and the first checkpoint after the restore (the one
# that commits the replayed output) is then missed.
all_running_ms() {
  local v t m=0
  for v in $(rest_get "/jobs/$JOB_ID" | jq -r '.vertices[].id'); do
    t="$(rest_get "/jobs/$JOB_ID/vertices/$v/subtasktimes" | jq -r '[.subtasks[].timestamps.RUNNING // 0] | max')"
    [ "${t:-0}" -gt "$m" ] && m="$t"
  done
  echo "$m"
}

# thread_dumps: jstack of every TaskManager into the logs, for a recovery that did not come
thread_dumps() {
  local name pid
  for name in "${TASKMANAGERS[@]}"; do
    pid="$(pid_of "$name" 2>/dev/null || true)"
    [ -n "$pid" ] && jstack "$pid" >"$LOGS/$name.jstack" 2>&1 && say "thread dump: $LOGS/$name.jstack"
  done
  return 0
}

# measure KIND T0_MS: until all tasks run again (deployed after T0; not required for a broker
# kill, which need not restart the job), the next checkpoint triggered after that completed,
# and committed output appeared after it. Appends the line to RECOVERIES.
measure() {
  local kind="$1" t0="$2" deadline=$(( $(date +%s) + 420 )) j c run_ms="" ck_ms="" ck_id="" out_ms="" base
  while :; do
    if [ -z "$run_ms" ]; then
      j="$(rest_get "/jobs/$JOB_ID" 2>/dev/null || true)"
      if [ -n "$j" ] && echo "$j" | jq -e --argjson t0 "$t0" '.state == "RUNNING"
          and ([.vertices[].status] | all(. == "RUNNING")) and ([.vertices[]."start-time"] | min) > $t0' >/dev/null 2>&1; then
        run_ms="$(all_running_ms 2>/dev/null || true)"
        [ "${run_ms:-0}" -gt "$t0" ] 2>/dev/null || run_ms=$(now_ms)
      fi
    fi
    if [ -n "$run_ms" ] || [ "$kind" = broker-kill ]; then
      base="${run_ms:-$t0}"
      c="$(rest_get "/jobs/$JOB_ID/checkpoints" 2>/dev/null \
        | jq -r --argjson b "$base" '[.history[] | select(.status == "COMPLETED" and .trigger_timestamp > $b)]
            | min_by(.id) | select(. != null) | "\(.id) \(.latest_ack_timestamp)"' 2>/dev/null || true)"
      [ -n "$c" ] && { ck_id="${c% *}"; ck_ms="${c#* }"; break; }
    fi
    [ "$(date +%s)" -lt "$deadline" ] || { fail "$kind: not recovered within 420 s (tasks running: ${run_ms:-no}, checkpoint: none)"; return 1; }
    sleep 0.5
  done
  # committed output after that checkpoint (the watcher polls every 200 ms)
  local wd=$(( $(date +%s) + 120 ))
  until out_ms="$(awk -v t="$ck_ms" '$1 >= t { print $1; exit }' "$WATCH")" && [ -n "$out_ms" ]; do
    [ "$(date +%s)" -lt "$wd" ] || { fail "$kind: no committed output within 120 s after checkpoint $ck_id"; thread_dumps; return 1; }
    sleep 0.5
  done
  local restarted=no
  [ -n "$run_ms" ] && restarted=yes
  # a broker kill that restarted the job after that checkpoint still counts
  if [ "$restarted" = no ] && [ "$(rest_get "/jobs/$JOB_ID" 2>/dev/null | jq -r '.timestamps.RESTARTING // 0')" -gt "$t0" ] 2>/dev/null; then
    restarted="yes (after the first checkpoint)"
  fi
  RECOVERIES+=("$kind: job restarted $restarted; all tasks running $( [ -n "$run_ms" ] && echo "$(secs_between "$t0" "$run_ms") s" || echo "(not restarted)"); next checkpoint $ck_id completed $(secs_between "$t0" "$ck_ms") s; output flowing $(secs_between "$t0" "$out_ms") s; restored checkpoint $(restored_ckpt "$JOB_ID")")
  say "recovered: ${RECOVERIES[-1]}"
}

sc_fault() {
  local kind="$1" victim pid t0 leader_id
  FAULT_NOTE=""
  case "$kind" in
    jobmanager-kill)
      victim="$(jm_leader)"
      [ -n "$victim" ] || { fail "jobmanager-kill: no leading JobManager found"; return 1; } ;;
    taskmanager-kill) victim=taskmanager2 ;;
    broker-kill)
      leader_id="$(kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --describe \
        --topic "$OUTPUT_TOPIC" | awk '$3 == "Partition:" && $4 == "0" { for (i = 1; i < NF; i++) if ($i == "Leader:") print $(i + 1) }')"
      [[ "$leader_id" =~ ^[0-9]+$ ]] || { fail "broker-kill: no leader for $OUTPUT_TOPIC partition 0 ('$leader_id')"; return 1; }
      victim=kafka; [ "$leader_id" = 1 ] || victim="kafka$leader_id"
      # FAULTS_BROKER_VICTIM=kafka3: that broker instead, to reproduce a run; =group-coordinator:
      # the broker coordinating the job's consumer group (its source commits offsets there)
      if [ "${FAULTS_BROKER_VICTIM:-}" = group-coordinator ]; then
        leader_id="$(kafka_tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" \
          --describe --group "$GROUP_ID" --state 2>/dev/null | sed -n 's/.*(\([0-9][0-9]*\)).*/\1/p')"
        leader_id="${leader_id%%$'\n'*}"
        [[ "$leader_id" =~ ^[0-9]+$ ]] || { fail "broker-kill: no coordinator for group $GROUP_ID"; return 1; }
        victim=kafka; [ "$leader_id" = 1 ] || victim="kafka$leader_id"
      elif [ -n "${FAULTS_BROKER_VICTIM:-}" ]; then
        victim="$FAULTS_BROKER_VICTIM"
      fi ;;
  esac
  pid="$(pid_of "$victim")"
  t0=$(now_ms)
  kill -9 "$pid"
  say "fault $kind: kill -9 $victim (pid $pid)"
  case "$kind" in
    jobmanager-kill|taskmanager-kill) restart_bg "$victim" ;;
  esac
  measure "$kind" "$t0" || return 1
  case "$kind" in
    jobmanager-kill)
      wait "$RESTART_PID" || { fail "restarting $victim failed (see $LOGS/restart-$victim.out)"; return 1; }
      FAULT_NOTE="new leader $(jm_leader), $victim back as standby $(secs_since "$t0") s" ;;
    taskmanager-kill)
      wait "$RESTART_PID" || { fail "restarting $victim failed (see $LOGS/restart-$victim.out)"; return 1; }
      FAULT_NOTE="new $victim registered $(secs_since "$t0") s" ;;
    broker-kill)
      # a supervisor brings the broker back; the next fault waits until every replica is in sync
      kafka_up >>"$LOGS/restart-$victim.out" 2>&1 || { fail "restarting $victim failed"; return 1; }
      local deadline=$(( $(date +%s) + 180 ))
      while [ -n "$(kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --describe \
          --under-replicated-partitions 2>/dev/null)" ]; do
        [ "$(date +%s)" -lt "$deadline" ] || { fail "$victim: replicas not in sync 180 s after its restart"; return 1; }
        sleep 2
      done
      FAULT_NOTE="$victim (leader of partition 0) back, all replicas in sync $(secs_since "$t0") s" ;;
  esac
  RECOVERIES[-1]="${RECOVERIES[-1]}; $FAULT_NOTE"
  say "$FAULT_NOTE"
}

step "produce the input, faults $SCHEDULE"
[ -n "$SCENARIO" ] && start_watch
i=0
for chunk in "$DATA"/chunk.*; do
  i=$(( i + 1 ))
  fault=""
  for f in $SCHEDULE; do [ "${f%%:*}" = "$i" ] && fault="${f#*:}"; done
  if [ -n "$SCENARIO" ] && [ -n "$fault" ]; then
    # The fault hits while this chunk is being produced. Its last 10% trickle in (20 lines/s)
    # until the recovery is measured: "output flowing" needs input that arrives after the
    # recovery (measured: a broker kill the job rode through had committed the whole chunk
    # before the first checkpoint after the kill, and then waited for output that had no input).
    rm -f "$DATA/measured"
    awk -v fast="$(( $(wc -l <"$chunk") * 9 / 10 ))" -v flag="$DATA/measured" '{ print; fflush() }
      NR > fast && system("test -e " flag) != 0 { system("sleep 0.05") }' "$chunk" \
      | produce "$INPUT_TOPIC" & prod=$!
    REL_BG_PIDS+=("$prod")
    sleep 3
    sc_fault "$fault" || exit 1
    touch "$DATA/measured"
    wait "$prod" || { fail "producing chunk $i failed"; exit 1; }
    say "produced chunk $i/$CHUNKS ($(wc -l <"$chunk") lines)"
    continue
  fi
  produce "$INPUT_TOPIC" <"$chunk"
  say "produced chunk $i/$CHUNKS ($(wc -l <"$chunk") lines)"
  if [ "$i" = 1 ]; then
    wait_ckpt_after "$JOB_ID" 0 120 || exit 1
  fi
  case "$fault" in
    tm) fault_tm || exit 1 ;;
    broker) fault_broker || exit 1 ;;
  esac
done

step "wait for the job to consume all $RECORDS records, read the output"
wait_caught_up "$JOB_ID" "$( [ "$QUICK" = 1 ] && [ -z "$SCENARIO" ] && echo 150 || echo 900)" || exit 1
t=$(now_ms)
read_output 15000 "$DATA/output.txt"
say "read $(wc -l <"$DATA/output.txt") committed output records in $(secs_since "$t")s"

# The truth is what reached the input topic: if the producer lost records (it reports them as
# errors), the truth file is rebuilt from the lines that are in the topic, first/repeat relabelled
INPUT_IN_TOPIC="$(kafka_tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" \
  --topic "$INPUT_TOPIC" --time -1 | awk -F: '{ s += $NF } END { print s + 0 }')"
TRUTH="$DATA/truth.txt"
if [ "$INPUT_IN_TOPIC" != "$RECORDS" ]; then
  step "rebuild the truth from the $INPUT_IN_TOPIC of $RECORDS lines in the input topic"
  consume "$INPUT_TOPIC" 15000 >"$DATA/input-topic.txt"
  truth_of_topic "$DATA/input-topic.txt" "$DATA/input.txt" "$DATA/truth.txt" >"$DATA/truth-topic.txt"
  TRUTH="$DATA/truth-topic.txt"
  say "input topic: $(wc -l <"$DATA/input-topic.txt") lines read; truth: $(wc -l <"$TRUTH") lines"
fi

step "check the output"
set +e
fault_check --truth "$TRUTH" --output "$DATA/output.txt" "${EMBEDDED_ARGS[@]}" \
  "${CHECK_ARGS[@]}" >"$DATA/check.txt"
check_rc=$?
set -e
{
  echo "scenario=$NAME records=$RECORDS filter=${FILTER_ARGS[*]} checkpoint_interval=2s parallelism=2"
  echo "faults=$SCHEDULE"
  echo "input_records_in_topic=$INPUT_IN_TOPIC"
  for r in "${RECOVERIES[@]}"; do echo "recovery: $r"; done
  echo "restarts_total=$(num_restarts)"
  cat "$DATA/check.txt"
  echo "embedded_secs=$EMBEDDED_SECS"
  echo "load_start=$LOAD_START load_end=$(load_now)"
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} | tee "$RESULT" | sed "s/^/$NAME: /" >&2
[ "$check_rc" -eq 0 ] || fail "output check failed (see $RESULT)"
[ "$REL_FAILED" -eq 0 ] && echo "$NAME: 1 passed, 0 failed" || echo "$NAME: 0 passed, 1 failed"
