#!/usr/bin/env node
// Load client for the Colyseus 0.16 peer server (server.js).
//
// For each match: client A creates a 'tictactoe' room through the matchmaker
// (client.create(): POST /matchmake/create/tictactoe, then the room's
// WebSocket), client B joins it by id (client.joinById(): POST
// /matchmake/joinById/<roomId>, then its own WebSocket), both wait until they
// have the room's initial state (empty board), then play the fixed game
// X:0 O:1 X:3 O:4 X:6 (X wins on the left column).
// A player sends its move only once its own client shows the previous move
// and that it is its turn. Move latency = time from room.send('move') on the
// mover to the onStateChange() callback in which the OTHER player's client
// first shows that move (both clocks are the same process's
// performance.now()). At the end both clients leave the room (consented
// leave), so the server disposes it.
//
// Prints one JSON line on stdout:
// {"matches":N,"concurrency":C,"seconds":T,"matches_per_s":…,"moves_per_s":…,
//  "move_latency_ms":{"p50":…,"p99":…,"max":…},"errors":E,"completed":K}
// Exit 0 when every match completed, 1 when some failed, 2 on global timeout.

const { performance } = require('node:perf_hooks');
const { Client } = require('colyseus.js');

// ---------------------------------------------------------------- arguments
function parseArgs(argv) {
  const opts = {
    port: 2567,
    matches: 200,
    concurrency: 20,
    timeout: 120, // global, seconds
    stepTimeout: 30, // any single wait inside a match, seconds
  };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) usage(`missing value for ${a}`);
      return argv[++i];
    };
    switch (a) {
      case '--port': opts.port = int(next(), a); break;
      case '--matches': opts.matches = int(next(), a); break;
      case '--concurrency': opts.concurrency = int(next(), a); break;
      case '--timeout': opts.timeout = int(next(), a); break;
      case '--step-timeout': opts.stepTimeout = int(next(), a); break;
      case '-h': case '--help': usage(); break;
      default: usage(`unknown argument ${a}`);
    }
  }
  if (opts.matches < 1 || opts.concurrency < 1) usage('--matches and --concurrency must be >= 1');
  return opts;
}
function int(s, name) {
  const n = Number.parseInt(s, 10);
  if (!Number.isFinite(n) || String(n) !== String(s).trim()) usage(`${name} needs an integer, got ${s}`);
  return n;
}
function usage(msg) {
  if (msg) console.error(`load.js: ${msg}`);
  console.error('usage: node load.js --port P --matches N --concurrency C [--timeout S] [--step-timeout S]');
  process.exit(64);
}

const opts = parseArgs(process.argv);
const HOST = '127.0.0.1';
const SERVER = `ws://${HOST}:${opts.port}`;
const ROOM = 'tictactoe';
const PLAN = [0, 1, 3, 4, 6]; // X O X O X -> X wins (0,3,6)
const MARKS = [1, 2]; // the server's board values for X and O

// ---------------------------------------------------------------- state
const latencies = []; // ms, one per move seen by the other player
const failures = []; // { match, phase, message }
const livePlayers = new Set();
let completed = 0;
let startedMatches = 0;
let t0 = 0;
let finished = false;
// One Client (it only holds the endpoint): every create/joinById is its own HTTP request and
// every room its own WebSocket, like two separate browsers.
const client = new Client(SERVER);

// colyseus.js reports its own problems with console.warn (closed connections, errors from
// the room, messages without a handler); count them.
let libWarnings = 0;
const origConsoleError = console.error;
const origConsoleWarn = console.warn;
console.warn = (...args) => {
  libWarnings++;
  origConsoleWarn(...args);
};

// ---------------------------------------------------------------- helpers
function filled(state) {
  if (!state || !state.board || state.board.length !== 9) return -1;
  let n = 0;
  for (let i = 0; i < 9; i++) if (state.board.at(i) !== 0) n++;
  return n;
}

// Wraps a colyseus.js Room: keeps whether it has its state yet and lets callers wait for a
// predicate on it; the timestamp is taken inside the onStateChange callback. (The Room's state
// object is decoded in place, so there is one live object, not one per update.)
class Player {
  constructor(seat) {
    this.seat = seat; // 0 = X, 1 = O
    this.room = null;
    this.synced = false; // the full state has arrived
    this.waiters = [];
    this.broken = null; // why the room can no longer be used
    this.left = false;
    this.leaving = null;
  }

  // The room as create()/joinById() resolved it (the room's WebSocket is open and joined; the
  // full state follows the join acknowledgement).
  attach(room) {
    this.room = room;
    livePlayers.add(this);
    room.onStateChange(() => this.onState());
    room.onMessage('refused', (m) => this.fail(`server refused a move: ${JSON.stringify(m)}`));
    room.onError((code, message) => this.fail(`room error ${code}: ${message}`));
    room.onLeave((code) => {
      this.left = true;
      livePlayers.delete(this);
      if (!this.leaving) this.fail(`left the room unexpectedly (close code ${code})`);
    });
  }

  get state() {
    return this.synced ? this.room.state : null;
  }

  get sessionId() {
    return this.room.sessionId;
  }

  onState() {
    const now = performance.now();
    this.synced = true;
    if (this.waiters.length === 0) return;
    const state = this.room.state;
    const still = [];
    for (const w of this.waiters) {
      if (w.pred(state)) {
        clearTimeout(w.timer);
        w.resolve(now);
      } else {
        still.push(w);
      }
    }
    this.waiters = still;
  }

  fail(message) {
    if (this.broken) return;
    this.broken = new Error(`player ${this.seat}: ${message}`);
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(this.broken);
    }
    this.waiters = [];
  }

  // Resolves with the performance.now() of the callback that satisfied pred.
  waitFor(pred, what) {
    if (this.broken) return Promise.reject(this.broken);
    if (this.state && pred(this.state)) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const w = { pred, resolve, reject, timer: null };
      w.timer = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new Error(`player ${this.seat}: timed out after ${opts.stepTimeout}s waiting for ${what}`));
      }, opts.stepTimeout * 1000);
      this.waiters.push(w);
    });
  }

  // Leaves the room (consented: LEAVE_ROOM, then the server closes the socket with 4000);
  // resolves once the socket is closed, or after the step timeout, when it closes it itself.
  leave() {
    if (!this.room || this.left) return Promise.resolve();
    if (this.leaving) return this.leaving;
    for (const w of this.waiters) clearTimeout(w.timer);
    this.waiters = [];
    const room = this.room;
    this.leaving = new Promise((resolve) => {
      const timer = setTimeout(() => {
        origConsoleError(`load.js: player ${this.seat} did not leave within ${opts.stepTimeout}s; closing its socket`);
        try { room.connection.close(); } catch (_) { /* already closed */ }
        livePlayers.delete(this);
        resolve();
      }, opts.stepTimeout * 1000);
      const done = () => { clearTimeout(timer); resolve(); };
      if (!room.connection || !room.connection.isOpen) {
        try { room.connection && room.connection.close(); } catch (_) { /* already closed */ }
        livePlayers.delete(this);
        done();
        return;
      }
      room.leave(true).then(done, done);
    });
    return this.leaving;
  }
}

async function playMatch(index) {
  let phase = 'create';
  const players = [new Player(0), new Player(1)];
  try {
    const [x, o] = players;
    x.attach(await client.create(ROOM));

    phase = 'join';
    o.attach(await client.joinById(x.room.roomId));

    phase = 'sync';
    await Promise.all(players.map((p) => p.waitFor((st) => filled(st) === 0, 'initial state')));

    phase = 'play';
    const local = [];
    for (let k = 0; k < PLAN.length; k++) {
      const mover = players[k % 2];
      const other = players[(k + 1) % 2];
      const cell = PLAN[k];
      const mark = MARKS[mover.seat];
      // The mover must see the previous move and that it is its turn.
      await mover.waitFor(
        (st) => filled(st) === k && st.currentTurn === mover.sessionId,
        `its turn at ply ${k}`
      );
      const seen = other.waitFor(
        (st) => filled(st) === k + 1 && st.board.at(cell) === mark,
        `ply ${k} (cell ${cell}) from player ${mover.seat}`
      );
      const tSend = performance.now();
      mover.room.send('move', cell);
      const tSeen = await seen;
      local.push(tSeen - tSend);
    }

    phase = 'gameover';
    await Promise.all(
      players.map((p) => p.waitFor((st) => st.winner !== '' || st.draw, 'gameover'))
    );
    for (const p of players) {
      const st = p.state;
      if (st.winner !== x.sessionId) throw new Error(`unexpected end: winner ${JSON.stringify(st.winner)}, draw ${st.draw}`);
    }
    phase = 'leave';
    await Promise.all(players.map((p) => p.leave()));
    if (finished) return; // global timeout already reported; do not count
    latencies.push(...local);
    completed++;
  } catch (e) {
    if (!finished) failures.push({ match: index, phase, message: e && e.message ? e.message : String(e) });
  } finally {
    await Promise.all(players.map((p) => p.leave()));
  }
}

// ---------------------------------------------------------------- report
function pct(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length); // nearest-rank
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
const r3 = (x) => (x === null ? null : Math.round(x * 1000) / 1000);

function report(timedOut) {
  finished = true;
  const seconds = (performance.now() - t0) / 1000;
  const sorted = latencies.slice().sort((a, b) => a - b);
  const errors = opts.matches - completed; // failed + never finished
  const out = {
    matches: opts.matches,
    concurrency: opts.concurrency,
    seconds: r3(seconds),
    matches_per_s: r3(completed / seconds),
    moves_per_s: r3(latencies.length / seconds),
    move_latency_ms: { p50: r3(pct(sorted, 50)), p99: r3(pct(sorted, 99)), max: r3(sorted.length ? sorted[sorted.length - 1] : null) },
    errors,
    completed,
  };
  process.stdout.write(JSON.stringify(out) + '\n');

  const cpu = process.cpuUsage();
  const diag = {
    transport: 'websocket',
    timed_out: timedOut,
    started_matches: startedMatches,
    failed_matches: failures.length,
    moves_measured: latencies.length,
    lib_warnings_logged: libWarnings,
    client_cpu_s: r3((cpu.user + cpu.system) / 1e6),
    client_peak_rss_mb: r3(process.resourceUsage().maxRSS / 1024),
    first_failures: failures.slice(0, 5),
  };
  origConsoleError(`load.js diag ${JSON.stringify(diag)}`);
}

function closeAll() {
  for (const p of Array.from(livePlayers)) {
    try { p.room.connection.close(); } catch (_) { /* already closed */ }
  }
}

// ---------------------------------------------------------------- main
async function main() {
  const globalTimer = setTimeout(() => {
    report(true);
    closeAll();
    process.exitCode = 2;
    // Give socket close frames a moment to flush, then leave.
    setTimeout(() => process.exit(2), 200);
  }, opts.timeout * 1000);

  t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (!finished && next < opts.matches) {
      const i = next++;
      startedMatches++;
      await playMatch(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, opts.matches) }, worker));
  if (finished) return; // the global timeout already reported
  clearTimeout(globalTimer);
  report(false);
  closeAll();
  // Exit explicitly: the HTTP agent's keep-alive sockets (the matchmaker requests) would
  // otherwise hold the event loop open for a few seconds.
  process.exitCode = completed === opts.matches ? 0 : 1;
  setTimeout(() => process.exit(), 100);
}

main().catch((e) => {
  origConsoleError(`load.js fatal: ${e && e.stack ? e.stack : e}`);
  process.exit(3);
});
