-- Jogo da Velha 2.0's competitive mode (ON-V01, ON-V02, V2-R05, V2-R06). Its matches are
-- matches like the cube's (one live match per player still holds through active_players),
-- told apart by `game`; a draw leaves `winner` empty. Ratings start at 1000 and change in the
-- transaction that ends the match. The queue is a table so that pairing survives a restart
-- and a player waits at most once (the primary key), however many requests race.

ALTER TABLE matches ADD COLUMN game TEXT NOT NULL DEFAULT 'cube';

CREATE TABLE v2_ratings (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    rating BIGINT NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX v2_ratings_by_rating ON v2_ratings (rating, account_id);

CREATE TABLE v2_queue (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    rating BIGINT NOT NULL,
    joined_at BIGINT NOT NULL
);

-- Each player's rating before and after a rated match, for the result screen and the replay.
ALTER TABLE matches ADD COLUMN x_rating_before BIGINT;
ALTER TABLE matches ADD COLUMN x_rating_after BIGINT;
ALTER TABLE matches ADD COLUMN o_rating_before BIGINT;
ALTER TABLE matches ADD COLUMN o_rating_after BIGINT;
