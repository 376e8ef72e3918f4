-- Deleted accounts (docs/accounts.md): the row stays so that the games it played keep both
-- players, every other player's results stay right and `rankings rebuild --check` still
-- agrees; what identified the player is gone from it, and its name shows as "Jogador removido".
-- The name's key is kept until the quarantine ends, so nobody takes the name of a player who
-- just left; the first sign-up that asks for it afterwards frees it.
ALTER TABLE accounts ADD COLUMN deleted_at BIGINT;

-- The deleted accounts whose names are still kept: what the hourly sweep that frees them reads,
-- so that it never walks every account.
CREATE INDEX accounts_named_deleted ON accounts (deleted_at)
    WHERE deleted_at IS NOT NULL AND name_key NOT LIKE 'removed:%';
