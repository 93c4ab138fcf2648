#!/usr/bin/env bash
# How much of one core an idle silo uses: starts it with no keys and no clients and reads its CPU time
# (/proc/<pid>/stat) over a window 40 s after start and again two minutes after start.
# Usage: bench/idle-cpu.sh [path/to/Cubby.Silo.dll] [port base, default 7100] [window seconds, default 20] [silo settings...]
# e.g. bench/idle-cpu.sh "" 7100 30 --Cubby:Dashboard:Enabled true
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dll="${1:-$root/silo/Cubby.Silo/bin/Release/net10.0/Cubby.Silo.dll}"
base="${2:-7100}"
window="${3:-20}"
[ -f "$dll" ] || dotnet build "$root/silo/Cubby.Silo" -c Release >/dev/null
dotnet "$dll" --Cubby:RespPort "$base" --Cubby:HttpPort $((base + 1)) --Cubby:Clustering:SiloPort $((base + 2)) \
  --Cubby:Clustering:GatewayPort $((base + 3)) --Logging:LogLevel:Default Warning "${@:4}" >/dev/null 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
ticks=$(getconf CLK_TCK)
for _ in $(seq 1 150); do (exec 3<>/dev/tcp/127.0.0.1/"$base") 2>/dev/null && break; sleep 0.2; done
start=$(date +%s)
for mark in 40 120; do
  sleep $((start + mark - $(date +%s)))
  before=$(awk '{print $14 + $15}' /proc/$pid/stat)
  sleep "$window"
  after=$(awk '{print $14 + $15}' /proc/$pid/stat)
  echo "${mark} s after start: $(awk -v a="$after" -v b="$before" -v t="$ticks" -v w="$window" 'BEGIN { printf "%.2f", (a - b) * 100 / t / w }') % of a core over ${window} s"
done
