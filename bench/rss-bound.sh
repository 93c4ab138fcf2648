#!/usr/bin/env bash
# RSS of a silo written ten times its memory budget, against the budget (issue 15).
# usage: bench/rss-bound.sh [native|managed] [budget-bytes]     (needs redis-benchmark and a Release build)
#
# The silo's fixed overhead is its RSS once it has run the load's code paths with nothing stored: redis-benchmark writes
# 2 x budget of 1 KiB values, and at least 400,000 of them, on the same 32 connections (so writes evict, eviction's code
# is compiled and its threads started, and the JIT's second tier has finished: its arenas took 3 MiB of malloc in the
# first seconds of load, measured with heaptrack), then FLUSHALL and MEMORY PURGE give the entries' memory back, and
# the RSS 11 s later (past one C-heap trim) is the base. It also prints the RSS of the silo just started, before any load. Then redis-benchmark
# writes 10 x budget and the peak RSS is sampled every 0.2 s; growth is peak minus base, against the issue's bound of
# budget + 10 %. INFO's used_memory, maxmemory and evicted_keys follow.
set -euo pipefail
store=${1:-native}
budget=${2:-67108864}
port=${PORT:-16391}
root=$(cd "$(dirname "$0")/.." && pwd)
silo="$root/silo/Cubby.Silo/bin/Release/net10.0/Cubby.Silo.dll"
[ -f "$silo" ] || { echo "build first: dotnet build -c Release silo/Cubby.Silo" >&2; exit 1; }

Cubby__Store=$store Cubby__MaxMemoryBytes=$budget Cubby__RespPort=$port Cubby__HttpPort=$((port + 1)) \
  Cubby__Clustering__SiloPort=0 Cubby__Clustering__GatewayPort=0 \
  dotnet "$silo" > /dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.2; done

rss() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$pid/status"; }
mib() { echo $(( $1 / 1048576 )); }
write() { redis-benchmark -p "$port" -t set -d 1024 -r 100000000 -n "$1" -c 32 -P 16 -q 2>&1 | tr '\r' '\n' | grep -v '^$' | tail -1; }
values() { echo $(( budget * $1 / 1024 )); }

started=$(rss)
warmup=$(values 2); write $(( warmup > 400000 ? warmup : 400000 )) > /dev/null
redis-cli -p "$port" flushall > /dev/null
redis-cli -p "$port" memory purge > /dev/null
sleep 11
base=$(rss)

samples=$(mktemp)
( while kill -0 $pid 2> /dev/null; do rss; sleep 0.2; done ) > "$samples" &
sampler=$!
write "$(values 10)"
rss >> "$samples"
kill $sampler
peak=$(sort -n "$samples" | tail -1)
rm -f "$samples"

echo "store=$store budget=$(mib "$budget") MiB started_rss=$(mib "$started") MiB base_rss=$(mib "$base") MiB peak_rss=$(mib "$peak") MiB growth=$(mib $(( peak - base ))) MiB bound(budget+10%)=$(mib $(( budget * 11 / 10 ))) MiB"
redis-cli -p "$port" info memory | grep -E '^(used_memory|maxmemory|maxmemory_kept_for_reuse|gc_committed_bytes|allocator_allocated):' | tr -d '\r'
redis-cli -p "$port" info stats | grep -E '^evicted_keys:' | tr -d '\r'
