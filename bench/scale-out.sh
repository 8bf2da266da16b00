#!/usr/bin/env bash
# Scale-out on loopback: a private PostgreSQL primary, a streaming read replica of it (pg_basebackup -R),
# PgBouncer in transaction pooling mode in front of the primary, and the facade over them:
# test/scale-out.test.ts (every read through PgBouncer and from the replica, the budget cancelling on the
# server, migrations refused on the standby, next_url across instances); two instance processes with one
# continuationSecret, one following the other's next_url; the budget's cost per read (bench/budget-cost.ts).
# Everything runs in a temp dir as the postgres OS user (when run as root) and is torn down at exit; the
# system PostgreSQL is not touched.
# Usage: bench/scale-out.sh            runs every part
#        bench/scale-out.sh CMD ARGS   runs CMD instead, with DATABASE_URL, PGBOUNCER_URL and REPLICA_URL set
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/scale-out/pgbouncer.sh

BIN=${PG_BIN:-/usr/lib/postgresql/$(ls /usr/lib/postgresql | sort -V | tail -n 1)/bin}
WORK=$(mktemp -d /tmp/ead-scale-out.XXXXXX)
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$WORK"

SITE_PIDS=()
cleanup() {
  for pid in "${SITE_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  stop_pgbouncer
  for node in replica primary; do
    [ -f "$WORK/$node/postmaster.pid" ] && as_postgres "$BIN/pg_ctl" -D "$WORK/$node" -m immediate -w stop >/dev/null 2>&1 || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

PRIMARY_PORT=$(spare_port)
REPLICA_PORT=$(spare_port)
echo "== primary on 127.0.0.1:$PRIMARY_PORT"
as_postgres "$BIN/initdb" -D "$WORK/primary" -U postgres --auth=trust -E UTF8 >"$WORK/initdb.log"
cat >>"$WORK/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PRIMARY_PORT
unix_socket_directories = '$WORK'
wal_level = replica
max_wal_senders = 4
fsync = off
CONF
as_postgres "$BIN/pg_ctl" -D "$WORK/primary" -l "$WORK/primary.log" -w start >/dev/null

echo "== streaming replica on 127.0.0.1:$REPLICA_PORT (pg_basebackup -R)"
as_postgres "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$WORK/replica" -R -X stream
echo "port = $REPLICA_PORT" >>"$WORK/replica/postgresql.conf"
as_postgres "$BIN/pg_ctl" -D "$WORK/replica" -l "$WORK/replica.log" -w start >/dev/null
[ "$(psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -d postgres -Atc 'SELECT pg_is_in_recovery()')" = t ]

echo "== PgBouncer (transaction pooling) in front of the primary"
mkdir "$WORK/bouncer"
start_pgbouncer "$WORK/bouncer" 127.0.0.1 "$PRIMARY_PORT"
echo "   on 127.0.0.1:$PGBOUNCER_PORT ($(pgbouncer --version | head -n 1))"

export DATABASE_URL="postgres://postgres@127.0.0.1:$PRIMARY_PORT/postgres"
export PGBOUNCER_URL="postgres://postgres@127.0.0.1:$PGBOUNCER_PORT/postgres"
export REPLICA_URL="postgres://postgres@127.0.0.1:$REPLICA_PORT/postgres"

if [ $# -gt 0 ]; then
  "$@"
  exit
fi

echo "== test/scale-out.test.ts over the topology"
node --import tsx --test --test-reporter=spec test/scale-out.test.ts

echo "== two instance processes, one continuationSecret: the next_url of one, followed on the other"
psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -d postgres -qc 'CREATE DATABASE site'
npx tsx src/cli/main.ts migrate --database-url "postgres://postgres@127.0.0.1:$PRIMARY_PORT/site"
DATABASE_URL="postgres://postgres@127.0.0.1:$PRIMARY_PORT/site" npx tsx bench/scale-out/instance.ts seed
SECRET=scale-out-continuation-secret-0123456789
P1=$(spare_port)
P2=$(spare_port)
# Instance 1 through PgBouncer; instance 2 reading from the replica, migrations (none here) to the primary.
PORT=$P1 DATABASE_URL="postgres://postgres@127.0.0.1:$PGBOUNCER_PORT/site" CONTINUATION_SECRET=$SECRET \
  npx tsx bench/scale-out/instance.ts >"$WORK/instance-1.log" 2>&1 &
SITE_PIDS+=($!)
PORT=$P2 DATABASE_URL="postgres://postgres@127.0.0.1:$PRIMARY_PORT/site" READ_URL="postgres://postgres@127.0.0.1:$REPLICA_PORT/site" \
  CONTINUATION_SECRET=$SECRET npx tsx bench/scale-out/instance.ts >"$WORK/instance-2.log" 2>&1 &
SITE_PIDS+=($!)
for port in "$P1" "$P2"; do
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/llms.txt" >/dev/null && break; sleep 0.2; done
done
npx tsx bench/scale-out/instance.ts walk "http://127.0.0.1:$P1" >"$WORK/alone"
npx tsx bench/scale-out/instance.ts walk "http://127.0.0.1:$P1" "http://127.0.0.1:$P2" >"$WORK/alternating"
echo "   $(wc -l <"$WORK/alone") items over $(( ($(wc -l <"$WORK/alone") + 24) / 25 )) pages; pages alternating between the instances give the same sequence"
cmp "$WORK/alone" "$WORK/alternating"
[ "$(wc -l <"$WORK/alone")" -gt 25 ]
echo "== what the budget costs per read (bench/budget-cost.ts), direct and through PgBouncer"
npx tsx bench/budget-cost.ts
echo "== scale-out: all parts passed"
