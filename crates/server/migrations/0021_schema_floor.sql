-- The oldest version that may still serve on this schema, as the newest migration it must
-- know. A migration that only adds (a table, a column with a default, an index) leaves it, so
-- the version before it keeps serving during a rolling deploy and may restart meanwhile; one
-- that takes away or changes what an older version reads raises it to its own number, and an
-- older version then refuses to start instead of failing on its queries (docs/deploy.md,
-- "Rolling deploys").
CREATE TABLE schema_floor (
    only_row INTEGER PRIMARY KEY CHECK (only_row = 1),
    oldest_reader BIGINT NOT NULL
);
INSERT INTO schema_floor (only_row, oldest_reader) VALUES (1, 0);
