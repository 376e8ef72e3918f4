#!/usr/bin/env bash
# Our server beside two peers on this machine, one after the other, on the same workload (the
# 5-move game X wins, each match in a room of its own made on demand: create, the second player
# joins, both play it live), the same number of matches and the same concurrency:
#   - boardgame.io 0.50.2 (../shared/peers/bgio: Lobby create + two joins, two socket.io clients);
#   - Colyseus 0.16 (bench/peers/colyseus: matchmaker create + joinById, two WebSockets);
#   - velha-server over plain HTTP (as behind a balancer that ends TLS, like the peers), over its
#     own HTTPS (HTTP/1.1), and over HTTPS with HTTP/2 (`velha-server --http2`). Each player
#     keeps one room connection from match to match and moves it to the next room (`enter`), as
#     the app does (src/online/room_live.rs); over HTTP/2 it is a stream of the one connection
#     the player keeps, as a browser's page does. The peers' players open their two sockets
#     each match and close them after; so does one more run of ours over HTTPS
#     (`--sockets-per-match`: two connections and two TLS handshakes a match).
# Prints one table per transport of ours, each with both peers' figures and our ratio to each,
# and the goals judged against each peer. Usage: bash scripts/bench-peers.sh [MATCHES] [CONCURRENCY]
# [ROUNDS] (2000, 100 and 1). With several rounds every side runs once a round, one after the
# other, and the tables give each figure's median; a ratio is the median of each round's ratio
# (ours over the peer's in the same round), since this machine's pace moves by a fifth from one
# hour to the next, the peers' as much as ours, and a goal of a tenth is judged on that median,
# with every round's ratio printed below it.
# BGIO_PEER (formerly PEERS; default ../shared/peers/bgio beside this clone) and COLYSEUS_PEER
# (default bench/peers/colyseus) name the harness folders; each is copied under
# ~/.cache/velha/peers/<name> before `npm ci` (shared/ is read-only on CI), again whenever a
# file of it (its lock, its scripts) changed.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"
C="${2:-100}"
ROUNDS="${3:-1}"
case "$ROUNDS" in
  "" | *[!0-9]*) ROUNDS=0 ;;
  *) ROUNDS=$((10#$ROUNDS)) ;;
esac
[ "$ROUNDS" -ge 1 ] || { echo "bench-peers: ROUNDS must be a whole number from 1, not '${3:-}'" >&2; exit 64; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"
BGIO_PEER="${BGIO_PEER:-${PEERS:-$(cd .. && pwd)/shared/peers/bgio}}"
COLYSEUS_PEER="${COLYSEUS_PEER:-$(pwd)/bench/peers/colyseus}"
CACHE="$HOME/.cache/velha/peers"
for h in "$BGIO_PEER" "$COLYSEUS_PEER"; do
  [ -f "$h/run.sh" ] || { echo "bench-peers: no peer harness at $h (set BGIO_PEER / COLYSEUS_PEER)" >&2; exit 64; }
done
command -v node >/dev/null || {
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
}

WORK="$(mktemp -d -t bench-peers.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# prepare NAME SOURCE MODULE: a writable copy of the harness at $CACHE/NAME (without any
# node_modules of the source), refreshed when a file differs, and `npm ci` there unless
# node_modules/MODULE is already installed.
prepare() {
  local name="$1" src="$2" module="$3" here="$CACHE/$1"
  if ! diff -rq -x node_modules "$src" "$here" >/dev/null 2>&1; then
    rm -rf "$here" && mkdir -p "$here"
    tar -C "$src" --exclude=node_modules -cf - . | tar -C "$here" -xf -
    chmod -R u+w "$here"
  fi
  if [ ! -d "$here/node_modules/$module" ]; then
    (cd "$here" && npm ci --silent --no-audit --no-fund) \
      || { echo "bench-peers: npm ci failed for the $name harness in $here" >&2; exit 1; }
  fi
}
prepare bgio "$BGIO_PEER" boardgame.io
prepare colyseus "$COLYSEUS_PEER" @colyseus/core

cargo build --release --locked -p velha-server -p velha-load

# measure LABEL FILE COMMAND…: runs one side, its stdout to $WORK/FILE.out and its stderr to
# $WORK/FILE.err. Without its two JSON lines the script stops here naming that side; with
# them but a non-zero exit (some matches failed) it goes on, says so, and exits 1 at the end.
FAILED=""
measure() {
  local label="$1" file="$2" rc=0
  shift 2
  echo "$label: $N matches, $C in flight" >&2
  "$@" >"$WORK/$file.out" 2>"$WORK/$file.err" || rc=$?
  if [ "$(grep -c '^{' "$WORK/$file.out" || true)" -lt 2 ]; then
    echo "bench-peers: $label failed (exit $rc) without its figures; the end of its output:" >&2
    tail -n 20 "$WORK/$file.out" "$WORK/$file.err" >&2
    exit 1
  fi
  if [ "$rc" != 0 ]; then
    echo "bench-peers: $label exited $rc (some matches failed or it timed out); the end of its stderr:" >&2
    tail -n 5 "$WORK/$file.err" >&2
    FAILED="$FAILED $label"
  fi
}
run_peer() { (cd "$CACHE/$1" && ./run.sh "$N" "$C"); }

for r in $(seq 1 "$ROUNDS"); do
  [ "$ROUNDS" = 1 ] || echo "round $r of $ROUNDS" >&2
  measure boardgame.io "bgio.$r" run_peer bgio
  measure Colyseus "colyseus.$r" run_peer colyseus
  # The peers speak plain HTTP and WebSocket; ours is measured so too (as behind a balancer that
  # ends TLS, `--plain-http`), and over its own HTTPS.
  measure "velha-server (plain HTTP)" "plain.$r" \
    "$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256 --plain-http
  measure "velha-server (HTTPS)" "tls.$r" \
    "$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256
  measure "velha-server (HTTPS, sockets per match)" "fresh.$r" \
    "$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256 --sockets-per-match
  measure "velha-server (HTTPS, HTTP/2)" "h2.$r" \
    "$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256 --http2
done
# Once more over HTTPS with each move's stages written by the server, printed after the tables:
# apart from the rounds, as writing them costs the server about 0.03 ms a match.
measure "velha-server (HTTPS, moves traced)" traced \
  "$CARGO_TARGET_DIR/release/velha-load" --peer-matches "$N" --concurrency "$C" --argon2-memory-kib 256 --trace-moves

python3 - "$WORK" "$CACHE" "$N" "$C" "$ROUNDS" <<'PY'
import json, os, statistics, sys

work, cache, n, c, rounds = sys.argv[1:6]
rounds = int(rounds)

def read_round(name):
    with open(os.path.join(work, name + ".out")) as f:
        lines = [json.loads(l) for l in f if l.startswith("{")]
    run, server = lines[0], lines[1]
    done = max(run["completed"], 1)
    cpu, peak = server["server_cpu_s"], server["server_peak_rss_mb"]
    real = lambda x: None if x is None else float(x)
    return {
        "matches/s": real(run["matches_per_s"]),
        "move p50 ms": real(run["move_latency_ms"]["p50"]),
        "move p99 ms": real(run["move_latency_ms"]["p99"]),
        "server CPU ms/match": None if cpu is None else 1000 * cpu / done,
        "server peak MB": real(peak),
        "errors": int(run["errors"]),
    }

def read(name):
    """Every round's figures of one side."""
    return [read_round(f"{name}.{r}") for r in range(1, rounds + 1)]

def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None

def version(harness, module):
    try:
        with open(os.path.join(cache, harness, "node_modules", module, "package.json")) as f:
            return json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        return "?"

peers = [("boardgame.io", "bgio", read("bgio")), ("Colyseus", "Colyseus", read("colyseus"))]
ours = [("plain HTTP, as behind a balancer that ends TLS", read("plain")),
        ("HTTPS (HTTP/1.1: a room connection a player)", read("tls")),
        ("HTTPS, the room connections opened and closed each match, as the peers' harnesses do",
         read("fresh")),
        ("HTTPS with HTTP/2 (--http2: a player's room connection a stream of the one they keep)", read("h2"))]
goals = {"server CPU ms/match": ("ratio", 0.1), "move p99 ms": ("below", 10.0),
         "server peak MB": ("ratio", 0.5)}

def num(x, width, digits=2):
    if x is None:
        return f"{'-':>{width}}"
    return f"{x:>{width}.{digits}f}" if isinstance(x, float) else f"{x:>{width}}"

def ratio(o, p):
    return None if o is None or p is None or p == 0 else o / p

def ratios(o, p, key):
    """Each round's ratio of our figure to the peer's in that round."""
    return [ratio(a[key], b[key]) for a, b in zip(o, p)]

def figure(side, key):
    """A side's figure: its median over the rounds (errors: their sum)."""
    values = [r[key] for r in side]
    return sum(values) if key == "errors" else median(values)

def judged(key, o, p):
    kind, bound = goals[key]
    if kind == "below":
        m = figure(o, key)
        return "-" if m is None else ("met" if m < bound else "MISSED")
    r = median(ratios(o, p, key))
    return "-" if r is None else ("met" if r <= bound else "MISSED")

print(f"{n} matches, {c} in flight; boardgame.io {version('bgio', 'boardgame.io')}, "
      f"Colyseus {version('colyseus', '@colyseus/core')} (colyseus.js {version('colyseus', 'colyseus.js')})")
if rounds > 1:
    print(f"{rounds} rounds, every side once a round: each figure is the median of its rounds, each "
          "× the median of the rounds' own ratios (errors: summed)")
print("× = our figure over the peer's; every goal is judged against each peer")
for title, o in ours:
    print()
    print(f"velha-server over {title}")
    head = f"{'':21}{'boardgame.io':>13}{'Colyseus':>11}{'velha':>11}"
    head += "".join(f"{'× ' + short:>{len(short) + 5}}" for _, short, _ in peers)
    head += f"   {'goal':<9}" + "".join(f"{'vs ' + short:<{len(short) + 6}}" for _, short, _ in peers)
    print(head.rstrip())
    for key in o[0]:
        line = f"{key:21}{num(figure(peers[0][2], key), 13)}{num(figure(peers[1][2], key), 11)}"
        line += num(figure(o, key), 11)
        for _, short, p in peers:
            line += num(None if key == "errors" else median(ratios(o, p, key)), len(short) + 5, 3)
        if key in goals:
            kind, bound = goals[key]
            line += f"   {(f'≤ {bound:g}×' if kind == 'ratio' else f'< {bound:g} ms'):<9}"
            line += "".join(f"{judged(key, o, p):<{len(short) + 6}}" for _, short, p in peers)
        print(line.rstrip())
    if rounds > 1:
        # What the medians hide: every round, in its order.
        for key in ("server CPU ms/match", "move p99 ms"):
            each = ", ".join(num(x, 0) for x in (r[key] for r in o))
            line = f"  {key}, each round: {each}"
            if key == "server CPU ms/match":
                for name, short, p in peers:
                    line += f"; × {short}: " + ", ".join(num(x, 0, 3) for x in ratios(o, p, key))
            print(line)
PY
echo
echo "Where velha-server's HTTPS moves spent their time (a run of its own, velha-load --trace-moves):"
grep "^the live connections' TLS handshakes" "$WORK/traced.err" || true
sed -n '/^move stages:/,$p' "$WORK/traced.err"
echo
echo "Over HTTP/2: $(grep "^the live connections' TLS handshakes" "$WORK/h2.$ROUNDS.err" || echo "no handshake counted")"
# Whether each of our runs had the machine to itself: what everything on it used, and what its
# host took for other guests as far as this machine can see (steal).
echo
echo "The whole machine while each run of ours played:"
for r in $(seq 1 "$ROUNDS"); do
  for run in "plain:plain HTTP" "tls:HTTPS" "fresh:sockets per match" "h2:HTTP/2"; do
    said=$(grep -h "^the whole machine while playing: " "$WORK/${run%%:*}.$r.err" || echo "not read")
    echo "  round $r, ${run#*:}: ${said#the whole machine while playing: }"
  done
done
if [ -n "$FAILED" ]; then
  echo "bench-peers: some matches failed in:$FAILED (see the errors row)" >&2
  exit 1
fi
