-- As 0024_live_x_away_index.postgres.sql says (SQLite builds it in its one writer's turn, and
-- its query names the index: SQLite keeps no statistics here and would search by state).
CREATE INDEX matches_live_x_away ON matches (x_away_until)
    WHERE state = 'live' AND x_away_until IS NOT NULL;
