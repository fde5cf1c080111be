#!/usr/bin/env bash
# Whole-job benchmark: urldedup against the keyed exact dedup a Flink user writes today.
#
#   jobbench/run.sh OUTDIR [records] [jobs] [backends]
#     records   lines of generated crawl stream (default 10000000; unique URLs = records/2)
#     jobs      comma list of identity,exact,stable,scalable (default all four)
#     backends  comma list of hashmap,rocksdb (default both)
#
# Each (job, backend) runs in its own JVM with its own mini-cluster, checkpointing every 10 s
# (incremental on RocksDB), and writes OUTDIR/<job>-<backend>.properties; OUTDIR/report.md has the
# side-by-side table. The input and truth files are made once under $JOBBENCH_DATA
# (default /tmp/urldedup-jobbench), never in the repository.
#
# Environment: JOBBENCH_UNIQUE (unique URLs, default records/2), JOBBENCH_SEED (42),
# JOBBENCH_XMX (4g), JOBBENCH_TIMEOUT (per run, seconds, 1800), JOBBENCH_INTERVAL (10s),
# JOBBENCH_FLAGS (extra flags for every run), JOBBENCH_STABLE_FLAGS (--memory 16m),
# JOBBENCH_SCALABLE_FLAGS (--capacity <unique URLs + 10%>; every other setting is the job's default),
# JOBBENCH_URLDEDUP_INCREMENTAL (true; false: full checkpoints for the urldedup runs), JOBBENCH_JFR=1,
# JOBBENCH_SKIP_BUILD=1, JOBBENCH_LIB (an earlier OUTDIR/lib: run that code, e.g. a baseline),
# JOBBENCH_BASE (an earlier OUTDIR, e.g. the parallelism 1 runs: the report adds each rate against it).
# JOBBENCH_FLAGS="--parallelism P" reads the file as P byte ranges (one reader each) and runs P
# keyed subtasks, each with its own sink writer.
set -euo pipefail
# shellcheck source=../deploy/script-lib.sh
source "$(dirname "$0")/../deploy/script-lib.sh"

if [[ $# -lt 1 || "$1" == -h || "$1" == --help ]]; then
  header_usage "$0"
  exit 2
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
RECORDS=${2:-10000000}
JOBS=${3:-identity,exact,stable,scalable}
BACKENDS=${4:-hashmap,rocksdb}
UNIQUE=${JOBBENCH_UNIQUE:-$((RECORDS / 2))}
SEED=${JOBBENCH_SEED:-42}
XMX=${JOBBENCH_XMX:-4g}
TIMEOUT=${JOBBENCH_TIMEOUT:-1800}
INTERVAL=${JOBBENCH_INTERVAL:-10s}
DATA=${JOBBENCH_DATA:-/tmp/urldedup-jobbench}
STABLE_FLAGS=${JOBBENCH_STABLE_FLAGS:---memory 16m}
# capacity with 10% headroom: at exactly the expected count most shards spill a few URLs into a
# second slice twice the size of the first
SCALABLE_FLAGS=${JOBBENCH_SCALABLE_FLAGS:---capacity $((UNIQUE + UNIQUE / 10))}
URLDEDUP_INCREMENTAL=${JOBBENCH_URLDEDUP_INCREMENTAL:-true}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shared with scale.sh: builds, copies the jars to $OUT/lib (or takes $JOBBENCH_LIB), sets JAVA
source jobbench/java-env.sh

# ---- input: generated once per (records, unique, seed) ----
mkdir -p "$DATA"
BASE="$DATA/crawl-$RECORDS-$UNIQUE-$SEED"
BITS="$BASE.pages.bits"  # first-occurrence bits and page ids (TruthBits)
if [[ ! -f "$BITS" ]]; then
  echo "generating $RECORDS lines, $UNIQUE unique URLs into $BASE.txt ..." >&2
  "${JAVA[@]}" io.urldedup.samples.CrawlStreamGenerator --lines "$RECORDS" --unique-target "$UNIQUE" \
    --seed "$SEED" --output "$BASE.txt.tmp" --truth "$BASE.truth.tmp" >&2
  "${JAVA[@]}" io.urldedup.jobbench.TruthBits "$BASE.truth.tmp" "$BITS.tmp" >&2
  mv "$BASE.txt.tmp" "$BASE.txt"
  rm -f "$BASE.truth.tmp"  # the bit set and page ids are all the sink needs
  mv "$BITS.tmp" "$BITS"
fi

# ---- machine and load ----
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "cores=$(nproc)"
  echo "memory=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "java=$(java -version 2>&1 | head -2 | tr '\n' ' ')"
  echo "records=$RECORDS"
  echo "unique=$UNIQUE"
  echo "seed=$SEED"
  echo "xmx=$XMX"
  echo "interval=$INTERVAL"
  echo "loadBefore=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.properties"

# ---- the runs ----
IFS=, read -r -a JOB_LIST <<< "$JOBS"
IFS=, read -r -a BACKEND_LIST <<< "$BACKENDS"
for backend in "${BACKEND_LIST[@]}"; do
  for job in "${JOB_LIST[@]}"; do
    name="$job-$backend"
    work="$DATA/work-$$-$name"  # per invocation: concurrent invocations must not share it
    rm -rf "$work"
    flags=(${JOBBENCH_FLAGS:-})
    case "$job" in
      stable) flags+=($STABLE_FLAGS --incremental "$URLDEDUP_INCREMENTAL") ;;
      scalable) flags+=($SCALABLE_FLAGS --incremental "$URLDEDUP_INCREMENTAL") ;;
    esac
    jfr=()
    if [[ "${JOBBENCH_JFR:-0}" == 1 ]]; then
      jfr=("-XX:StartFlightRecording=filename=$OUT/$name.jfr,settings=profile,dumponexit=true")
    fi
    echo "== $name (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    load0=$(cut -d' ' -f1 /proc/loadavg)
    set +e
    timeout --kill-after=30 "$((TIMEOUT + 60))" "${JAVA[@]}" "${jfr[@]}" io.urldedup.jobbench.JobBench \
      --job "$job" --backend "$backend" --input "$BASE.txt" --truth-bits "$BITS" \
      --work "$work" --out "$OUT/$name.properties" --interval "$INTERVAL" --timeout "${TIMEOUT}s" \
      "${flags[@]}" > "$OUT/$name.log" 2>&1
    rc=$?
    set -e
    echo "loadStart=$load0" >> "$OUT/$name.properties"
    echo "loadEnd=$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/$name.properties"
    if [[ $rc != 0 ]]; then
      echo "   exit $rc, see $OUT/$name.log" >&2
      [[ -s "$OUT/$name.properties" ]] || echo "status=exit $rc" > "$OUT/$name.properties"
    fi
    grep -E '^(status|recordsPerSecond|ckptBytesPerUnique|vmHwmKb|fpr|fnRate)=' "$OUT/$name.properties" \
      | tr '\n' ' ' >&2 || true; echo >&2
    rm -rf "$work"
  done
done
echo "loadAfter=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.properties"
"${JAVA[@]}" io.urldedup.jobbench.Report "$OUT" ${JOBBENCH_BASE:-} > "$OUT/report.md"
cat "$OUT/report.md"
