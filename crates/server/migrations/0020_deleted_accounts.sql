-- Deleted accounts (docs/accounts.md): the row stays so that the games it played keep both
-- players, every other player's results stay right and `rankings rebuild --check` still
-- agrees; what identified the player is gone from it, and its name shows as "Jogador removido".
-- The name's key is kept until the quarantine ends, so nobody takes the name of a player who
-- just left; the first sign-up that asks for it afterwards frees it.
ALTER TABLE accounts ADD COLUMN deleted_at BIGINT;
