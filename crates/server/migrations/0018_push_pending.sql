-- Notices a stopping process had queued but not sent yet (a room's still waiting to see whether
-- the player looks): kept at shutdown, taken and sent by whichever process looks next
-- (docs/push.md). `notice` is the notice as JSON, `due_at` when its wait ends (ms).
CREATE TABLE push_pending (
    id TEXT PRIMARY KEY,
    due_at BIGINT NOT NULL,
    notice TEXT NOT NULL
);
