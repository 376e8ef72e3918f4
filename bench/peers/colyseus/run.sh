#!/usr/bin/env bash
# Usage: ./run.sh [N] [C] [extra load.js args, e.g. --timeout 120 --step-timeout 30]
# Starts server.js on a free 127.0.0.1 port, waits until it answers, runs
# load.js with N matches / C in flight, reads the server's peak RSS (VmHWM)
# and CPU time spent during the load from /proc, stops the server by PID, and prints two JSON lines:
#   the load.js result, then {"server_peak_rss_mb":…,"server_cpu_s":…}
# Exit status is load.js's (0 ok, 1 some matches failed, 2 global timeout).
# PIN=1 runs the server on CPU 0 and load.js on CPU 1 (taskset), so the two
# do not compete for the same core; default is unpinned (the OS schedules).
# PATCH_MS is passed to server.js (default 0: a patch as soon as the state changes; 50 is
# Colyseus's own default patch timer).
set -u
cd "$(dirname "$0")"

N="${1:-200}"
C="${2:-20}"
shift $(( $# >= 2 ? 2 : $# ))
# Run both sides as deployed (Colyseus reads NODE_ENV for a few messages and checks).
export NODE_ENV="${NODE_ENV:-production}"

[ -d node_modules/@colyseus/core ] && [ -d node_modules/colyseus.js ] || { echo "run.sh: run 'npm ci' first" >&2; exit 64; }

PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
LOG="$(mktemp -t colyseus-server.XXXXXX.log)"

SRV_PIN=(); CLI_PIN=()
if [ "${PIN:-0}" = 1 ]; then SRV_PIN=(taskset -c 0); CLI_PIN=(taskset -c 1); fi

PORT="$PORT" "${SRV_PIN[@]}" node server.js >"$LOG" 2>&1 &
SPID=$!

stop_server() {
  if [ -n "${SPID:-}" ] && kill -0 "$SPID" 2>/dev/null; then
    kill "$SPID" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$SPID" 2>/dev/null && kill -9 "$SPID" 2>/dev/null
    wait "$SPID" 2>/dev/null
  fi
  SPID=""
}
trap 'stop_server; rm -f "$LOG"' EXIT
trap 'exit 130' INT TERM

# Wait (max 15 s) until the HTTP server answers.
ready=0
for _ in $(seq 1 150); do
  if ! kill -0 "$SPID" 2>/dev/null; then break; fi
  if node -e "fetch('http://127.0.0.1:$PORT/').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" 2>/dev/null; then
    ready=1; break
  fi
  sleep 0.1
done
if [ "$ready" != 1 ]; then
  echo "run.sh: server did not answer on 127.0.0.1:$PORT; its log:" >&2
  cat "$LOG" >&2
  exit 70
fi

TICKS0="$(awk '{print $14 + $15}' "/proc/$SPID/stat" 2>/dev/null)"
"${CLI_PIN[@]}" node load.js --port "$PORT" --matches "$N" --concurrency "$C" "$@"
RC=$?

# Peak RSS (whole life) and CPU time (during load.js only) of the server
# process, read before it is stopped.
HWM_KB="$(awk '/^VmHWM:/ {print $2}' "/proc/$SPID/status" 2>/dev/null)"
TICKS="$(awk '{print $14 + $15}' "/proc/$SPID/stat" 2>/dev/null)"
HZ="$(getconf CLK_TCK)"
stop_server

if [ -s "$LOG" ] && grep -qv '^colyseus server listening' "$LOG"; then
  echo "run.sh: server log (non-startup lines, first 20):" >&2
  grep -v '^colyseus server listening' "$LOG" | head -20 >&2
fi

awk -v kb="${HWM_KB:-0}" -v t="$(( ${TICKS:-0} - ${TICKS0:-0} ))" -v hz="$HZ" \
  'BEGIN { printf "{\"server_peak_rss_mb\":%.1f,\"server_cpu_s\":%.2f}\n", kb/1024, t/hz }'
exit "$RC"
