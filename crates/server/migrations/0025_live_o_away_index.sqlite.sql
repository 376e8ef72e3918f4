-- O's half of 0024_live_x_away_index.sqlite.sql.
CREATE INDEX matches_live_o_away ON matches (o_away_until)
    WHERE state = 'live' AND o_away_until IS NOT NULL;
