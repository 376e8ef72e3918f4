-- Portable SQL: the same text runs on SQLite and PostgreSQL. Times are milliseconds since
-- the Unix epoch (BIGINT); ids are random text made by the server.

CREATE TABLE accounts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    email TEXT UNIQUE,
    password_hash TEXT,
    google_sub TEXT UNIQUE,
    country TEXT NOT NULL,
    subscribed_until BIGINT,
    created_at BIGINT NOT NULL
);

CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX sessions_by_account ON sessions (account_id);

CREATE TABLE matches (
    id TEXT PRIMARY KEY,
    scope TEXT NOT NULL,
    level BIGINT NOT NULL,
    x_id TEXT NOT NULL REFERENCES accounts (id),
    o_id TEXT REFERENCES accounts (id),
    x_country TEXT NOT NULL,
    o_country TEXT,
    state TEXT NOT NULL,
    position TEXT NOT NULL,
    ply BIGINT NOT NULL,
    deadline BIGINT,
    winner TEXT,
    ending TEXT,
    created_at BIGINT NOT NULL,
    started_at BIGINT,
    ended_at BIGINT
);

CREATE INDEX matches_by_state ON matches (state, level, scope);
CREATE INDEX matches_by_x ON matches (x_id, state);
CREATE INDEX matches_by_o ON matches (o_id, state);

-- One row a committed move: (match, ply) is unique, so two server processes can never both
-- commit a move for the same ply.
CREATE TABLE moves (
    match_id TEXT NOT NULL REFERENCES matches (id),
    ply BIGINT NOT NULL,
    seat TEXT NOT NULL,
    actions TEXT NOT NULL,
    position TEXT NOT NULL,
    played_at BIGINT NOT NULL,
    PRIMARY KEY (match_id, ply)
);
