-- Mini-ranking groups (ON-G01 … ON-G09). Every limit is a constraint, so it holds however many
-- requests race: a creator has one group (creator_id is unique); a member takes one of the
-- group's 25 seats (seat 1 … 25, unique in the group) and one of their own 2 places (place 1 or
-- 2, unique per player), the group they created included.

CREATE TABLE mini_groups (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    creator_id TEXT NOT NULL UNIQUE REFERENCES accounts (id),
    with_velha BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE group_members (
    group_id TEXT NOT NULL REFERENCES mini_groups (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    seat BIGINT NOT NULL CHECK (seat BETWEEN 1 AND 25),
    place BIGINT NOT NULL CHECK (place BETWEEN 1 AND 2),
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (group_id, account_id),
    UNIQUE (group_id, seat),
    UNIQUE (account_id, place)
);

CREATE TABLE group_invitations (
    group_id TEXT NOT NULL REFERENCES mini_groups (id),
    account_id TEXT NOT NULL REFERENCES accounts (id),
    invited_at BIGINT NOT NULL,
    PRIMARY KEY (group_id, account_id)
);

CREATE INDEX group_invitations_by_account ON group_invitations (account_id);
