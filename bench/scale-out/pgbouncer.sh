# Sourced by .ci/run and bench/scale-out.sh: starts a private PgBouncer in transaction pooling mode.
#   start_pgbouncer DIR UPSTREAM_HOST UPSTREAM_PORT  → sets PGBOUNCER_PORT and PGBOUNCER_PID
#   stop_pgbouncer
# The config is generated in DIR (not the system service); every database name is forwarded to the
# upstream server ("*" entry), trust auth for the user postgres, no startup parameter ignored (so a
# client sending one PgBouncer does not know, e.g. statement_timeout, is refused as in production).

spare_port() {
  node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

start_pgbouncer() {
  local dir=$1 host=$2 port=$3
  PGBOUNCER_PORT=$(spare_port)
  cat >"$dir/pgbouncer.ini" <<INI
[databases]
* = host=$host port=$port
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PGBOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
max_client_conn = 200
default_pool_size = 8
max_prepared_statements = 0
server_reset_query =
ignore_startup_parameters =
logfile = $dir/pgbouncer.log
INI
  # 1.18 does not know max_prepared_statements (named prepared statements are unsupported): drop it there.
  if ! pgbouncer --version | grep -qE 'PgBouncer 1\.(2[1-9]|[3-9][0-9])'; then sed -i '/^max_prepared_statements/d' "$dir/pgbouncer.ini"; fi
  echo '"postgres" ""' >"$dir/userlist.txt"
  # PgBouncer refuses to run as root.
  if [ "$(id -u)" = 0 ]; then
    chown -R postgres "$dir"
    runuser -u postgres -- pgbouncer -q "$dir/pgbouncer.ini" &
  else
    pgbouncer -q "$dir/pgbouncer.ini" &
  fi
  PGBOUNCER_PID=$!
  for _ in $(seq 1 50); do
    pg_isready -q -h 127.0.0.1 -p "$PGBOUNCER_PORT" -d postgres && return 0
    sleep 0.1
  done
  echo "PgBouncer did not start:" >&2
  cat "$dir/pgbouncer.log" >&2 || true
  return 1
}

stop_pgbouncer() {
  if [ -n "${PGBOUNCER_PID:-}" ]; then
    kill "$PGBOUNCER_PID" 2>/dev/null || true
    wait "$PGBOUNCER_PID" 2>/dev/null || true
    PGBOUNCER_PID=
  fi
}
