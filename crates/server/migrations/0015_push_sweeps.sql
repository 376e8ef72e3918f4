-- What the push sender's sweep of quiet rooms has looked at (docs/push.md): a room, what it
-- would tell (`away`: the other may claim the game; `closing`: the room closes tomorrow), and
-- the room's last activity then. One row per quiet stretch: every process sweeps, and only
-- the one whose insert made the row tells, so a notice goes out once.
CREATE TABLE push_sweeps (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    about TEXT NOT NULL,
    activity BIGINT NOT NULL,
    PRIMARY KEY (room_id, about, activity)
);

-- The sweep reads rooms by how long they have been quiet (0010 dropped the index no query used).
CREATE INDEX rooms_by_activity ON rooms (last_activity);
