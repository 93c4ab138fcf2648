#!/usr/bin/env bash
# redis-benchmark against one silo's plain RESP port and its TLS port (Cubby:Tls:Port), interleaved, in one run (issue 15).
# usage: bench/tls-vs-plain.sh [rounds]     (needs openssl, redis-benchmark built with TLS, and a Release build of the silo)
# Each round runs SET then GET, 100,000 requests of 1 KiB values over 10,000 keys from 32 connections, plain and then TLS
# (a self-signed P-256 certificate made for the run); prints one line per round and workload with both ops/s.
set -euo pipefail
rounds=${1:-3}
port=${PORT:-16393}
tls_port=$((port + 2))
root=$(cd "$(dirname "$0")/.." && pwd)
silo="$root/silo/Cubby.Silo/bin/Release/net10.0/Cubby.Silo.dll"
[ -f "$silo" ] || { echo "build first: dotnet build -c Release silo/Cubby.Silo" >&2; exit 1; }

work=$(mktemp -d)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -keyout "$work/cubby.key" -out "$work/cubby.crt" 2> /dev/null

Cubby__RespPort=$port Cubby__HttpPort=$((port + 1)) Cubby__Tls__Port=$tls_port \
  Cubby__Tls__CertificatePath="$work/cubby.crt" Cubby__Tls__KeyPath="$work/cubby.key" \
  Cubby__Clustering__SiloPort=0 Cubby__Clustering__GatewayPort=0 \
  dotnet "$silo" > "$work/silo.log" 2>&1 &
pid=$!
trap 'kill $pid 2> /dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 100); do redis-cli -p "$port" ping > /dev/null 2>&1 && break; sleep 0.2; done

ops() { redis-benchmark -h 127.0.0.1 "$@" -d 1024 -r 10000 -n 100000 -c 32 -q 2>&1 | tr '\r' '\n' | grep -oE '[0-9.]+ requests per second' | cut -d' ' -f1; }
echo "round	workload	plain_ops	tls_ops	tls/plain"
for round in $(seq 1 "$rounds"); do
  for test in set get; do
    plain=$(ops -p "$port" -t "$test")
    tls=$(ops -p "$tls_port" -t "$test" --tls --cacert "$work/cubby.crt")
    echo "$round	$test	$plain	$tls	$(awk -v a="$plain" -v b="$tls" 'BEGIN { printf "%.2f", b / a }')"
  done
done
