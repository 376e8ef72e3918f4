-- no-transaction
-- Seats away past their reconnection deadline (ON-M04) are looked for by every process's
-- sweeper four times a second (`Store::overdue_matches`). Its query could use no index for
-- the away columns, so it read every live match each time (0.44 ms with 2 000 live among a
-- million, and the whole table where most matches were live): with these two (a few rows
-- each, only live matches whose seat is away) each clock is an index range of its own, and a
-- sweep reads the overdue matches only (0.02 ms).
-- Built CONCURRENTLY, one a migration, as docs/deploy.md asks of a large table's index: the
-- moves of the version still serving are not held up while the table is read.
CREATE INDEX CONCURRENTLY matches_live_x_away ON matches (x_away_until)
    WHERE state = 'live' AND x_away_until IS NOT NULL;
