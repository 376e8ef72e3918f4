// Colyseus 0.16 server: the matchmaking HTTP routes (POST /matchmake/...) and the WebSocket
// transport (@colyseus/ws-transport) on one http.Server, one room type ('tictactoe'), default
// in-memory presence and matchmaking driver, bound to 127.0.0.1:$PORT.
//
// PATCH_MS (default 0): 0 sends the state patch as soon as the state changes (a seat is taken,
// a move is accepted, a player leaves) and runs no patch timer; any other value keeps Colyseus's
// own patch timer at that period instead (Colyseus's default is 50 ms), so every change waits
// for the next tick.
const http = require('node:http');
const { Server, Room } = require('@colyseus/core');
const { WebSocketTransport } = require('@colyseus/ws-transport');
const { Schema, ArraySchema, defineTypes } = require('@colyseus/schema');

const PORT = Number.parseInt(process.env.PORT || '2567', 10);
const HOST = '127.0.0.1';
const PATCH_MS = Number.parseInt(process.env.PATCH_MS || '0', 10);

const EMPTY = 0;
const X = 1;
const O = 2;
const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8], // rows
  [0, 3, 6], [1, 4, 7], [2, 5, 8], // columns
  [0, 4, 8], [2, 4, 6],            // diagonals
];

// The room's state, synchronised to both clients by @colyseus/schema (full state on join,
// binary patches after). Plain JS: fields are declared with defineTypes and set in the
// constructor (class-field syntax would shadow the schema's accessors).
class TicTacToeState extends Schema {
  constructor() {
    super();
    this.board = new ArraySchema(EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY, EMPTY); // 0 empty, 1 X, 2 O
    this.x = ''; // sessionId seated as X (the room's creator)
    this.o = ''; // sessionId seated as O
    this.currentTurn = ''; // sessionId to move; '' until both seats are taken and once the game is over
    this.winner = ''; // sessionId of the winner, once there is one
    this.draw = false;
  }
}
defineTypes(TicTacToeState, {
  board: ['uint8'],
  x: 'string',
  o: 'string',
  currentTurn: 'string',
  winner: 'string',
  draw: 'boolean',
});

function isVictory(board, mark) {
  return LINES.some(([a, b, c]) => board[a] === mark && board[b] === mark && board[c] === mark);
}

class TicTacToeRoom extends Room {
  // Two seats; the matchmaker locks the room once both are taken (reserved or joined).
  maxClients = 2;

  onCreate() {
    this.state = new TicTacToeState();
    this.patchRate = PATCH_MS > 0 ? PATCH_MS : null;

    this.onMessage('move', (client, cell) => {
      const st = this.state;
      let reason = null;
      if (st.winner !== '' || st.draw) reason = 'game over';
      else if (st.currentTurn !== client.sessionId) reason = 'not your turn';
      else if (!Number.isInteger(cell) || cell < 0 || cell > 8) reason = 'no such cell';
      else if (st.board[cell] !== EMPTY) reason = 'cell taken';
      if (reason !== null) {
        client.send('refused', { cell, reason });
        return;
      }
      const mark = client.sessionId === st.x ? X : O;
      st.board[cell] = mark;
      if (isVictory(st.board, mark)) {
        st.winner = client.sessionId;
        st.currentTurn = '';
      } else if (st.board.every((c) => c !== EMPTY)) {
        st.draw = true;
        st.currentTurn = '';
      } else {
        st.currentTurn = mark === X ? st.o : st.x;
      }
      this.changed();
    });
  }

  onJoin(client) {
    const st = this.state;
    if (st.x === '') {
      st.x = client.sessionId;
    } else {
      st.o = client.sessionId;
      st.currentTurn = st.x; // both seated: X begins
    }
    this.changed();
  }

  onLeave(client) {
    // A player who leaves an unfinished game forfeits it. The room is disposed (autoDispose)
    // once both have left.
    const st = this.state;
    if (st.winner === '' && !st.draw && st.o !== '') {
      st.winner = client.sessionId === st.x ? st.o : st.x;
      st.currentTurn = '';
      this.changed();
    }
  }

  changed() {
    if (!(PATCH_MS > 0)) this.broadcastPatch();
  }
}

// A plain http.Server shared by the matchmaking routes (which Colyseus attaches to it) and the
// WebSocket upgrade; anything else gets 200 on / (the readiness check of run.sh) or 404.
const httpServer = http.createServer((req, res) => {
  res.writeHead(req.url === '/' ? 200 : 404, { 'Content-Type': 'text/plain' });
  res.end(req.url === '/' ? 'ok\n' : 'not found\n');
});

const gameServer = new Server({
  transport: new WebSocketTransport({ server: httpServer }),
  greet: false,
});
gameServer.define('tictactoe', TicTacToeRoom);

gameServer.listen(PORT, HOST).then(
  () => console.log(`colyseus server listening on http://${HOST}:${PORT} pid=${process.pid}`),
  (e) => {
    console.error(`colyseus server failed to listen: ${e && e.stack ? e.stack : e}`);
    process.exit(1);
  }
);

function shutdown() {
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
