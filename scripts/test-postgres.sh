# Sourced by scripts/test.sh: a throwaway PostgreSQL on a free loopback port for the server's
# tests (installed with test.sh's apt_install when missing), stopped and removed when the tests end.

start_test_postgres() {
  ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || apt_install postgresql
  local bin port
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  PG_DIR=$(mktemp -d /tmp/velha-pg.XXXXXX)
  # PostgreSQL refuses to run as root: as root, run it as the postgres user apt made.
  PG_AS=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres: "$PG_DIR"
    PG_AS=(runuser -u postgres --)
  fi
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "${PG_AS[@]}" "$bin/initdb" -D "$PG_DIR/data" -U velha -A trust --no-sync >/dev/null
  "${PG_AS[@]}" "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
    -o "-p $port -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=800" start >/dev/null
  PG_BIN="$bin"
  export VELHA_TEST_POSTGRES_URL="postgres://velha@127.0.0.1:$port/postgres"
  trap stop_test_postgres EXIT
}

# A new, empty database on the test PostgreSQL; prints its URL.
new_test_database() {
  local name=$1 port
  port=${VELHA_TEST_POSTGRES_URL##*:}
  port=${port%%/*}
  "${PG_AS[@]}" "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U velha "$name"
  echo "postgres://velha@127.0.0.1:$port/$name"
}

stop_test_postgres() {
  if [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR" ]; then
    "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$PG_DIR"
  fi
}
