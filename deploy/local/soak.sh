#!/usr/bin/env bash
# Soak run on a real local stack of its own: CrawlStreamGenerator lines into Kafka at a fixed rate
# for a fixed time (samples' SoakDriver), and every 10 s one CSV sample of
#   throughput   produced/s, the job's records in/s, committed output/s, the Kafka source's lag
#   latency      p50/p99/max of (time an output record became visible under read_committed) minus
#                (its Kafka timestamp = the producer's create time, which the sink passes through)
#   checkpoints  completed/failed counts, last duration, full and incremental size (Flink REST)
#   memory       TaskManager heap used (Prometheus), RSS (/proc), RocksDB native memory (memtables
#                charged to the block cache, Flink's RocksDB native metrics)
#   backpressure max over tasks of backPressuredTimeMsPerSecond
# Then the verdict (after --warmup-minutes): no growth trend of heap, RSS and checkpoint size (the
# floor and the ceiling of the last third of the samples within 10% of the mean of those of the
# first third; see trends), p99 latency over
# every record produced after the warm-up <= checkpoint interval + 5 s, no failed checkpoint, and
# the producer kept the rate. CSV, verdict and PNG plots (gnuplot) go to --out (default docs/soak).
#
#   deploy/local/soak.sh --minutes 30 --rate 20000 [--filter stable|scalable] [--memory 16m]
#       [--checkpoint-interval 10s] [--warmup-minutes 10] [--out DIR]
#   deploy/local/soak.sh --plot DIR      redraw the PNGs of DIR/soak.csv, print the trend checks
#
# Ports: SOAK_PORT_BASE (default 50000): Kafka +92, controller +93, REST +81, RPC +123, Prometheus
# JM +249, TM +250; the stack lives in deploy/local/.work/soak (URLDEDUP_STACK_DIR to move it).
# Bounded: gives up 5 min after the drive should have ended (--minutes + drain), and 30 min
# after --minutes in all; always stops what it started.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
# shellcheck source=../script-lib.sh
source "$REPO/deploy/script-lib.sh"

MINUTES=""
RATE=20000
FILTER=stable
MEMORY=16m
CKPT=10s
WARMUP=""
OUTDIR="$REPO/docs/soak"
PLOT_ONLY=""

usage() { header_usage "$0"; }
bad() { echo "soak: $1" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) MINUTES="${2:-}"; shift 2 ;;
    --rate) RATE="${2:-}"; shift 2 ;;
    --filter) FILTER="${2:-}"; shift 2 ;;
    --memory) MEMORY="${2:-}"; shift 2 ;;
    --checkpoint-interval) CKPT="${2:-}"; shift 2 ;;
    --warmup-minutes) WARMUP="${2:-}"; shift 2 ;;
    --out) OUTDIR="${2:-}"; shift 2 ;;
    --plot) PLOT_ONLY="${2:-}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; bad "unknown flag '$1'" ;;
  esac
done

# ---------------------------------------------------------------- plots (also --plot DIR)
plot() {
  local dir="$1" csv="$1/soak.csv" ckpt_s="$2" warm="$3"
  command -v gnuplot >/dev/null || install_gnuplot
  [ -s "$csv" ] || bad "--plot: no $csv"
  local common="set datafile separator ','; set key outside top center horizontal; set grid;
    set xlabel 'minutes'; set terminal pngcairo noenhanced size 1000,420 font 'DejaVu Sans,10';
    set arrow from $warm, graph 0 to $warm, graph 1 nohead dt 2 lc rgb 'gray'; set xrange [0:*]"
  # columns: see the CSV header written by run_soak
  gnuplot -e "$common; set output '$dir/throughput.png'; set title 'throughput (records/s) and the machine load';
    set y2label 'load average (1 min)'; set y2tics; set ytics nomirror; set yrange [0:*]; set y2range [0:*];
    plot '$csv' every ::1 using (\$1/60):4 with lines lw 2 title 'produced/s',
         '' every ::1 using (\$1/60):5 with lines lw 2 title 'job in/s',
         '' every ::1 using (\$1/60):6 with lines lw 2 title 'committed output/s',
         '' every ::1 using (\$1/60):(\$3/1000) axes x1y2 with lines lw 1 lc rgb 'gray' title 'load average (right)'"
  gnuplot -e "$common; set output '$dir/latency.png'; set title 'end-to-end latency: Kafka timestamp to read_committed visibility (s)';
    set yrange [0:*];
    plot '$csv' every ::1 using (\$1/60):(\$8/1000) with lines lw 2 title 'p50',
         '' every ::1 using (\$1/60):(\$9/1000) with lines lw 2 title 'p99',
         '' every ::1 using (\$1/60):(\$10/1000) with lines lw 1 title 'max',
         $ckpt_s + 5 with lines dt 2 lw 2 lc rgb 'red' title 'pass bound: checkpoint interval + 5 s'"
  gnuplot -e "$common; set output '$dir/checkpoints.png'; set title 'checkpoints';
    set ylabel 'MiB'; set y2label 'duration (ms)'; set y2tics; set ytics nomirror; set yrange [0:*]; set y2range [0:*];
    plot '$csv' every ::1 using (\$1/60):(\$14/1048576) with lines lw 2 title 'full state size (MiB)',
         '' every ::1 using (\$1/60):(\$15/1048576) with lines lw 1 title 'incremental size (MiB)',
         '' every ::1 using (\$1/60):13 axes x1y2 with lines lw 1 title 'duration (ms, right)'"
  gnuplot -e "$common; set output '$dir/memory.png'; set title 'TaskManager memory (MiB)'; set yrange [0:*];
    plot '$csv' every ::1 using (\$1/60):(\$16/1048576) with lines lw 1 title 'heap used',
         '' every ::1 using (\$1/60):(\$17/1048576) with lines lw 2 title 'RSS',
         '' every ::1 using (\$1/60):(\$18/1048576) with lines lw 2 title 'RocksDB block cache incl. memtables (managed memory)',
         '' every ::1 using (\$1/60):(\$20/1048576) with lines lw 1 title 'RocksDB memtables'"
  gnuplot -e "$common; set output '$dir/backpressure.png'; set title 'backpressure and lag';
    set ylabel 'ms/s'; set y2label 'records'; set y2tics; set ytics nomirror; set yrange [0:1000]; set y2range [0:*];
    plot '$csv' every ::1 using (\$1/60):19 with lines lw 2 title 'max backPressuredTimeMsPerSecond',
         '' every ::1 using (\$1/60):7 axes x1y2 with lines lw 1 title 'job lag, records (right)'"
}

# trends CSV WARMUP_MIN: one PASS/FAIL line per series (heap, RSS, full checkpoint size). Heap (GC),
# RSS and RocksDB's checkpoint size (compaction) are sawtooth curves, so a mean over a window
# depends on where the teeth fall; what grows in a leak is the envelope. After the warm-up the
# samples are cut into thirds; the series grows when its floor (minimum) or its ceiling (maximum)
# in the last third exceeds that of the first third by more than 10% of the series' mean. The
# least-squares slope is printed too (MiB per hour), for the reader.
trends() {
  local csv="$1" warm=$(( $2 * 60 )) spec
  for spec in "16 heap" "17 rss" "14 checkpoint_full_size"; do
    set -- $spec
    awk -F, -v col="$1" -v name="$2" -v warm="$warm" 'NR > 1 && $1 >= warm && $col != "" && $4 != "" {
        x[n] = $1; v[n++] = $col }
      END {
        if (n < 9) { print "FAIL " name ": too few samples after the warm-up (" n ")"; exit }
        t = int(n / 3); lo1 = hi1 = v[0]; lo3 = hi3 = v[n - 1]; m = 0; mx = 0
        for (i = 0; i < n; i++) { m += v[i]; mx += x[i] }
        m /= n; mx /= n; sxy = 0; sxx = 0
        for (i = 0; i < n; i++) { sxy += (x[i] - mx) * (v[i] - m); sxx += (x[i] - mx) ^ 2 }
        for (i = 0; i < t; i++) { if (v[i] < lo1) lo1 = v[i]; if (v[i] > hi1) hi1 = v[i] }
        for (i = n - t; i < n; i++) { if (v[i] < lo3) lo3 = v[i]; if (v[i] > hi3) hi3 = v[i] }
        grow = (lo3 - lo1 > 0.1 * m || hi3 - hi1 > 0.1 * m)
        printf "%s %s %s: floor %.1f -> %.1f MiB, ceiling %.1f -> %.1f MiB (first -> last third after warm-up; tolerance 10%% of the mean %.1f MiB); slope %+.1f MiB/h\n",
          (grow ? "FAIL" : "PASS"), name, (grow ? "grows" : "no growth"), lo1 / 1048576, lo3 / 1048576,
          hi1 / 1048576, hi3 / 1048576, m / 1048576, (sxx > 0 ? sxy / sxx * 3600 / 1048576 : 0) }' "$csv"
  done
}

install_gnuplot() {
  echo "soak: installing gnuplot-nox (apt-get)" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null 2>&1 \
    || { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnuplot-nox >/dev/null; } \
    || { echo "soak: error: gnuplot is missing and apt-get install gnuplot-nox failed" >&2; exit 1; }
}

duration_s() {
  case "$1" in
    *ms) echo $(( ${1%ms} / 1000 )) ;;
    *min) echo $(( ${1%min} * 60 )) ;;
    *s) echo "${1%s}" ;;
    *m) echo $(( ${1%m} * 60 )) ;;
    *) echo "" ;;
  esac
}

if [ -n "$PLOT_ONLY" ]; then
  [ -f "$PLOT_ONLY/params" ] || bad "--plot: no $PLOT_ONLY/params (written by a soak run)"
  # shellcheck disable=SC1091
  source "$PLOT_ONLY/params"
  plot "$PLOT_ONLY" "$CKPT_S" "$WARMUP"
  trends "$PLOT_ONLY/soak.csv" "$WARMUP" >&2
  echo "soak: plots redrawn in $PLOT_ONLY" >&2
  exit 0
fi

[[ "$MINUTES" =~ ^[0-9]+$ ]] && [ "$MINUTES" -ge 1 ] && [ "$MINUTES" -le 240 ] \
  || bad "--minutes: expected an integer in [1, 240], got '${MINUTES}'"
[[ "$RATE" =~ ^[0-9]+$ ]] && [ "$RATE" -ge 1 ] && [ "$RATE" -le 500000 ] \
  || bad "--rate: expected records/s in [1, 500000], got '$RATE'"
case "$FILTER" in stable|scalable) ;; *) bad "--filter: expected stable or scalable, got '$FILTER'" ;; esac
CKPT_S="$(duration_s "$CKPT")"
[[ "$CKPT_S" =~ ^[0-9]+$ ]] && [ "$CKPT_S" -ge 1 ] || bad "--checkpoint-interval: expected a duration of at least 1s (e.g. 10s, 1min), got '$CKPT'"
# the stable filter's RocksDB checkpoint reached its steady sawtooth at about minute 10 (docs/reliability.md)
[ -n "$WARMUP" ] || WARMUP=$(( MINUTES >= 30 ? 10 : MINUTES / 3 ))
[[ "$WARMUP" =~ ^[0-9]+$ ]] && [ "$WARMUP" -lt "$MINUTES" ] || bad "--warmup-minutes: expected an integer below --minutes, got '$WARMUP'"

BASE="${SOAK_PORT_BASE:-50000}"
export URLDEDUP_STACK_DIR="${URLDEDUP_STACK_DIR:-$HERE/.work/soak}"
export KAFKA_PORT=$(( BASE + 92 )) CONTROLLER_PORT=$(( BASE + 93 )) FLINK_REST_PORT=$(( BASE + 81 ))
export FLINK_RPC_PORT=$(( BASE + 123 )) PROM_JM_PORT=$(( BASE + 249 )) PROM_TM_PORT=$(( BASE + 250 ))
export INPUT_TOPIC=soak.in OUTPUT_TOPIC=soak.out DLQ_TOPIC=soak.dlq GROUP_ID=urldedup-soak
# shellcheck source=stack.sh
source "$HERE/stack.sh"

T0=$(date +%s)
# start-up is bounded by stack.sh's own waits; the drive by this, set when it starts (a start-up
# of 10 min under load once ate a deadline counted from T0)
DEADLINE=$(( T0 + MINUTES * 60 + 1800 ))
JOB_ID=""
DRIVER_PID=""
step_clock soak

# at exit (script-lib.sh's on_exit, last registered first): the driver, the job and the stack
# where they start, then the total
on_exit 'echo "soak: total $(( $(date +%s) - T0 )) s" >&2'

if [ ! -f "$JOB_JAR" ] || [ ! -f "$REPO/samples/target/classes/io/urldedup/samples/SoakDriver.class" ]; then
  step "building job and samples (mvn package -DskipTests)"
  (cd "$REPO" && mvn -B -ntp -q package -DskipTests -pl job,samples -am) >&2
fi
command -v gnuplot >/dev/null || install_gnuplot
fetch

cmd_down >/dev/null 2>&1 || true
rm -rf "$WORK/kafka-data" "$WORK/flink" "$LOGS"
mkdir -p "$LOGS" "$OUTDIR"
on_exit 'stack_teardown soak'
step "starting the stack (ports base $BASE, $WORK)"
cmd_up 2>&1 | sed 's/^/soak: /' >&2

# RocksDB native memory metrics are off by default; they are job-level options.
step "submitting the job: --filter $FILTER --memory $MEMORY --checkpoint-interval $CKPT, RocksDB"
FILTER_FLAGS=(--filter "$FILTER")
[ "$FILTER" = stable ] && FILTER_FLAGS+=(--memory "$MEMORY")
out="$(flink_cli run -d \
  -Dstate.backend.rocksdb.metrics.size-all-mem-tables=true \
  -Dstate.backend.rocksdb.metrics.block-cache-usage=true \
  -Dstate.backend.rocksdb.metrics.estimate-table-readers-mem=true \
  "$JOB_JAR" run --bootstrap-servers "$BOOTSTRAP" --input-topic "$INPUT_TOPIC" \
  --output-topic "$OUTPUT_TOPIC" --dlq-topic "$DLQ_TOPIC" --group-id "$GROUP_ID" \
  --checkpoint-dir "file://$WORK/flink/checkpoints" --state-backend rocksdb \
  --checkpoint-interval "$CKPT" "${FILTER_FLAGS[@]}" 2>&1)" || { echo "$out" >&2; exit 1; }
JOB_ID="$(echo "$out" | grep -oE 'JobID [0-9a-f]{32}' | awk '{print $2}' | tail -n1)"
[ -n "$JOB_ID" ] || { echo "$out" >&2; echo "soak: error: no JobID" >&2; exit 1; }
REST="http://127.0.0.1:$FLINK_REST_PORT"
all_running() { curl -fsS --max-time 3 "$REST/jobs/$JOB_ID" 2>/dev/null | jq -r '[.vertices[].status] | all(. == "RUNNING")' 2>/dev/null; }
for _ in $(seq 1 120); do
  [ "$(all_running)" = true ] && break
  sleep 1
done
[ "$(curl -fsS --max-time 3 "$REST/jobs/$JOB_ID" | jq -r '[.vertices[].status] | all(. == "RUNNING")')" = true ] \
  || { echo "soak: error: job $JOB_ID not running" >&2; exit 1; }
step "job $JOB_ID running; waiting for its first checkpoint"
# A checkpoint triggered while tasks are still deploying is counted as failed ("not all required
# tasks are currently running"): the verdict counts failures from the first completed one on.
ck_counts() { curl -fsS --max-time 3 "$REST/jobs/$JOB_ID/checkpoints" 2>/dev/null | jq -r '"\(.counts.completed) \(.counts.failed)"' 2>/dev/null; }
for _ in $(seq 1 $(( CKPT_S * 3 + 60 ))); do
  read -r c0 FAILED0 <<<"$(ck_counts)"
  [ "${c0:-0}" -ge 1 ] 2>/dev/null && break
  sleep 1
done
[ "${c0:-0}" -ge 1 ] 2>/dev/null || { echo "soak: error: no completed checkpoint" >&2; exit 1; }
step "first checkpoint completed ($FAILED0 trigger failures during deployment)"

CSV="$OUTDIR/soak.csv"
DRIVER_CSV="$WORK/driver.csv"
rm -f "$DRIVER_CSV"
cat >"$OUTDIR/params" <<EOF
# written by deploy/local/soak.sh; --plot reads it
CKPT_S=$CKPT_S
WARMUP=$WARMUP
EOF
echo "elapsed_s,epoch_s,load1_x1000,produced_per_s,job_in_per_s,output_per_s,job_lag,lat_p50_ms,lat_p99_ms,lat_max_ms,ckpt_completed,ckpt_failed,ckpt_duration_ms,ckpt_full_bytes,ckpt_incremental_bytes,heap_used_bytes,tm_rss_bytes,rocksdb_cache_bytes,backpressure_ms_per_s,rocksdb_memtables_bytes" >"$CSV"

step "driving $RATE records/s for $MINUTES min (warm-up $WARMUP min)"
"$JAVA" -Xmx1g -Dlog4j2.configurationFile="$CONF/kafka/tools-log4j2.properties" \
  -cp "$REPO/samples/target/classes:$REPO/state/target/classes:$(kafka_cp)" io.urldedup.samples.SoakDriver \
  --bootstrap-servers "$BOOTSTRAP" --input-topic "$INPUT_TOPIC" --output-topic "$OUTPUT_TOPIC" \
  --rate "$RATE" --seconds $(( MINUTES * 60 )) --warmup-s $(( WARMUP * 60 )) --window-s 10 \
  --drain-s $(( CKPT_S + 30 )) --csv "$DRIVER_CSV" >"$WORK/driver.out" 2>"$LOGS/driver.err" &
DRIVER_PID=$!
on_exit 'kill_started --wait "$DRIVER_PID"'
DEADLINE=$(( $(date +%s) + MINUTES * 60 + CKPT_S + 30 + 300 ))

# prom_sum NAME_REGEX / prom_max NAME_REGEX over the TaskManager's series ("" when none)
prom() { curl -fsS --max-time 3 "http://127.0.0.1:$PROM_TM_PORT/metrics" 2>/dev/null || true; }
prom_agg() {
  awk -v re="$2" -v how="$1" '$1 !~ /^#/ { n = $1; sub(/\{.*/, "", n); if (n ~ re) { v = $NF + 0;
    s += v; if (!f || v > m) m = v; f = 1 } } END { if (f) printf "%.0f\n", (how == "max" ? m : s) }'
}
# RocksDB native memory. With managed memory (Flink's default) each slot has one block cache, shared
# by its column families, and the write buffer manager charges the memtables to it: so the block
# cache usage of a slot is its RocksDB memory (bounded by the slot's managed memory). Every column
# family reports the same cache: counted once per subtask. Memtables alone are a second column.
rocksdb_mem() {
  awk -v what="$1" '$1 !~ /^#/ && $1 ~ ("rocksdb_" what "\\{") { v = $NF + 0; st = $1
    sub(/.*subtask_index="/, "", st); sub(/".*/, "", st); f = 1
    if (what == "block_cache_usage") { if (v > m[st]) m[st] = v } else s += v }
    END { for (k in m) s += m[k]; if (f) printf "%.0f\n", s }'
}
START=$(date +%s)
prev_in=""; prev_t=""
while kill -0 "$DRIVER_PID" 2>/dev/null; do
  [ "$(date +%s)" -lt "$DEADLINE" ] || { echo "soak: error: deadline passed" >&2; exit 1; }
  sleep 10
  now=$(date +%s)
  metrics="$(prom)"
  # every record read ends up emitted, a duplicate or invalid (README: in = emitted + duplicates + invalid)
  in_total="$(echo "$metrics" | prom_agg sum '^flink_taskmanager_job_task_operator_urldedup_(emitted|duplicates|invalid)$')"
  in_rate=""
  if [ -n "$in_total" ] && [ -n "$prev_in" ]; then in_rate=$(( (in_total - prev_in) / (now - prev_t) )); fi
  [ -n "$in_total" ] && { prev_in="$in_total"; prev_t="$now"; }
  heap="$(echo "$metrics" | prom_agg sum '^flink_taskmanager_Status_JVM_Memory_Heap_Used$')"
  rocks="$(echo "$metrics" | rocksdb_mem block_cache_usage)"
  memtables="$(echo "$metrics" | rocksdb_mem size_all_mem_tables)"
  bp="$(echo "$metrics" | prom_agg max '^flink_taskmanager_job_task_backPressuredTimeMsPerSecond$')"
  rss=$(( $(awk '/^VmRSS:/ { print $2 }' "/proc/$(pid_of taskmanager)/status" 2>/dev/null || echo 0) * 1024 ))
  ck="$(curl -fsS --max-time 3 "$REST/jobs/$JOB_ID/checkpoints" 2>/dev/null \
    | jq -r '[.counts.completed, .counts.failed, (.latest.completed.end_to_end_duration // ""),
              (.latest.completed.state_size // ""), (.latest.completed.checkpointed_size // "")] | map(tostring) | join(",")' 2>/dev/null || echo ",,,,")"
  d="$(tail -n1 "$DRIVER_CSV" 2>/dev/null || true)"
  IFS=, read -r _ _ prod_rate _ out_rate p50 p99 pmax <<<"${d:-,,,,,,,}"
  # the Kafka source's own lag (FLIP-33 pendingRecords: end offset minus position, per split)
  lag="$(echo "$metrics" | prom_agg sum '^flink_taskmanager_job_task_operator_pendingRecords$')"
  load="$(awk '{ printf "%.0f", $1 * 1000 }' /proc/loadavg)"
  echo "$(( now - START )),$now,$load,$prod_rate,$in_rate,$out_rate,$lag,$p50,$p99,$pmax,$ck,$heap,$rss,$rocks,$bp,$memtables" >>"$CSV"
  if (( (now - START) % 300 < 10 )); then
    step "sample: $(tail -n1 "$CSV")"
  fi
done
wait "$DRIVER_PID" || true
DRIVER_PID=""
DRIVER_SUMMARY="$(cat "$WORK/driver.out")"
step "$DRIVER_SUMMARY"
FINAL_CK="$(curl -fsS --max-time 3 "$REST/jobs/$JOB_ID/checkpoints" | jq -c '{completed: .counts.completed, failed: .counts.failed}')"
JOB_STATE="$(job_state "$JOB_ID")"
RESTARTS="$(curl -fsS --max-time 3 "$REST/jobs/$JOB_ID/exceptions" | jq -r '(.exceptionHistory.entries // []) | length')"

# ---------------------------------------------------------------- verdict
kv() { echo "$DRIVER_SUMMARY" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
P99="$(kv lat_p99_ms)"
PRODUCED="$(kv produced)"
FAILED_CK=$(( $(echo "$FINAL_CK" | jq -r .failed) - FAILED0 ))
{
  echo "# soak verdict ($(date -u +%FT%TZ))"
  echo "command: deploy/local/soak.sh --minutes $MINUTES --rate $RATE --filter $FILTER --memory $MEMORY --checkpoint-interval $CKPT --warmup-minutes $WARMUP"
  echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB; load average over the run (1-min, min/mean/max): $(awk -F, 'NR > 1 { v = $3 / 1000; s += v; n++; if (n == 1 || v < lo) lo = v; if (v > hi) hi = v } END { printf "%.2f/%.2f/%.2f", lo, s / n, hi }' "$CSV")"
  echo "driver: $DRIVER_SUMMARY"
  echo "job: state $JOB_STATE, exceptions $RESTARTS, checkpoints $FINAL_CK ($FAILED0 trigger failures while deploying)"
  awk -F, -v warm=$(( WARMUP * 60 )) 'NR > 1 && $1 >= warm && $4 > 0 { n++; p += $4; i += $5; o += $6; d += $13;
      if ($13 > dm) dm = $13; bp += $19; if ($19 > bpm) bpm = $19; lag = $7; if ($7 > lagm) lagm = $7
      if ($17 > rss) rss = $17; if ($18 > rc) rc = $18 }
    END { if (n) printf "after warm-up (%d samples while producing): produced %.0f/s, job in %.0f/s, output %.0f/s; lag last %d max %d records; checkpoint duration mean %.0f max %.0f ms; backpressure mean %.0f max %.0f ms/s; TM RSS max %.0f MiB; RocksDB cache max %.0f MiB\n",
      n, p / n, i / n, o / n, lag, lagm, d / n, dm, bp / n, bpm, rss / 1048576, rc / 1048576 }' "$CSV"
  [ "$FAILED_CK" = 0 ] && echo "PASS no failed checkpoint after the first completed one" || echo "FAIL failed checkpoints: $FAILED_CK"
  [ "$RESTARTS" = 0 ] && echo "PASS no job restart" || echo "FAIL job exceptions/restarts: $RESTARTS"
  bound=$(( (CKPT_S + 5) * 1000 ))
  if [ -n "$P99" ] && [ "$P99" -ge 0 ] && [ "$P99" -le "$bound" ]; then echo "PASS p99 latency ${P99} ms <= checkpoint interval + 5 s = $bound ms"
  elif [ "${P99:--1}" -lt 0 ]; then echo "FAIL p99 latency: no record produced after the warm-up became visible before the end"
  else echo "FAIL p99 latency ${P99} ms > $bound ms"; fi
  want=$(( RATE * MINUTES * 60 ))
  if [ -n "$PRODUCED" ] && [ "$PRODUCED" -ge $(( want * 99 / 100 )) ]; then echo "PASS producer kept the rate: $PRODUCED of $want records"
  else echo "FAIL producer fell behind: ${PRODUCED:-?} of $want records"; fi
  trends "$CSV" "$WARMUP"
} >"$OUTDIR/verdict.txt"
VERDICT=PASS
grep -q '^FAIL' "$OUTDIR/verdict.txt" && VERDICT=FAIL
echo "verdict: $VERDICT" >>"$OUTDIR/verdict.txt"
cat "$OUTDIR/verdict.txt" >&2
plot "$OUTDIR" "$CKPT_S" "$WARMUP"
step "CSV, verdict and plots in $OUTDIR"
[ "$VERDICT" = PASS ]
