-- Devices that agreed to be told of their turn while the app is closed (docs/push.md). A device
-- subscribes once (its push endpoint is unique) for the seats it holds and, when signed in,
-- for its account; re-subscribing replaces the seats and keys.
CREATE TABLE push_subscriptions (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    language TEXT NOT NULL,
    account_id TEXT REFERENCES accounts (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    failures BIGINT NOT NULL DEFAULT 0,
    UNIQUE (kind, endpoint)
);
CREATE INDEX push_subscriptions_by_account ON push_subscriptions (account_id);

-- The seats a subscription is told of, by their credentials' hashes: only a seat's credential
-- proves one, so a spectator cannot subscribe.
CREATE TABLE push_seats (
    subscription_id TEXT NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
    credential_hash TEXT NOT NULL REFERENCES room_seats (credential_hash),
    PRIMARY KEY (subscription_id, credential_hash)
);
CREATE INDEX push_seats_by_credential ON push_seats (credential_hash);
