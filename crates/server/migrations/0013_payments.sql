-- Subscriptions a player buys (docs/payments.md). accounts.subscribed_until stays what every
-- gate reads, but it is now derived: the longer of an operator's grant and the paid access,
-- recomputed in the transaction that changes either, so the two never fight.

-- An operator's grant (`admin subscription grant`): its own row. Until now the column held
-- only grants, so it moves here whole.
CREATE TABLE subscription_grants (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    until BIGINT NOT NULL
);
INSERT INTO subscription_grants (account_id, until)
    SELECT id, subscribed_until FROM accounts WHERE subscribed_until IS NOT NULL;

-- The player's customer at each provider, once a checkout made one: the portal opens on it, and the next
-- checkout reuses it.
CREATE TABLE payment_customers (
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    PRIMARY KEY (account_id, provider),
    UNIQUE (provider, customer_id)
);

-- The provider's subscription as its last applied notice described it: the state is read from
-- the notice's object and replaces the row only when the notice is not older than the one that
-- wrote it (state_at, the provider's creation time, then its id), so notices arriving out of
-- order end in the provider's order.
CREATE TABLE paid_subscriptions (
    provider TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    status TEXT NOT NULL,
    cancel_at_period_end BIGINT NOT NULL,
    ended_at BIGINT,
    state_at BIGINT NOT NULL,
    state_event TEXT NOT NULL,
    -- What the rows below give: the latest period paid and not taken back, plus the grace
    -- (as it was configured then), cut at the end of a canceled one; NULL for none.
    access_until BIGINT,
    PRIMARY KEY (provider, subscription_id)
);
CREATE INDEX paid_subscriptions_by_account ON paid_subscriptions (account_id);

-- Each invoice of a subscription: the period it is for, and whether it was paid (a refused
-- payment leaves it unpaid until a retry pays it). Access lasts to the end of the latest period
-- paid and not taken back.
CREATE TABLE invoices (
    provider TEXT NOT NULL,
    invoice_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    payment_id TEXT,
    period_end BIGINT NOT NULL,
    paid BIGINT NOT NULL,
    PRIMARY KEY (provider, invoice_id)
);
CREATE INDEX invoices_by_subscription ON invoices (provider, subscription_id);
CREATE INDEX invoices_by_payment ON invoices (provider, payment_id);

-- Payments taken back, by the payment's id and why (a refund; a dispute, given back when won):
-- kept apart from the invoice, whose notice may come after.
CREATE TABLE withdrawn_payments (
    provider TEXT NOT NULL,
    payment_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    withdrawn BIGINT NOT NULL,
    state_at BIGINT NOT NULL,
    PRIMARY KEY (provider, payment_id, reason)
);

-- Every notice received, by the provider's id: a replayed or duplicated one finds its row and
-- changes nothing.
CREATE TABLE payment_events (
    provider TEXT NOT NULL,
    event_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    created BIGINT NOT NULL,
    received_at BIGINT NOT NULL,
    PRIMARY KEY (provider, event_id)
);

-- The one open checkout of a player: claimed by the row before the provider is asked, so ten
-- requests at once make one session.
CREATE TABLE checkouts (
    account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
    session_id TEXT,
    url TEXT,
    expires_at BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
