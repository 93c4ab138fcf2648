#!/usr/bin/env bash
# Retakes the Aspire dashboard screenshots in docs/: runs the AppHost (PostgreSQL, three silos, the sample web app),
# prints how long it took for every resource to be healthy, sends the web app a request that reads Cubby, then drives Debian's Chromium with playwright-core over the dashboard.
# Needs chromium, postgresql and npm. Usage: bash docs/aspire-screenshots.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dotnet build aspire/Cubby.AppHost -c Release -v q -nologo >/dev/null
tools=$(mktemp -d)
(cd "$tools" && npm install --silent playwright-core@1.64.1 >/dev/null)
log=$(mktemp)
started=$SECONDS
dotnet run --project aspire/Cubby.AppHost -c Release --no-build >"$log" 2>&1 &
apphost=$!
trap 'kill -TERM "$apphost" 2>/dev/null; wait "$apphost" 2>/dev/null; rm -rf "$tools"' EXIT
until curl -sf http://localhost:18888/ >/dev/null; do sleep 1; done

# The web app is healthy once it answers; its port is the one DCP gave it, found from its process's listening sockets.
web=""
until [ -n "$web" ] && curl -sf "http://127.0.0.1:$web/health" >/dev/null; do
  sleep 1
  pid=$(pgrep -f 'Cubby.SampleWeb$' | head -1 || true)
  [ -n "$pid" ] && web=$(ss -ltnp | grep "pid=$pid," | grep -oE '127\.0\.0\.1:[0-9]+' | head -1 | cut -d: -f2 || true)
done
# The web app waits for the cluster, which waits for every silo, which waits for PostgreSQL: all are healthy now.
echo "All resources healthy $((SECONDS - started)) s after dotnet run."
curl -sf "http://127.0.0.1:$web/primes/20000" >/dev/null
curl -sf "http://127.0.0.1:$web/primes/20000" >/dev/null
sleep 5
cp docs/aspire-screenshots.mjs "$tools/"
OUT="$PWD/docs" node "$tools/aspire-screenshots.mjs"
echo "Wrote docs/aspire-resources.png, docs/aspire-silo-details.png, docs/aspire-trace.png and docs/aspire-metrics.png"
