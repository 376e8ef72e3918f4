-- E-mail (docs/mail.md): when an account's address was proved to be its owner's (the link sent
-- to it followed, or Google said so), and the single-use links sent by e-mail. Only a link's
-- token's hash is kept; `email` is the address it was sent to, so a confirmation proves that
-- address and no other.
ALTER TABLE accounts ADD COLUMN email_verified_at BIGINT;

UPDATE accounts SET email_verified_at = created_at
    WHERE google_sub IS NOT NULL AND email IS NOT NULL AND password_hash IS NULL;

CREATE TABLE email_tokens (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    purpose TEXT NOT NULL,
    email TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);

CREATE INDEX email_tokens_by_account ON email_tokens (account_id, purpose, created_at);
