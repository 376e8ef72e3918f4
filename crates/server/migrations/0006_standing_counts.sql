-- How many players stand at each number of points, per level and country (ON-K04). A player's
-- place is then the players with more points — a sum over a few of these rows — plus those
-- with as many points who are ahead of them — a short range of the standings' index — rather
-- than a count over everyone ahead. Kept in the transaction that changes the standings; rows
-- that reach 0 stay (there are at most as many as distinct points).
CREATE TABLE standing_counts (
    level BIGINT NOT NULL,
    country TEXT NOT NULL,
    neg_points BIGINT NOT NULL,
    players BIGINT NOT NULL,
    PRIMARY KEY (level, country, neg_points)
);

INSERT INTO standing_counts (level, country, neg_points, players)
SELECT level, country, neg_points, COUNT(*) FROM standings GROUP BY level, country, neg_points;
