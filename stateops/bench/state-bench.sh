#!/usr/bin/env bash
# Bootstrap throughput, savepoint size per URL and inspect time, for N synthetic distinct URLs and
# both state backends. Usage: stateops/bench/state-bench.sh N [hashmap|rocksdb ...]
# Writes its files under ${STATE_BENCH_DIR:-/tmp/urldedup-state-bench}; prints one result line per
# backend. No ports. Sizing: --capacity N (one slice per shard), default 128 shards, --fpr 0.01.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
n="${1:?usage: state-bench.sh N [backend ...]}"
shift
backends=("${@:-hashmap rocksdb}")
[ $# -gt 0 ] || backends=(hashmap rocksdb)
work="${STATE_BENCH_DIR:-/tmp/urldedup-state-bench}"
mkdir -p "$work"
input="$work/urls-$n.txt"
if [ ! -s "$input" ]; then
  # distinct URLs over 10,000 hosts; deterministic
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "https://host%d.example/page/%d?q=%d\n", i % 10000, i, i * 7 }' > "$input"
fi
export URLDEDUP_HASH_SEED="${URLDEDUP_HASH_SEED:-0x5747e0b5}"
for backend in "${backends[@]}"; do
  dir="$work/state-$backend-$n"
  rm -rf "$dir"
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  start=$(date +%s.%N)
  "$root/urldedup" bootstrap --input "$input" --state "$dir" --state-backend "$backend" --capacity "$n" \
    --max-memory 8g 2> "$work/bootstrap-$backend-$n.log"
  end=$(date +%s.%N)
  bytes=$(du -sb "$dir" | cut -f1)
  istart=$(date +%s.%N)
  "$root/urldedup" inspect --state "$dir" --json > "$work/inspect-$backend-$n.json"
  iend=$(date +%s.%N)
  awk -v b="$backend" -v n="$n" -v s="$start" -v e="$end" -v by="$bytes" -v is="$istart" -v ie="$iend" -v l="$load" \
    'BEGIN { printf "%s n=%d bootstrap_wall=%.1fs urls_per_s=%.0f savepoint_bytes=%d bytes_per_url=%.2f inspect_wall=%.1fs load=%s\n",
      b, n, e - s, n / (e - s), by, by / n, ie - is, l }'
  grep "urldedup: bootstrap" "$work/bootstrap-$backend-$n.log" || cat "$work/bootstrap-$backend-$n.log"
done
