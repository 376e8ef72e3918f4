-- One open or live match per player (ON-M02), kept by the database itself: a player has a row
-- here exactly while they are in an open or live match, and the primary key refuses a second,
-- however many requests race. Rows are written and deleted in the same transaction as the
-- match's change of state.

CREATE TABLE active_players (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    match_id TEXT NOT NULL REFERENCES matches (id)
);

CREATE INDEX active_players_by_match ON active_players (match_id);

-- Before this table, racing requests could give a player several matches: each such player
-- keeps the match with the smallest id counted; the others still end as usual.
INSERT INTO active_players (account_id, match_id)
SELECT account_id, MIN(match_id) FROM (
    SELECT x_id AS account_id, id AS match_id FROM matches WHERE state IN ('open', 'live')
    UNION ALL
    SELECT o_id AS account_id, id AS match_id FROM matches WHERE state = 'live' AND o_id IS NOT NULL
) AS playing
GROUP BY account_id;
