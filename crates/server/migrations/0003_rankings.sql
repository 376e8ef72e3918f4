-- The world and national rankings (ON-K01 … ON-K04), one standing per player and level, kept
-- in the same transaction that records each result, so they never drift from the matches;
-- `velha-server admin rankings rebuild --check` recomputes them from the matches to prove it.

-- Whether a finished match scored: 0 when it was the third or later of its UTC day between the
-- same two players at its level (ON-K03); NULL while it is not over.
ALTER TABLE matches ADD COLUMN scored BIGINT;

CREATE INDEX matches_by_pair ON matches (x_id, o_id, level, ended_at);

-- National rankings are the world standings of one country's players; `country` follows the
-- account's country. The order (ON-K04: more points, more wins, fewer losses) is kept as
-- ascending columns — points and wins negated — so that a page after a cursor and a player's
-- position are one row comparison on one index: `(neg_points, neg_wins, losses, reached_at,
-- account_id)`. `reached_at` is when the player reached their current points (the earlier,
-- the higher among equals); the account id makes the order total.
CREATE TABLE standings (
    account_id TEXT NOT NULL REFERENCES accounts (id),
    level BIGINT NOT NULL,
    country TEXT NOT NULL,
    neg_points BIGINT NOT NULL,
    neg_wins BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    reached_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, level)
);

CREATE INDEX standings_world ON standings (level, neg_points, neg_wins, losses, reached_at, account_id);
CREATE INDEX standings_national ON standings (level, country, neg_points, neg_wins, losses, reached_at, account_id);
