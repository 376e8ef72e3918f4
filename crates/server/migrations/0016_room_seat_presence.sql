-- Which processes hold a connection of each room seat (a player may hold several): the push
-- sender tells nobody who is looking at the room through any process (docs/push.md). Written
-- on PostgreSQL only: on SQLite the one process knows its own connections.
CREATE TABLE room_seat_presence (
    room_id TEXT NOT NULL,
    seat TEXT NOT NULL,
    process TEXT NOT NULL,
    connections BIGINT NOT NULL,
    PRIMARY KEY (room_id, seat, process)
);

CREATE INDEX room_seat_presence_by_process ON room_seat_presence (process);
