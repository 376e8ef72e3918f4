-- Matches of a mini-ranking group (ON-G03, ON-G04) and against the server's Velha in a group
-- (ON-G05). They score only in their group: never in the standings, and the daily limit of
-- ON-G04 counts only the group's own matches. A Velha match has no O account.

ALTER TABLE matches ADD COLUMN group_id TEXT REFERENCES mini_groups (id);
ALTER TABLE matches ADD COLUMN against_velha BIGINT NOT NULL DEFAULT 0;

CREATE INDEX matches_by_group ON matches (group_id, state);
