#!/usr/bin/env bash
# A throwaway PostgreSQL for development, run in the foreground by the AppHost: a new cluster in a temporary folder,
# one database and one role with the password handed in, listening on 127.0.0.1 only. SIGTERM or SIGINT (the AppHost
# stopping) makes a fast shutdown, and the folder is deleted however PostgreSQL ended.
# Environment: PGBIN (the server binaries), PGPORT, CUBBY_PG_DATABASE, CUBBY_PG_USER, CUBBY_PG_PASSWORD.
set -euo pipefail

# Folders of earlier runs whose script was killed outright (kill -9 of the AppHost) have no owner left: remove them.
for stale in "${TMPDIR:-/tmp}"/cubby-postgres.*; do
  [ -f "$stale/owner.pid" ] || continue
  kill -0 "$(cat "$stale/owner.pid")" 2>/dev/null || rm -rf "$stale"
done

folder=$(mktemp -d "${TMPDIR:-/tmp}/cubby-postgres.XXXXXX")
echo $$ >"$folder/owner.pid"
data="$folder/data"
socket="$folder/socket"
cleanup() { rm -rf "$folder"; }
trap cleanup EXIT

# initdb and postgres refuse to run as root: run them as the postgres user the Debian package creates.
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  chmod 755 "$folder"
  chown postgres:postgres "$folder"
  as_owner=(setpriv --reuid=postgres --regid=postgres --init-groups)
fi
"${as_owner[@]}" mkdir -m 700 "$data"
"${as_owner[@]}" mkdir -m 755 "$socket"

password_file="$folder/password"
printf '%s\n' "$CUBBY_PG_PASSWORD" >"$password_file"
[ ${#as_owner[@]} -eq 0 ] || chown postgres:postgres "$password_file"
"${as_owner[@]}" "$PGBIN/initdb" -D "$data" -U "$CUBBY_PG_USER" --pwfile="$password_file" --auth=scram-sha-256 \
  -E UTF8 --no-locale --no-sync >"$folder/initdb.log" 2>&1 || { cat "$folder/initdb.log" >&2; exit 1; }
rm -f "$password_file"

# A throwaway cache membership table needs no durability: fsync off makes it start and write faster.
# --pdeathsig: PostgreSQL stops too (SIGINT: a fast shutdown) if this script is killed outright.
"${as_owner[@]}" setpriv --pdeathsig INT -- "$PGBIN/postgres" -D "$data" -p "$PGPORT" -k "$socket" \
  -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off &
server=$!
trap 'kill -INT "$server" 2>/dev/null || true' TERM INT

for _ in $(seq 1 300); do
  if "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then wait "$server"; exit 1; fi
  sleep 0.1
done
PGPASSWORD="$CUBBY_PG_PASSWORD" "$PGBIN/psql" -q -h 127.0.0.1 -p "$PGPORT" -U "$CUBBY_PG_USER" -d postgres -v ON_ERROR_STOP=1 \
  -c "CREATE DATABASE \"$CUBBY_PG_DATABASE\"" >/dev/null
echo "PostgreSQL is ready on 127.0.0.1:$PGPORT, database $CUBBY_PG_DATABASE, in $folder (deleted when it stops)."

# wait returns early when a trapped signal arrives: wait again until the server has really gone.
while kill -0 "$server" 2>/dev/null; do wait "$server" || true; done
