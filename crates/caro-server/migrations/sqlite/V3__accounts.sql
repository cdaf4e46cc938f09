-- Accounts (optional: guests play as before) and their sessions. A name
-- is unique without regard to case (`name_key` is its lower case); a
-- session is stored as the SHA-256 of its token, never the token.
CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created BIGINT NOT NULL,
    disabled BIGINT NOT NULL DEFAULT 0,
    deleted BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    account_id BIGINT NOT NULL,
    created BIGINT NOT NULL
);
CREATE INDEX sessions_account ON sessions(account_id);
