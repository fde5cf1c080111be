#!/usr/bin/env bash
# Kafka mode, measured against its peers in one run (issue 24), on a stack of its own
# (deploy/local/.work/kafka-bench, ports KAFKA_BENCH_PORT_BASE+xx, default 41000):
#
#   1. a fresh stack of stack.sh's default shape (1 broker, 1 JobManager, 1 TaskManager x 2 slots;
#      --taskmanagers N / --brokers B for the larger shape), the input topic with 4 partitions
#   2. N generated crawl lines (CrawlStreamGenerator --unique-target N/2 --seed 42) produced into it
#   3. per round, each of --jobs in turn, reading the whole topic from the earliest offset:
#        raw       Kafka's own consumer (ConsumerPerformance, read_committed): the read ceiling
#        identity  Kafka source -> Kafka sink, exactly once (jobbench KafkaPeerJob --peer identity)
#        exact     decode, keyBy URL, a flag per URL in RocksDB, Kafka sink (KafkaPeerJob --peer exact)
#        scalable, stable   urldedup itself
#        J-before (any of the four Flink jobs): the same before issue 24's changes: scalable-before
#                  and stable-before run --before-jar JAR (a build of the earlier commit);
#                  identity-before and exact-before run with the Kafka client's own defaults for
#                  the five settings urldedup now sets (KafkaClientDefaults), by --kafka-properties
#      Every Flink job gets the same flags: --state-backend rocksdb, --checkpoint-interval
#      (--interval, default 10s), --parallelism (slots), --starting-offsets earliest, a fresh output
#      topic, group and transactional-id prefix, and --kafka-properties FILE when given.
#   4. per run: records/s and CPU us/record per process (broker, TaskManager(s), JobManager, and the
#      consumer's own for raw), checkpoints (count, last size)
#
# records/s: the source operator's numRecordsOut (TaskManagers' Prometheus endpoints, polled every
# 0.2 s) against time; "rate" is 90% of N over the time between the 5% and 95% crossings
# (interpolated), "first-last" is N over the time from the first poll with a record read to the
# first poll with all N read (start-up and the last poll's granularity included). CPU is
# /proc/PID/stat utime+stime over the 5%-95% window, per record of that window. raw: the tool's own
# fetch.nMsg.sec (records/s over its fetch time), CPU over its whole run.
#
#   deploy/local/kafka-bench.sh [--records N] [--rounds R] [--jobs raw,identity,exact,scalable,stable]
#       [--interval 10s] [--kafka-properties FILE] [--taskmanagers N --brokers B] [--jfr]
#       [--job-args "..."] [--before-jar JAR] [--latency RATE [--latency-seconds S]]
#
# --rounds R: every job R times (interleaved, so load drifts hit all alike); the table gives the
# median of each column. --jfr: the TaskManager records a JFR profile (settings=profile) for the
# whole run, written to $WORK/taskmanager.jfr at the end (jfr print --events jdk.ExecutionSample).
# --latency RATE: after the rounds, each Flink job of --jobs once more on a fresh, empty input topic
# while SoakDriver (samples) produces RATE records/s for --latency-seconds S (default 60) and reads
# the output read_committed: p50/p99/p99.9/max of Kafka timestamp to visibility, over the records
# produced after the first quarter. Exactly-once output becomes visible when the checkpoint after
# a record commits its transaction: expect p50 near half the checkpoint interval, p99 near all of it.
# JOB_JAR=...: the urldedup job jar to run (another build's, for before/after comparisons).
# Bounded: KAFKA_BENCH_DEADLINE seconds (default 2400) for everything; each job run at most
# KAFKA_BENCH_RUN_SECS (default 300). Ends only the processes it started.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# Without --taskmanagers/--brokers a run gets stack.sh's default shape, never the one an earlier run
# saved in the work dir (set variables win over stack.sh's shape file; the environment still wins).
: "${STACK_TASKMANAGERS=}" "${STACK_BROKERS=1}" "${STACK_HA=0}" "${STACK_SLOTS=}"
# shellcheck source=faults-lib.sh
source "$HERE/faults-lib.sh"

RECORDS=2000000
ROUNDS=1
JOBS="raw,identity,exact,scalable,stable"
INTERVAL=10s
KPROPS=""
JFR=0
JOB_ARGS=""
BEFORE_JAR=""
LAT_RATE=0
LAT_SECS=60
UP_ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS="$2"; shift ;;
    --rounds) ROUNDS="$2"; shift ;;
    --jobs) JOBS="$2"; shift ;;
    --interval) INTERVAL="$2"; shift ;;
    --kafka-properties) KPROPS="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
    --taskmanagers|--brokers) UP_ARGS+=("$1" "$2"); shift ;;
    --jfr) JFR=1 ;;
    --job-args) JOB_ARGS="$2"; shift ;;
    --before-jar) BEFORE_JAR="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
    --latency) LAT_RATE="$2"; shift ;;
    --latency-seconds) LAT_SECS="$2"; shift ;;
    -h|--help) header_usage "$0"; exit 0 ;;
    *) echo "kafka-bench.sh: unknown flag '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ "$RECORDS" =~ ^[1-9][0-9]*$ ]] || { echo "kafka-bench.sh: --records: accepted an integer >= 1, got '$RECORDS'" >&2; exit 2; }
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "kafka-bench.sh: --rounds: accepted an integer >= 1, got '$ROUNDS'" >&2; exit 2; }
[[ "$LAT_RATE" =~ ^[0-9]+$ ]] || { echo "kafka-bench.sh: --latency: accepted records/s, an integer >= 0 (0: no latency pass), got '$LAT_RATE'" >&2; exit 2; }
[[ "$LAT_SECS" =~ ^[1-9][0-9]*$ ]] || { echo "kafka-bench.sh: --latency-seconds: accepted an integer >= 1, got '$LAT_SECS'" >&2; exit 2; }
[[ "$INTERVAL" =~ ^[1-9][0-9]*s$ ]] || { echo "kafka-bench.sh: --interval: accepted whole seconds, e.g. 10s, got '$INTERVAL'" >&2; exit 2; }
for j in ${JOBS//,/ }; do
  case "$j" in raw|identity|exact|scalable|stable|identity-before|exact-before) ;;
    scalable-before|stable-before)
      [ -n "$BEFORE_JAR" ] || { echo "kafka-bench.sh: --jobs $j needs --before-jar JAR" >&2; exit 2; } ;;
    *) echo "kafka-bench.sh: --jobs: accepted raw, identity, exact, scalable, stable, each of the last four" \
         "with -before; got '$j'" >&2; exit 2 ;;
  esac
done

BASE="${KAFKA_BENCH_PORT_BASE:-41000}"
# the single-TaskManager shape's RPC and blob port ranges, inside this stack's port base too
export TM_RPC_PORT=$(( BASE + 200 )) BLOB_PORT=$(( BASE + 130 ))
if [ "$JFR" = 1 ]; then
  export TM_JAVA_OPTS="-XX:StartFlightRecording=settings=profile,filename=$HERE/.work/kafka-bench/taskmanager.jfr,dumponexit=true"
fi
export REL_DEADLINE="${KAFKA_BENCH_DEADLINE:-2400}"
RUN_SECS="${KAFKA_BENCH_RUN_SECS:-300}"
rel_init kafka-bench "$BASE"
export URLDEDUP_HASH_SEED="${URLDEDUP_HASH_SEED:-0x243f6a8885a308d3}"
DATA="$WORK/data"
RESULTS="$WORK/results.tsv"
TICK_US=$(( 1000000 / $(getconf CLK_TCK) ))
JOBBENCH_JAR="$(ls "$REL_REPO"/jobbench/target/urldedup-jobbench-*.jar 2>/dev/null | grep -v -- '-tests' | head -n1 || true)"

step "build and start a fresh stack"
rel_build
if [ -z "$JOBBENCH_JAR" ]; then
  say "building jobbench (mvn package -DskipTests)"
  (cd "$REL_REPO" && mvn -B -ntp -q package -DskipTests -pl jobbench -am) >&2
  JOBBENCH_JAR="$(ls "$REL_REPO"/jobbench/target/urldedup-jobbench-*.jar | grep -v -- '-tests' | head -n1)"
fi
say "load before: $(load_now); job jar $JOB_JAR"
cmd_down >/dev/null 2>&1 || true
rm -rf "$WORK"/kafka*-data "$WORK/kafka-cluster-id" "$WORK/flink" "$LOGS" "$DATA"
mkdir -p "$DATA"
cmd_up "${UP_ARGS[@]}"
SLOTS=$(( TM_COUNT * TM_SLOTS ))

step "generate and produce $RECORDS lines"
java -Xmx256m -cp "$REL_REPO/samples/target/classes:$REL_REPO/state/target/classes" io.urldedup.samples.CrawlStreamGenerator \
  --lines "$RECORDS" --unique-target $(( RECORDS / 2 )) --seed 42 --output "$DATA/input.txt" 2>&1 \
  | sed "s/^/$REL_NAME: /" >&2
t=$(now_ms)
produce "$INPUT_TOPIC" <"$DATA/input.txt"
# end offsets: every record is there before anything is measured
end_offsets() {
  kafka_tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$BOOTSTRAP" --topic "$1" 2>/dev/null \
    | awk -F: '{ s += $3 } END { print s + 0 }'
}
IN_COUNT="$(end_offsets "$INPUT_TOPIC")"
say "produced $IN_COUNT records in $(secs_since "$t") s ($(du -m "$DATA/input.txt" | cut -f1) MB of lines)"
[ "$IN_COUNT" = "$RECORDS" ] || { fail "input topic holds $IN_COUNT records, not $RECORDS"; exit 1; }
# the Kafka client's own defaults of the settings KafkaClientDefaults sets (the -before peers)
printf '%s\n' fetch.min.bytes=1 fetch.max.wait.ms=500 max.poll.records=500 linger.ms=5 batch.size=16384 \
  >"$DATA/kafka-client-defaults.properties"

# cpu_ticks PID: utime + stime (clock ticks); 0 when the process is gone
cpu_ticks() { { sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null || echo; } | awk '{ print ($12 + $13) + 0 }'; }
pids_of() { local n; for n in "$@"; do pid_of "$n"; done | tr '\n' ' '; }
# the source operator's records out, summed over subtasks and TaskManagers
source_count() {
  local tm
  for tm in "${TASKMANAGERS[@]}"; do
    curl -fsS --max-time 2 "http://127.0.0.1:$(tm_prom_port "$tm")/metrics" 2>/dev/null || true
  done | awk '$1 ~ /^flink_taskmanager_job_task_operator_numRecordsOut\{/ && $1 ~ /operator_name="Source:_kafka_source"/ { s += $NF }
    END { printf "%d\n", s }'
}

# run_raw ROUND
run_raw() {
  local round="$1" out bt0 bt1 ct
  printf 'isolation.level=read_committed\n' >"$DATA/raw-consumer.properties"
  bt0="$(cpu_ticks "$(pid_of kafka)")"
  # CPU of the tool: this shell's children times (`times`, a builtin: written to a file, since in a
  # pipe or $(...) it would report a subshell's) before and after; the tool is what is reaped between
  times >"$DATA/times.before"
  out="$(kafka_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOTSTRAP" \
    --topic "$INPUT_TOPIC" --num-records "$RECORDS" --timeout 60000 --group "kbench-raw-$round-$$" \
    --command-config "$DATA/raw-consumer.properties" 2>&1)" || { echo "$out" >&2; fail "raw consumer failed"; return 0; }
  times >"$DATA/times.after"
  bt1="$(cpu_ticks "$(pid_of kafka)")"
  ct="$(awk 'function s(x,  p) { split(x, p, /[ms ]+/); return p[1] * 60 + p[2] + p[3] * 60 + p[4] }
    FNR == 2 { t[FILENAME] = s($0) } END { printf "%.0f", (t[ARGV[2]] - t[ARGV[1]]) * 1e6 }' \
    "$DATA/times.before" "$DATA/times.after")"
  echo "$out" | tail -n 3 >&2
  # start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
  # rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
  echo "$out" | awk -F', *' -v r="$round" -v n="$RECORDS" -v bt=$(( (bt1 - bt0) * TICK_US )) -v ct="$ct" \
    'NF >= 10 && $5 ~ /^[0-9]+$/ {
       printf "raw\t%s\t%.0f\t%.0f\t%.2f\t-\t-\t%.2f\t-\t-\n", r, $10, $6, bt / $5, ct / $5 }' >>"$RESULTS"
}

# bench_submit JOB TAG INPUT OUTPUT: submits one of the bench's Flink jobs (J-before: the earlier
# jar, or the Kafka client's own defaults for the peers) reading INPUT from the earliest offset into
# a fresh OUTPUT topic; sets JOB_ID, or records a failure and returns 1.
bench_submit() {
  local job="${1%-before}" tag="$2" input="$3" topic="$4" id out args=() jar="$JOB_JAR" props="$KPROPS"
  if [ "$1" != "$job" ]; then
    case "$job" in
      identity|exact) props="$DATA/kafka-client-defaults.properties" ;;
      *) jar="$BEFORE_JAR" ;;
    esac
  fi
  create_topic "$topic" 4 || { fail "cannot create $topic"; return 1; }
  args=(--bootstrap-servers "$BOOTSTRAP" --input-topic "$input" --output-topic "$topic"
    --dlq-topic "$DLQ_TOPIC" --group-id "kbench-$tag-$$" --transactional-id-prefix "kbench-$tag-$$"
    --checkpoint-dir "file://$WORK/flink/checkpoints" --state-backend rocksdb
    --checkpoint-interval "$INTERVAL" --starting-offsets earliest --parallelism "$SLOTS")
  [ -z "$props" ] || args+=(--kafka-properties "$props")
  # shellcheck disable=SC2206 # --job-args is a word list by design
  [ -z "$JOB_ARGS" ] || args+=($JOB_ARGS)
  case "$job" in
    identity|exact)
      out="$(flink_cli run -d -c io.urldedup.jobbench.KafkaPeerJob -C "file://$JOBBENCH_JAR" "$jar" \
        --peer "$job" "${args[@]}" 2>&1)" || { echo "$out" >&2; fail "$tag: submission failed"; return 1; } ;;
    *)
      out="$(flink_cli run -d "$jar" run --filter "$job" "${args[@]}" 2>&1)" \
        || { echo "$out" >&2; fail "$tag: submission failed"; return 1; } ;;
  esac
  id="$(echo "$out" | grep -oE 'JobID [0-9a-f]{32}' | awk '{print $2}' | tail -n1)"
  [ -n "$id" ] || { echo "$out" >&2; fail "$tag: no job id"; return 1; }
  JOB_ID="$id"
}

# bench_cancel ID TOPIC...: cancels the job, waits until it is CANCELED, deletes the topics (disk)
bench_cancel() {
  local id="$1" i t; shift
  curl -fsS --max-time 5 -X PATCH "$(flink_rest)/jobs/$id?mode=cancel" >/dev/null 2>&1 || true
  for i in $(seq 1 100); do [ "$(job_state "$id" 2>/dev/null)" = CANCELED ] && break; sleep 0.3; done
  JOB_ID=""
  for t in "$@"; do
    kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --delete --topic "$t" \
      >/dev/null 2>&1 || true
  done
}

# run_flink JOB ROUND: submit, poll until all N are read, one more checkpoint, cancel.
run_flink() {
  local round="$2" tag="$1-r$2" id topic
  topic="kafka-bench.out.$tag"
  bench_submit "$1" "$tag" "$INPUT_TOPIC" "$topic" || return 0
  id="$JOB_ID"
  local samples="$DATA/samples-$tag.tsv" deadline=$(( $(date +%s) + RUN_SECS )) c=0 bpid tpids jpid polls=0
  bpid="$(pids_of "${BROKERS[@]}")"; tpids="$(pids_of "${TASKMANAGERS[@]}")"; jpid="$(pid_of jobmanager)"
  : >"$samples"
  while [ "$c" -lt "$RECORDS" ]; do
    c="$(source_count)"
    local b=0 tm=0 p
    for p in $bpid; do b=$(( b + $(cpu_ticks "$p") )); done
    for p in $tpids; do tm=$(( tm + $(cpu_ticks "$p") )); done
    printf '%s\t%s\t%s\t%s\t%s\n' "$(now_ms)" "$c" "$b" "$tm" "$(cpu_ticks "$jpid")" >>"$samples"
    # the job's state from the REST API every 5 s only (each call costs the JobManager CPU)
    if [ $(( polls++ % 25 )) -eq 24 ]; then
      case "$(job_state "$id" 2>/dev/null)" in FAILED|CANCELED|FINISHED) fail "$tag: job ended early"; break ;; esac
    fi
    [ "$(date +%s)" -lt "$deadline" ] || { fail "$tag: $c of $RECORDS read after $RUN_SECS s"; break; }
    sleep 0.2
  done
  local ck; ck="$(last_ckpt "$id")"
  wait_ckpt_after "$id" "$ck" 120 || true
  local cks; cks="$(rest_get "/jobs/$id/checkpoints" 2>/dev/null \
    | jq -r '"\(.counts.completed)\t\(.latest.completed.checkpointed_size // 0)\t\(.latest.completed.state_size // 0)"' 2>/dev/null || printf -- '-\t-\t-')"
  bench_cancel "$id" "$topic"
  awk -F'\t' -v n="$RECORDS" -v job="$1" -v r="$round" -v us="$TICK_US" -v cks="$cks" '
    function at(x, col,   i) {   # column col interpolated at the first crossing of count x
      for (i = 2; i <= k; i++) if (cnt[i] >= x) {
        f = (cnt[i] == cnt[i-1]) ? 1 : (x - cnt[i-1]) / (cnt[i] - cnt[i-1])
        return v[i-1, col] + f * (v[i, col] - v[i-1, col]) }
      return v[k, col] }
    { k++; cnt[k] = $2; for (c = 1; c <= 5; c++) v[k, c] = $c
      if (first == "" && $2 > 0) first = $1; if (last == "" && $2 >= n) last = $1 }
    END {
      if (last == "") { printf "%s\t%s\tincomplete\n", job, r; exit }
      lo = 0.05 * n; hi = 0.95 * n; m = hi - lo; secs = (at(hi, 1) - at(lo, 1)) / 1000
      split(cks, ck, "\t")
      printf "%s\t%s\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t-\t%s\t%s\n", job, r, m / secs, n / ((last - first) / 1000),
        (at(hi, 3) - at(lo, 3)) * us / m, (at(hi, 4) - at(lo, 4)) * us / m, (at(hi, 5) - at(lo, 5)) * us / m,
        ck[1], ck[2] }' "$samples" >>"$RESULTS"
}

# run_latency JOB: end-to-end latency at a fixed rate. A fresh, empty input topic; the job started
# on it and running; then SoakDriver (samples) produces --latency records/s of crawl lines for
# --latency-seconds and reads the output topic read_committed: per output record, the time it
# became visible minus its Kafka timestamp (the producer's create time, which every sink here
# passes through). Percentiles over the records produced after the first quarter (warm-up).
run_latency() {
  local tag="$1-lat" in="kafka-bench.lat.in.$1" topic="kafka-bench.lat.out.$1" id line
  create_topic "$in" 4 || { fail "$tag: cannot create $in"; return 0; }
  bench_submit "$1" "$tag" "$in" "$topic" || return 0
  id="$JOB_ID"
  wait_job_running "$id" 120 || { bench_cancel "$id" "$in" "$topic"; return 0; }
  java -Xmx512m -cp "$REL_REPO/samples/target/classes:$REL_REPO/state/target/classes:$(kafka_cp)" \
    io.urldedup.samples.SoakDriver --bootstrap-servers "$BOOTSTRAP" --input-topic "$in" --output-topic "$topic" \
    --rate "$LAT_RATE" --seconds "$LAT_SECS" --warmup-s $(( LAT_SECS / 4 )) --window-s 10 \
    --drain-s $(( ${INTERVAL%s} + 30 )) --csv "$DATA/latency-$1.csv" >"$DATA/latency-$1.out" 2>"$DATA/latency-$1.err" \
    || fail "$tag: SoakDriver failed (see $DATA/latency-$1.err)"
  line="$(grep '^soak-driver:' "$DATA/latency-$1.out" | tail -n1)"
  bench_cancel "$id" "$in" "$topic"
  [ -n "$line" ] || { fail "$tag: no SoakDriver summary"; return 0; }
  echo "$line" | tr ' ' '\n' | awk -F= -v j="$1" '{ v[$1] = $2 }
    END { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", j, v["produced"], v["consumed"], v["lat_p50_ms"], v["lat_p99_ms"],
      v["lat_p999_ms"], v["lat_max_ms"] }' >>"$LATENCY"
}

printf 'job\tround\trecords/s\tfirst-last/s\tbroker us/rec\tTM us/rec\tJM us/rec\tconsumer us/rec\tcheckpoints\tlast ckpt bytes\n' >"$RESULTS"
for (( round = 1; round <= ROUNDS; round++ )); do
  for job in ${JOBS//,/ }; do
    step "round $round: $job (load $(load_now))"
    if [ "$job" = raw ]; then run_raw "$round"; else run_flink "$job" "$round"; fi
    tail -n1 "$RESULTS" | sed "s/^/$REL_NAME: /" >&2
  done
done

LATENCY="$WORK/latency.tsv"
printf 'job\tproduced\tconsumed\tp50 ms\tp99 ms\tp99.9 ms\tmax ms\n' >"$LATENCY"
if [ "$LAT_RATE" -gt 0 ]; then
  for job in ${JOBS//,/ }; do
    [ "$job" = raw ] && continue
    step "latency: $job at $LAT_RATE records/s for $LAT_SECS s (load $(load_now))"
    run_latency "$job"
    tail -n1 "$LATENCY" | sed "s/^/$REL_NAME: /" >&2
  done
fi

step "report"
LOAD_END="$(load_now)"
{
  echo "kafka-bench: $RECORDS records, 4 partitions, rounds $ROUNDS, interval $INTERVAL, slots $SLOTS," \
    "shape ${STACK_BROKERS} broker(s) x ${TM_COUNT} TaskManager(s); load at end $LOAD_END;" \
    "kafka-properties ${KPROPS:-none}; job jar $JOB_JAR; before jar ${BEFORE_JAR:-none}"
  echo
  echo "| job | records/s (5-95%) | first-last | broker us/rec | TM us/rec | JM us/rec | consumer us/rec | checkpoints | last ckpt |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for job in ${JOBS//,/ }; do
    awk -F'\t' -v j="$job" 'NR > 1 && $1 == j && $3 != "incomplete" { k++; for (c = 3; c <= 10; c++) v[c, k] = $c }
      function med(c,   i, a, t, n, x) { n = 0; for (i = 1; i <= k; i++) if (v[c, i] != "-") a[++n] = v[c, i] + 0
        if (n == 0) return "-"
        for (i = 1; i <= n; i++) for (x = i + 1; x <= n; x++) if (a[x] < a[i]) { t = a[i]; a[i] = a[x]; a[x] = t }
        return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      END { if (k == 0) { printf "| %s | incomplete |\n", j; exit }
        printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", j, med(3),
          (med(4) == "-" ? "-" : sprintf("%d", med(4))), med(5), med(6), med(7), med(8), med(9), med(10) }' "$RESULTS"
  done
  # each job's mean records/s against the raw consumer's and against its identity peer's (the
  # -before jobs against identity-before)
  awk -F'\t' 'NR > 1 && $3 != "incomplete" { if (!($1 in n)) o[++k] = $1; s[$1] += $3; n[$1]++ }
    END { print ""; for (i = 1; i <= k; i++) { j = o[i]; if (j == "raw") continue
        m = s[j] / n[j]; line = j ":"
        if (n["raw"]) line = line sprintf(" %.2f x raw consumer", m / (s["raw"] / n["raw"]))
        id = (j ~ /-before$/) ? "identity-before" : "identity"
        if (n[id] && j != id) line = line sprintf(", %.2f x %s", m / (s[id] / n[id]), id)
        print "- " line } }' "$RESULTS"
  echo "(ratios of mean records/s; per-run rows: $RESULTS)"
  if [ "$LAT_RATE" -gt 0 ]; then
    echo
    echo "End-to-end latency at $LAT_RATE records/s for $LAT_SECS s (Kafka timestamp to read_committed visibility," \
      "records produced after the first $(( LAT_SECS / 4 )) s; checkpoint interval $INTERVAL):"
    echo
    echo "| job | produced | output records | p50 | p99 | p99.9 | max |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
    awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s ms | %s ms | %s ms | %s ms |\n", $1, $2, $3, $4, $5, $6, $7 }' "$LATENCY"
  fi
} | tee "$WORK/report.md"
