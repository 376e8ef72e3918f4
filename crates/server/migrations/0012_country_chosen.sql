-- Whether the player picked the account's country themselves (ON-A02): 1 keeps it from the
-- phone's region, which otherwise sets it whenever it changes. A number, as against_velha,
-- since SQLite and PostgreSQL share no boolean type. Accounts made before followed the region.
ALTER TABLE accounts ADD COLUMN country_chosen BIGINT NOT NULL DEFAULT 0;
