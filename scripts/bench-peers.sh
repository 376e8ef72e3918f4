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
echo "velha-server: $N matches, $C in flight" >&2
OURS_OUT="$("$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256)"

python3 - "$PEER_OUT" "$OURS_OUT" <<'PY'
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

peer, ours = read(sys.argv[1]), read(sys.argv[2])
goals = {"server CPU ms/match": ("ratio", 0.1), "move p99 ms": ("below", 10.0),
         "server peak MB": ("ratio", 0.5)}
print(f"{'':24}{'boardgame.io':>14}{'velha-server':>14}{'ours/peer':>11}  goal")
for key in peer:
    p, o = peer[key], ours[key]
    ratio = o / p if p else float("nan")
    goal = ""
    if key in goals:
        kind, bound = goals[key]
        met = ratio <= bound if kind == "ratio" else o < bound
        goal = (f"≤ {bound:g}× " if kind == "ratio" else f"< {bound:g} ms ") + ("met" if met else "MISSED")
    print(f"{key:24}{p:>14.2f}{o:>14.2f}{ratio:>11.3f}  {goal}")
PY
