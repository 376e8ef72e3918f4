-- Invitation rooms (ON-R01 … ON-R05, CLASSIC-R08 … R13). A room's whole state is the rules'
-- `Room`, stored as JSON and changed only by a compare-and-set on `version`, so two requests
-- racing on one room never both apply. A seat is a row: the primary key lets exactly one
-- joiner take O however many race. Every move, resignation and absence claim is a row too:
-- the replay (ON-P01) is rebuilt from them by the rules.

CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    board TEXT NOT NULL,
    state TEXT NOT NULL,
    version BIGINT NOT NULL,
    game BIGINT NOT NULL,
    ply BIGINT NOT NULL,
    last_activity BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE INDEX rooms_by_activity ON rooms (last_activity);

CREATE TABLE room_seats (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    seat TEXT NOT NULL,
    credential_hash TEXT NOT NULL UNIQUE,
    account_id TEXT REFERENCES accounts (id),
    PRIMARY KEY (room_id, seat)
);

CREATE INDEX room_seats_by_account ON room_seats (account_id);

CREATE TABLE room_moves (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    game BIGINT NOT NULL,
    ply BIGINT NOT NULL,
    seat TEXT NOT NULL,
    action TEXT NOT NULL,
    played_at BIGINT NOT NULL,
    PRIMARY KEY (room_id, game, ply)
);
