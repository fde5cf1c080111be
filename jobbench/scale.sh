#!/usr/bin/env bash
# The scale rehearsal (issue 23): ScaleBench per checkpoint layout, then the plots.
#
#   jobbench/scale.sh OUTDIR DISTINCT [N,...]
#     DISTINCT  new URLs of the build-up phase (e.g. 100000000, 1000000000)
#     N,...     --materialize-every values to compare (default 1,10; 1 is the layout that writes
#               every changed page at every checkpoint)
#
# Each run: its own JVM and mini-cluster, RocksDB, scalable filter at 1% (capacity
# SCALE_CAPACITY, default DISTINCT / 10, so the chain grows; a capacity above DISTINCT plus the
# steady phase's new URLs keeps one slice), build-up as fast as the job goes, then
# SCALE_STEADY_RATE records/s (100000; three in four are new URLs, so 133334 is 10^5 new URLs/s)
# for SCALE_STEADY_CHECKPOINTS checkpoints (16) at SCALE_INTERVAL (10s); cancel; restore
# from the retained checkpoint. Writes OUTDIR/n<N>.{properties,series.csv,checkpoints.csv,log} and
# OUTDIR/*.png. Bounded: SCALE_TIMEOUT seconds per run (7200).
# Environment: SCALE_XMX (8g), SCALE_MANAGED (RocksDB's memory, 2g), SCALE_FLAGS (more job flags),
# JOBBENCH_SKIP_BUILD=1, JOBBENCH_LIB (see java-env.sh).
set -euo pipefail
# shellcheck source=../deploy/script-lib.sh
source "$(dirname "$0")/../deploy/script-lib.sh"
if [[ $# -lt 2 || "$1" == -h || "$1" == --help ]]; then
  header_usage "$0"
  exit 2
fi
OUT=$(mkdir -p "$1" && cd "$1" && pwd)
DISTINCT=$2
LAYOUTS=${3:-1,10}
XMX=${SCALE_XMX:-8g}
TIMEOUT=${SCALE_TIMEOUT:-7200}
cd "$(dirname "$0")/.."
source jobbench/java-env.sh

{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  echo "cores=$(nproc)"
  echo "memory=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
  echo "distinct=$DISTINCT"
  echo "loadBefore=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT/machine.properties"

IFS=, read -r -a NS <<< "$LAYOUTS"
for n in "${NS[@]}"; do
  work="${TMPDIR:-/tmp}/urldedup-scale-$$-n$n"
  rm -rf "$work"
  echo "== n=$n (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  set +e
  timeout --kill-after=60 "$((TIMEOUT + 600))" "${JAVA[@]}" io.urldedup.jobbench.ScaleBench \
    --distinct "$DISTINCT" --work "$work" --out "$OUT/n$n" --timeout "${TIMEOUT}s" \
    --interval "${SCALE_INTERVAL:-10s}" --steady-rate "${SCALE_STEADY_RATE:-100000}" \
    --steady-checkpoints "${SCALE_STEADY_CHECKPOINTS:-16}" --managed "${SCALE_MANAGED:-2g}" \
    --capacity "${SCALE_CAPACITY:-$((DISTINCT / 10))}" --max-memory "$((DISTINCT * 4 / 1048576 + 1024))m" --materialize-every "$n" ${SCALE_FLAGS:-} > "$OUT/n$n.log" 2>&1
  rc=$?
  set -e
  echo "loadEnd=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/n$n.properties"
  [[ $rc == 0 ]] || echo "   exit $rc, see $OUT/n$n.log" >&2
  grep -E '^(status|buildRecordsPerSecond|steadyMeanCheckpointedBytes|steadyMeanOverBound|restoreMarkSeconds|checkpointsFailed)=' \
    "$OUT/n$n.properties" | tr '\n' ' ' >&2 || true; echo >&2
  rm -rf "$work"
done
echo "loadAfter=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/machine.properties"
"${JAVA[@]}" io.urldedup.jobbench.ScalePlots "$OUT"
