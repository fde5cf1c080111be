#!/usr/bin/env bash
# Bootstrap throughput, savepoint size per URL, inspect time and peak memory, for N synthetic
# distinct URLs and the given state backends.
#   Usage: stateops/bench/state-bench.sh N [hashmap|rocksdb ...]
# Run it under the CPU lock (flock /tmp/cpu.lock ...). Before timing anything it runs
# ./urldedup version (which rebuilds the launcher's jar if sources are newer) and, per backend, an
# N=1 bootstrap and inspect: the fixed cost (JVM, MiniCluster, job start) to subtract.
# Extra flags for bootstrap (e.g. --parallelism 2) go in STATE_BENCH_ARGS; JVM options in
# URLDEDUP_JAVA_OPTS as for ./urldedup. Files go under ${STATE_BENCH_DIR:-/tmp/urldedup-state-bench}.
# No ports. Sizing: --capacity N (one slice per shard), 128 shards, --fpr 0.01.
# One line per backend and N: wall times, URLs/s, savepoint bytes, peak RSS, load at start and end.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
n="${1:?usage: state-bench.sh N [backend ...]}"
shift
backends=("$@")
[ $# -gt 0 ] || backends=(hashmap rocksdb)
work="${STATE_BENCH_DIR:-/tmp/urldedup-state-bench}"
extra=(${STATE_BENCH_ARGS:-})
mkdir -p "$work"
export URLDEDUP_HASH_SEED="${URLDEDUP_HASH_SEED:-0x5747e0b5}"

# the launcher rebuilds its jar when sources are newer: never inside a timed run
"$root/urldedup" version >&2

urls() { # N distinct URLs over 10,000 hosts; deterministic
  local f="$work/urls-$1.txt"
  if [ ! -s "$f" ]; then
    awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "https://host%d.example/page/%d?q=%d\n", i % 10000, i, i * 7 }' > "$f"
  fi
  echo "$f"
}

# run_one N BACKEND: prints one result line
run_one() {
  local count="$1" backend="$2" input dir load0 load1 start end istart iend bytes rss
  input="$(urls "$count")"
  dir="$work/state-$backend-$count"
  rm -rf "$dir"
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/rss-$backend-$count" "$root/urldedup" bootstrap --input "$input" --state "$dir" \
    --state-backend "$backend" --capacity "$(( count < 128 ? 128 : count ))" --max-memory 8g "${extra[@]}" \
    2> "$work/bootstrap-$backend-$count.log"
  end=$(date +%s.%N)
  rss=$(tail -1 "$work/rss-$backend-$count")
  bytes=$(du -sb "$dir" | cut -f1)
  istart=$(date +%s.%N)
  "$root/urldedup" inspect --state "$dir" --json > "$work/inspect-$backend-$count.json" \
    2> "$work/inspect-$backend-$count.log"
  iend=$(date +%s.%N)
  load1=$(cut -d' ' -f1-3 /proc/loadavg)
  awk -v b="$backend" -v n="$count" -v s="$start" -v e="$end" -v by="$bytes" -v is="$istart" -v ie="$iend" \
      -v l0="$load0" -v l1="$load1" -v rss="$rss" -v args="${extra[*]:-}" \
    'BEGIN { printf "%s n=%d %s bootstrap_wall=%.1fs urls_per_s=%.0f savepoint_bytes=%d bytes_per_url=%.2f bootstrap_peak_rss=%.0fMiB inspect_wall=%.1fs load_start=%s load_end=%s\n",
      b, n, args, e - s, n / (e - s), by, by / n, rss / 1024, ie - is, l0, l1 }'
  grep "urldedup: bootstrap" "$work/bootstrap-$backend-$count.log" || cat "$work/bootstrap-$backend-$count.log"
}

# results also go to $work/results.txt (appended), as the lines above
exec > >(tee -a "$work/results.txt")

echo "# $(date -u +%FT%TZ) state-bench.sh $n ${backends[*]} ${extra[*]:-}"
for backend in "${backends[@]}"; do
  echo "# fixed cost (N=1):"
  run_one 1 "$backend"
  run_one "$n" "$backend"
done
