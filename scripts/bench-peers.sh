#!/usr/bin/env bash
# Our server beside boardgame.io 0.50.2's on this machine, one after the other, on the same
# workload (../shared/peers/bgio: create, two joins, two live connections, the 5-move game X
# wins), the same number of matches and the same concurrency; prints one table with our ratio
# to the peer. Usage: bash scripts/bench-peers.sh [MATCHES] [CONCURRENCY]   (2000 and 100)
# PEERS names the harness folder (default: ../shared/peers/bgio beside this clone); it is
# copied under ~/.cache/velha/peers before `npm ci` (shared/ is read-only on CI).
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"
C="${2:-100}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"
PEERS="${PEERS:-$(cd .. && pwd)/shared/peers/bgio}"
[ -f "$PEERS/run.sh" ] || { echo "no peer harness at $PEERS (set PEERS)" >&2; exit 64; }
command -v node >/dev/null || {
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
}

HERE="$HOME/.cache/velha/peers/bgio"
if ! cmp -s "$PEERS/package-lock.json" "$HERE/package-lock.json" 2>/dev/null \
   || ! diff -q "$PEERS/load.js" "$HERE/load.js" >/dev/null 2>&1; then
  rm -rf "$HERE" && mkdir -p "$HERE" && cp -r "$PEERS/." "$HERE/"
fi
[ -d "$HERE/node_modules/boardgame.io" ] || (cd "$HERE" && npm ci --silent --no-audit --no-fund)

cargo build --release --locked -p velha-server -p velha-load

echo "boardgame.io: $N matches, $C in flight" >&2
PEER_OUT="$(cd "$HERE" && ./run.sh "$N" "$C" 2>/dev/null)"
# The peer speaks plain HTTP and WebSocket; ours is measured so too (as behind a balancer that
# ends TLS, `--plain-http`), and over its own HTTPS.
echo "velha-server: $N matches, $C in flight, plain HTTP" >&2
OURS_PLAIN="$("$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256 --plain-http)"
echo "velha-server: $N matches, $C in flight, HTTPS" >&2
OURS_TLS="$("$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256)"

python3 - "$PEER_OUT" "$OURS_PLAIN" "$OURS_TLS" <<'PY'
import json, sys

def read(out):
    lines = [json.loads(l) for l in out.strip().splitlines() if l.startswith("{")]
    run, server = lines[0], lines[1]
    done = max(run["completed"], 1)
    return {
        "matches/s": run["matches_per_s"],
        "move p50 ms": run["move_latency_ms"]["p50"],
        "move p99 ms": run["move_latency_ms"]["p99"],
        "server CPU ms/match": 1000 * server["server_cpu_s"] / done,
        "server peak MB": server["server_peak_rss_mb"],
        "errors": run["errors"],
    }

peer, plain, tls = (read(o) for o in sys.argv[1:4])
goals = {"server CPU ms/match": ("ratio", 0.1), "move p99 ms": ("below", 10.0),
         "server peak MB": ("ratio", 0.5)}

def judged(key, o, ratio):
    if key not in goals:
        return ""
    kind, bound = goals[key]
    return "met" if (ratio <= bound if kind == "ratio" else o < bound) else "MISSED"

print(f"{'':22}{'boardgame.io':>13}{'velha HTTP':>12}{'ratio':>8}{'velha HTTPS':>13}{'ratio':>8}  goal (HTTP, HTTPS)")
for key in peer:
    p = peer[key]
    cells, marks = "", []
    for ours in (plain, tls):
        o = ours[key]
        ratio = o / p if p else float("nan")
        cells += f"{o:>12.2f}{ratio:>8.3f}" if ours is plain else f"{o:>13.2f}{ratio:>8.3f}"
        marks.append(judged(key, o, ratio))
    goal = ""
    if key in goals:
        kind, bound = goals[key]
        goal = (f"≤ {bound:g}× " if kind == "ratio" else f"< {bound:g} ms ") + ", ".join(marks)
    print(f"{key:22}{p:>13.2f}{cells}  {goal}")
PY
