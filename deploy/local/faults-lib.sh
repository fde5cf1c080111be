# Shared by faults.sh, savepoint-rescale.sh and security-check.sh (sourced, not run).
#
# rel_init NAME PORT_BASE: a stack of its own under deploy/local/.work/NAME on ports PORT_BASE+xx
# (never the defaults of stack.sh, demo.sh or e2e.sh), stack.sh's functions, a watchdog that ends
# the script after $REL_DEADLINE seconds, and exit handlers (script-lib.sh's on_exit) that cancel
# the job and stop only the processes this stack started (stack.sh's pid files) plus our own
# background PIDs (REL_BG_PIDS). REL_SLOTS=N (or stack.sh's STACK_SLOTS): N slots per TaskManager.
# On any failing exit the cleanup names the step (`step NAME`), the command that failed (an ERR
# trap: file:line, exit code) or the checks that failed (`fail`), or the signal.
# shellcheck shell=bash

REL_HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REL_REPO="$(cd "$REL_HERE/../.." && pwd)"
# shellcheck source=../script-lib.sh
source "$REL_REPO/deploy/script-lib.sh"

rel_init() {
  local name="$1" base="$2"
  REL_NAME="$name"
  export URLDEDUP_STACK_DIR="$REL_HERE/.work/$name"
  export KAFKA_PORT=$(( base + 92 )) CONTROLLER_PORT=$(( base + 93 ))
  export FLINK_REST_PORT=$(( base + 81 )) FLINK_RPC_PORT=$(( base + 23 ))
  export PROM_JM_PORT=$(( base + 49 )) PROM_TM_PORT=$(( base + 50 ))
  export INPUT_TOPIC="$name.in" OUTPUT_TOPIC="$name.out" DLQ_TOPIC="$name.dlq" GROUP_ID="urldedup-$name"
  # this stack's slot count (a rescale to 3 needs 3 slots): stack.sh's STACK_SLOTS
  if [ -n "${REL_SLOTS:-}" ]; then export STACK_SLOTS="$REL_SLOTS"; fi
  # shellcheck source=stack.sh
  source "$REL_HERE/stack.sh"
  REST="http://127.0.0.1:$FLINK_REST_PORT"
  REL_T0=$(date +%s)
  # read by the exit handlers (on_exit strings, stack_teardown), which shellcheck does not see
  # shellcheck disable=SC2034
  REL_BG_PIDS=()
  # shellcheck disable=SC2034
  JOB_ID=""
  REL_FAILED=0
  REL_STEP="setup"
  REL_ERR=""
  REL_FAILURES=()
  # reuse jars another stack of this checkout fetched already (they are identical Maven copies)
  if [ ! -e "$LIB" ]; then
    mkdir -p "$WORK"
    local other
    for other in "$REL_HERE/.work/lib" "$REL_HERE/.work/e2e/lib"; do
      if [ -f "$other/flink/.complete" ] && [ -f "$other/kafka/.complete" ]; then
        ln -s "$other" "$LIB"
        break
      fi
    done
  fi
  # errtrace: the ERR trap also runs in functions (stack.sh's too); it fires exactly where set -e
  # ends the script, so the first one is the reason
  set -E
  trap 'rel_on_err $? "${BASH_SOURCE[0]##*/}:$LINENO" "$BASH_COMMAND" "${FUNCNAME[0]:-main}"' ERR
  # at exit, last registered first: the watchdog, our background PIDs, the job and the stack, the
  # report (see rel_finish)
  on_exit rel_finish
  on_exit rel_stack_exit
  on_exit 'kill_started "${REL_BG_PIDS[@]}"'
  # after on_exit: the signal names the reason in the report
  trap 'REL_ERR="${REL_ERR:-interrupted (SIGINT)}"; exit 130' INT
  trap 'REL_ERR="${REL_ERR:-terminated (SIGTERM)}"; exit 143' TERM
  # watchdog: a TERM to this shell runs the cleanup trap, but bash defers traps while a foreground
  # child runs, so the script's own descendants (snapshot, not the watchdog) get a TERM too
  ( sleep "${REL_DEADLINE:-600}"
    echo "$REL_NAME: deadline of ${REL_DEADLINE:-600}s reached" >&2
    kill -TERM $$ 2>/dev/null
    for p in $(rel_descendants $$); do
      [ "$p" = "$BASHPID" ] || kill -TERM "$p" 2>/dev/null
    done ) &
  # shellcheck disable=SC2034 # read by the exit handler below
  REL_WATCHDOG=$!
  # the watchdog's sleep too: an orphaned sleep keeps every descriptor it inherited open (once a
  # caller's flock(1) lock, for the whole deadline)
  on_exit 'kill_started $(rel_descendants "$REL_WATCHDOG") "$REL_WATCHDOG"'
}

rel_descendants() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$c"
    rel_descendants "$c"
  done
}

say() { echo "$REL_NAME: [$(( $(date +%s) - REL_T0 ))s] $*" >&2; }
fail() { echo "$REL_NAME: FAIL: $*" >&2; REL_FAILED=1; REL_FAILURES+=("$*"); }
# step NAME: what the script does from now on; a failure report names it
step() { REL_STEP="$*"; say "step: $*"; }

# the ERR trap: RC WHERE COMMAND FUNCTION. Not under set +e (a status the script reads itself).
rel_on_err() {
  [[ $- == *e* ]] || return 0
  [ -n "$REL_ERR" ] || REL_ERR="$2 (in $4): '$3' exited $1"
}

# why the script fails, for the last lines of its output
rel_report() {
  local rc="$1" f
  [ "$rc" -ne 0 ] || [ "$REL_FAILED" -ne 0 ] || return 0
  # the watchdog's TERM also ends the command that was running: the deadline is the reason
  [ $(( $(date +%s) - REL_T0 )) -lt "${REL_DEADLINE:-600}" ] \
    || REL_ERR="deadline of ${REL_DEADLINE:-600}s reached (FAULTS_DEADLINE)"
  echo "$REL_NAME: FAILED in step '$REL_STEP' (exit $rc)" >&2
  [ -z "$REL_ERR" ] || echo "$REL_NAME:   reason: $REL_ERR" >&2
  for f in "${REL_FAILURES[@]}"; do echo "$REL_NAME:   check failed: $f" >&2; done
  if [ -z "$REL_ERR" ] && [ "${#REL_FAILURES[@]}" -eq 0 ]; then
    echo "$REL_NAME:   reason: exit $rc without a message (see the output above)" >&2
  fi
}


# exit handler: where the logs are on failure; the job cancelled and the stack down (stack.sh's
# stack_teardown), or both left running with REL_KEEP=1
rel_stack_exit() {
  if [ "$EXIT_RC" -ne 0 ] || [ "$REL_FAILED" -ne 0 ]; then
    echo "$REL_NAME: logs in $LOGS" >&2
  fi
  if [ "${REL_KEEP:-0}" = 1 ]; then
    echo "$REL_NAME: REL_KEEP=1: stack left running ($WORK)" >&2
  else
    stack_teardown "$REL_NAME"
  fi
}

# exit handler, the last: a failed check (`fail`) makes the exit status 1; the report; the total
rel_finish() {
  if [ "$REL_FAILED" -ne 0 ] && [ "$EXIT_RC" -eq 0 ]; then EXIT_RC=1; fi
  rel_report "$EXIT_RC"
  echo "$REL_NAME: total $(( $(date +%s) - REL_T0 )) s, exit $EXIT_RC" >&2
}

rel_build() {
  if [ ! -f "$JOB_JAR" ] || [ ! -f "$REL_REPO/job/target/classpath.txt" ] \
      || [ ! -f "$REL_REPO/samples/target/classes/io/urldedup/samples/CrawlStreamGenerator.class" ] \
      || [ ! -d "$REL_REPO/state/target/classes" ]; then
    say "building job and samples (mvn package -DskipTests)"
    (cd "$REL_REPO" && mvn -B -ntp -q package -DskipTests -pl job,samples -am) >&2
  fi
}

# A fresh stack: no data of an earlier run of the same NAME.
rel_fresh_up() {
  cmd_down >/dev/null 2>&1 || true
  rm -rf "$WORK"/kafka*-data "$WORK/kafka-cluster-id" "$WORK/zookeeper-data" "$WORK/flink" "$LOGS" "$WORK/data"
  mkdir -p "$WORK/data"
  cmd_up
}

# any running JobManager's REST API (after a JobManager kill, the standby's)
rest_get() { curl -fsS --max-time 5 "$(flink_rest)$1"; }

# rel_submit [-s SAVEPOINT] ARGS...: the job jar with the Kafka flags of this stack, a restart
# strategy for faults (exponential backoff, unlimited attempts; the cluster default of stack.sh
# gives up after 3) and ARGS. Prints the job id.
rel_submit() {
  local restore=()
  if [ "${1:-}" = "-s" ]; then restore=(-s "$2"); shift 2; fi
  local out id
  out="$(flink_cli run -d "${restore[@]}" \
    -D restart-strategy.type=exponential-delay \
    -D restart-strategy.exponential-delay.initial-backoff=1s \
    -D restart-strategy.exponential-delay.max-backoff=10s \
    -D restart-strategy.exponential-delay.attempts-before-reset-backoff=1000 \
    "$JOB_JAR" run --bootstrap-servers "$BOOTSTRAP" --input-topic "$INPUT_TOPIC" \
    --output-topic "$OUTPUT_TOPIC" --dlq-topic "$DLQ_TOPIC" --group-id "$GROUP_ID" \
    --checkpoint-dir "file://$WORK/flink/checkpoints" "$@" 2>&1)" || { echo "$out" >&2; return 1; }
  id="$(echo "$out" | grep -oE 'JobID [0-9a-f]{32}' | awk '{print $2}' | tail -n1)"
  [ -n "$id" ] || { echo "$out" >&2; return 1; }
  echo "$id"
}

# "RUNNING" when the job and all its vertices run; else the distinct states.
job_tasks_state() {
  rest_get "/jobs/$1" 2>/dev/null | jq -r '[.state] + [.vertices[].status] | unique | join(",")' 2>/dev/null || echo "?"
}

# wait_job_running JOBID SECS: until the job and all its tasks run; fails on a terminal state.
wait_job_running() {
  local id="$1" deadline=$(( $(date +%s) + $2 )) s
  while :; do
    s="$(job_tasks_state "$id")"
    [ "$s" = "RUNNING" ] && return 0
    # tasks are CANCELED/FAILED while the job is RESTARTING: only the job's own state is final
    case "$(job_state "$id" 2>/dev/null)" in FAILED|CANCELED|FINISHED) fail "job $id is $s"; return 1 ;; esac
    [ "$(date +%s)" -lt "$deadline" ] || { fail "job $id not running after $2 s (state $s)"; return 1; }
    sleep 0.3
  done
}

# latest completed checkpoint id (0 = none)
last_ckpt() { rest_get "/jobs/$1/checkpoints" 2>/dev/null | jq -r '.latest.completed.id // 0' 2>/dev/null || echo 0; }
restored_ckpt() { rest_get "/jobs/$1/checkpoints" 2>/dev/null | jq -r '.latest.restored.id // "none"' 2>/dev/null || echo "?"; }

# wait_ckpt_after JOBID ID SECS: until a checkpoint with a higher id completed.
wait_ckpt_after() {
  local id="$1" after="$2" deadline=$(( $(date +%s) + $3 )) c
  while :; do
    c="$(last_ckpt "$id")"
    [ "$c" != "null" ] && [ "$c" -gt "$after" ] 2>/dev/null && return 0
    [ "$(date +%s)" -lt "$deadline" ] || { fail "no checkpoint after $after within $3 s"; return 1; }
    sleep 0.5
  done
}

now_ms() { date +%s%3N; }
secs_since() { awk -v a="$1" -v b="$(now_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

# total lag of the job's consumer group on the input topic ("" while the group has no offsets)
group_lag() {
  kafka_tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --bootstrap-server "$BOOTSTRAP" \
    --describe --group "$GROUP_ID" 2>/dev/null \
    | awk -v t="$INPUT_TOPIC" '$2 == t && $6 ~ /^[0-9]+$/ { s += $6; n++ } END { if (n > 0) print s }'
}

# wait_caught_up JOBID SECS: the group's committed offsets reach the end of the input (they are
# committed when a checkpoint completes, together with the output transaction), then two more
# checkpoints so the sink's commit of that checkpoint surely happened.
wait_caught_up() {
  local id="$1" deadline=$(( $(date +%s) + $2 )) lag
  while :; do
    lag="$(group_lag)"
    [ "$lag" = "0" ] && break
    [ "$(date +%s)" -lt "$deadline" ] || { fail "input not consumed within $2 s (lag ${lag:-unknown})"; return 1; }
    sleep 2
  done
  local c; c="$(last_ckpt "$id")"
  wait_ckpt_after "$id" "$(( c + 1 ))" 120
}

# read_output IDLE_MS FILE [AT_LEAST]: the committed output (values), one a line. The console
# consumer gives up after IDLE_MS without a record, which on a loaded machine can happen before its
# first fetch: read again, with a longer idle time, while fewer than AT_LEAST (default 1) arrived.
read_output() {
  local idle="$1" file="$2" least="${3:-1}" try
  for try in 1 2 3; do
    consume "$OUTPUT_TOPIC" "$idle" >"$file"
    [ "$(wc -l <"$file")" -ge "$least" ] && return 0
    idle=$(( idle * 3 ))
  done
}

# truth_of_topic TOPIC_LINES INPUT TRUTH: the truth lines of the input lines that are in the
# topic (as a multiset), relabelled first/repeat in input order
truth_of_topic() {
  awk -v truth="$3" 'FNR == NR { c[$0]++; next }
    { if ((getline t < truth) <= 0) exit 1
      if (c[$0] > 0) { c[$0]--; u = substr(t, index(t, "\t") + 1); print (seen[u]++ ? "repeat" : "first") "\t" u } }' "$1" "$2"
}

fault_check() {
  java -Xmx1g -cp "$REL_REPO/state/target/classes" "$REL_HERE/FaultCheck.java" "$@"
}

# machine load, recorded with each result (the machine is shared)
load_now() { cut -d' ' -f1-3 /proc/loadavg; }
