#!/usr/bin/env bash
# Retakes the README's dashboard screenshots: three silos on Development clustering (the README's ports 7001-7003,
# 8001-8003), a few minutes of redis-benchmark load on each, then headless Chromium on the Orleans dashboard and the
# cache page. Needs redis-tools and chromium. Usage: bash docs/screenshots.sh [load-seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-150}
dotnet build silo/Cubby.Silo -c Release -v q -nologo >/dev/null
silo=silo/Cubby.Silo/bin/Release/net10.0/Cubby.Silo.dll
logs=$(mktemp -d)
echo "Silo logs: $logs"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; pkill -P $$ 2>/dev/null; wait 2>/dev/null' EXIT
for i in 1 2 3; do
  join=(); [ "$i" -gt 1 ] && join=(--Cubby:Clustering:PrimaryEndpoint 127.0.0.1:11111)
  dotnet "$silo" --Cubby:Clustering:Mode Development --Cubby:RespPort 700$i --Cubby:HttpPort 800$i \
    --Cubby:Clustering:SiloPort 1111$i --Cubby:Clustering:GatewayPort 3000$i --Cubby:MaxMemoryBytes 16777216 \
    --Cubby:Dashboard:Enabled true \
    --Logging:LogLevel:Default Warning "${join[@]}" >"$logs/silo-$i.log" 2>&1 &
  pids+=($!)
  until curl -sf "http://127.0.0.1:800$i/health" >/dev/null; do sleep 0.5; done
done

# Opening the dashboard's API turns on Orleans' grain-call profiling, so the grain pages have calls to show.
curl -sf http://127.0.0.1:8001/dashboard/DashboardCounters >/dev/null
end=$((SECONDS + seconds))
for i in 1 2 3; do
  (
    while true; do
      # Writes that expire after 20 s, reads over a wider key range (so some miss), and 1 KiB writes that do not
      # expire, over more keys than the 16 MiB budgets hold (so, after a minute or so, some are evicted).
      redis-benchmark -p 700$i -c 4 -n 20000 -r 40000 -q SET "key:__rand_int__" value EX 20 >/dev/null || true
      redis-benchmark -p 700$i -c 4 -n 30000 -r 60000 -q GET "key:__rand_int__" >/dev/null || true
      redis-benchmark -p 700$i -c 2 -n 5000 -r 200000 -d 1024 -q -t set >/dev/null || true
    done
  ) &
  pids+=($!)
done
while [ $SECONDS -lt $end ]; do
  curl -sf http://127.0.0.1:8001/dashboard/DashboardCounters >/dev/null
  sleep 5
done

shot() { chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,"$2" --virtual-time-budget=6000 --screenshot="$1" "$3" 2>/dev/null; }
shot docs/cache-page.png 1250 "http://127.0.0.1:8001/dashboard/cache/"
shot docs/orleans-dashboard.png 1000 "http://127.0.0.1:8001/dashboard/#/grains"
shot docs/orleans-dashboard-silos.png 1000 "http://127.0.0.1:8001/dashboard/#/silos"
echo "Wrote docs/orleans-dashboard.png, docs/orleans-dashboard-silos.png and docs/cache-page.png"
