#!/usr/bin/env bash
# Runs Cubby's whole test suite. Installs the Debian packages the tests drive when they are missing: redis-tools
# (redis-cli, redis-benchmark), redis-server, gnuplot (the load harness's quick run), chromium (the dashboard), tcpdump
# (what crosses Orleans' links with and without TLS), iproute2 and iptables (the fault harness's network), Node.js and npm (node-redis, installed from tests/node-redis's
# lock file), and PostgreSQL's server binaries unless CUBBY_TEST_POSTGRES names a database. The harness installs
# garnet-server (a .NET tool) itself.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v redis-cli >/dev/null 2>&1 || need+=(redis-tools)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v gnuplot >/dev/null 2>&1 || need+=(gnuplot-nox)
# The dashboard tests drive Debian's Chromium through Playwright; no browser is ever downloaded.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v tcpdump >/dev/null 2>&1 || need+=(tcpdump)
# The fault harness's network (bench/Cubby.Load/Faults): namespaces and veth links (iproute2), partitions (iptables).
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v iptables >/dev/null 2>&1 || need+=(iptables)
# node-redis's client-side cache is tested against the silo (tests/node-redis).
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ -z "${CUBBY_TEST_POSTGRES:-}" ] && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  need+=(postgresql)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "Installing ${need[*]} for the tests..."
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

npm ci --prefix tests/node-redis --no-audit --no-fund --loglevel=error

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# Built once, then the test projects run one after the other (-m:1): the AppHost tests start a whole AppHost (DCP,
# PostgreSQL, silos, a web app), which beside the main suite's timing-sensitive cluster tests would starve both on 2 cores.
# A test still running after ten minutes (the longest take a few) is a hang: the run stops there and names it.
{ dotnet build Cubby.slnx -c Release && dotnet test Cubby.slnx -c Release --no-build -m:1 --blame-hang-timeout 10m --blame-hang-dump-type none "$@"; } 2>&1 | tee "$log" || status=$?

# One closing line over all test assemblies, in the plain form any CI can read.
passed=$(grep -oE 'Passed: +[0-9]+' "$log" | awk '{s+=$2} END {print s+0}')
failed=$(grep -oE 'Failed: +[0-9]+' "$log" | awk '{s+=$2} END {print s+0}')
skipped=$(grep -oE 'Skipped: +[0-9]+' "$log" | awk '{s+=$2} END {print s+0}')
echo "tests: $passed passed, $failed failed, $skipped skipped"
if [ "$status" -eq 0 ] && [ "$passed" -eq 0 ]; then
  echo "No test ran." >&2
  exit 1
fi
if [ "$status" -eq 0 ] && [ "$skipped" -ne 0 ]; then
  echo "Tests were skipped; the suite must run everything." >&2
  exit 1
fi
exit "$status"
