-- Several server processes on one PostgreSQL (docs/deploy.md). A live match's state is all
-- in its row (position, ply, deadline, and now each seat's reconnection deadline), so any
-- process can take its next move or end it: the conditional update on (id, ply, state)
-- decides which of two racing processes wins, and a process that dies takes nothing with it.

-- When each seat must be back by (ON-M04); empty while the player has a connection anywhere.
ALTER TABLE matches ADD COLUMN x_away_until BIGINT;
ALTER TABLE matches ADD COLUMN o_away_until BIGINT;

-- Live matches by deadline: every process's sweeper looks for overdue ones.
CREATE INDEX matches_live_deadline ON matches (deadline) WHERE state = 'live';

-- The server processes, each seen every few seconds; one not seen for long is dead, and its
-- players' connections with it.
CREATE TABLE processes (
    id TEXT PRIMARY KEY,
    seen_at BIGINT NOT NULL
);

-- Which processes hold a connection of each player: a player is away when no process does.
CREATE TABLE presence (
    account_id TEXT NOT NULL,
    process TEXT NOT NULL,
    PRIMARY KEY (account_id, process)
);

CREATE INDEX presence_by_process ON presence (process);

-- What the processes told each other lately (PostgreSQL's NOTIFY carries each one's id, and
-- the event itself when small): read back when an event is too large for NOTIFY, and after a
-- process's listening connection was lost, to catch up. Kept a few minutes.
CREATE TABLE events (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    payload TEXT NOT NULL
);

CREATE INDEX events_by_time ON events (at);

-- How many spectators each process has in each room: a room's spectators are the sum, and
-- its limit (CLASSIC-R13) holds across processes.
CREATE TABLE room_spectators (
    room_id TEXT NOT NULL,
    process TEXT NOT NULL,
    watching BIGINT NOT NULL,
    PRIMARY KEY (room_id, process)
);

CREATE INDEX room_spectators_by_process ON room_spectators (process);
