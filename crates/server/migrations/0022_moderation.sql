-- Moderation (docs/moderation.md). A banned account keeps its row and its past matches, so the
-- others' results stay; it has no sessions, cannot sign in, and holds no standing while banned.
ALTER TABLE accounts ADD COLUMN banned_at BIGINT;
ALTER TABLE accounts ADD COLUMN ban_reason TEXT;
-- The name the moderation replaced, until the player saw the notice.
ALTER TABLE accounts ADD COLUMN renamed_from TEXT;
-- Every process looks for bans made since it last looked (to close their connections): the
-- partial index keeps that a look at the banned alone.
CREATE INDEX accounts_banned ON accounts (banned_at) WHERE banned_at IS NOT NULL;

-- What the operators did, for whoever asks later (`admin audit`). The account's id and the
-- name it had then: a later rename or deletion does not rewrite history.
CREATE TABLE admin_actions (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    operator TEXT NOT NULL,
    action TEXT NOT NULL,
    account_id TEXT REFERENCES accounts(id),
    account_name TEXT,
    detail TEXT NOT NULL
);
CREATE INDEX admin_actions_by_time ON admin_actions (at);

-- Players' reports of other players. `context` names where they met (a match, a room, a
-- ranking row); one report per reporter, reported player and place: the player by their
-- account when they have one (a rename does not make them new), by the seat's name when a
-- room's guest.
CREATE TABLE reports (
    id TEXT PRIMARY KEY,
    at BIGINT NOT NULL,
    reporter_id TEXT NOT NULL REFERENCES accounts(id),
    reported_id TEXT REFERENCES accounts(id),
    reported_name TEXT NOT NULL,
    context TEXT NOT NULL,
    reason TEXT NOT NULL,
    note TEXT
);
CREATE UNIQUE INDEX reports_once ON reports (reporter_id, COALESCE(reported_id, reported_name), context);
CREATE INDEX reports_by_time ON reports (at);
CREATE INDEX reports_by_reported ON reports (reported_id);
