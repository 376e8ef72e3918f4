-- No query reads rooms by their last activity alone (a player's rooms are found through their
-- seats, then sorted), and every move changed this index.
DROP INDEX rooms_by_activity;
