-- Changes to `standing_counts` not yet added to them (ON-K04). Every finished match changed the
-- same few counts in its own transaction (most players stand at a few points), so on
-- PostgreSQL the ends of concurrent matches waited for each other's commits on those rows:
-- 15 ms a match on average and 540 ms at worst, at 27 ends a second with two processes
-- (`bash scripts/bench-cluster.sh`). A transaction now appends its changes here, rows no other
-- transaction touches, and every process adds them to the counts about once a second
-- (`Store::fold_standing_counts`); a place in the ranking sums both, so it is never behind.
-- A version before this one goes on changing the counts directly (the same sums), but reads
-- the counts alone: a second behind while both serve. Its `admin rankings rebuild` leaves
-- these rows, to be counted again on top: after rolling back across this release, empty this
-- table before rebuilding (docs/deploy.md).
CREATE TABLE standing_count_changes (
    id TEXT PRIMARY KEY,
    level BIGINT NOT NULL,
    country TEXT NOT NULL,
    neg_points BIGINT NOT NULL,
    players BIGINT NOT NULL
);
-- A place in the ranking sums the changes of one level below some points.
CREATE INDEX standing_count_changes_level ON standing_count_changes (level, neg_points);
