-- What a player is shown of each place they are signed in (docs/accounts.md): when it was last
-- used (written at most every ten minutes), the kind of device in a few words made from the
-- User-Agent (never the header itself) and the country the proxy said the sign-in came from
-- (never the address).
ALTER TABLE sessions ADD COLUMN seen_at BIGINT;
ALTER TABLE sessions ADD COLUMN device TEXT;
ALTER TABLE sessions ADD COLUMN country TEXT;
