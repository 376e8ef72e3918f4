#!/usr/bin/env bash
# The server as several processes on one PostgreSQL behind nginx (docs/deploy.md), measured:
#   1. people's pace: two processes, MATCHES live cube matches (a move every ~3 s each) and
#      IDLE more idle WebSockets — move latency p50/p99, each process's memory, the memory of
#      an idle connection;
#   2. flat out: 200 matches playing as fast as the servers answer, with 1, 2 and 3 processes.
# Usage: bash scripts/bench-cluster.sh [MATCHES] [IDLE]   (2000 and 6000: 10 000 WebSockets)
# A throwaway PostgreSQL is started (as scripts/test.sh does) and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
MATCHES="${1:-2000}"
IDLE="${2:-6000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"

apt_install() {
  local missing=() package
  for package in "$@"; do dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package"); done
  [ ${#missing[@]} -eq 0 ] && return
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}
apt_install nginx-light
source scripts/test-postgres.sh
start_test_postgres
# Every WebSocket is a file on the bench's side, the servers' and nginx's (two there).
ulimit -n "$(ulimit -Hn)"

cargo build --release --locked -p velha-server -p velha-load
LOAD="$CARGO_TARGET_DIR/release/velha-load"

echo "== people's pace: 2 processes, $MATCHES matches, $IDLE idle connections"
"$LOAD" --processes 2 --matches "$MATCHES" --moves 20 --think-ms 3000 --idle "$IDLE" \
  --argon2-memory-kib 256 --database-url "$(new_test_database velha_pace)"

for p in 1 2 3; do
  echo "== flat out: $p process(es), 200 matches"
  "$LOAD" --processes "$p" --nginx --matches 200 --moves 40 --argon2-memory-kib 256 \
    --database-url "$(new_test_database "velha_flat_$p")"
done
