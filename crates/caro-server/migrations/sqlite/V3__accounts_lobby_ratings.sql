-- Accounts (optional: guests play as before) and their sessions, the
-- lobby's seeks, the games made from them, and Glicko-2 ratings. A name
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
-- A seek: what its poster wants to play. `game_id` is 0 while it is open,
-- -1 while one taker makes the game, then the game's id.
CREATE TABLE seeks (
    id INTEGER PRIMARY KEY,
    account_id BIGINT NOT NULL,
    guest_token TEXT NOT NULL,
    owner TEXT NOT NULL,
    rule TEXT NOT NULL,
    width BIGINT NOT NULL,
    height BIGINT NOT NULL,
    opening TEXT NOT NULL,
    minutes BIGINT NOT NULL,
    increment BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    colour TEXT NOT NULL,
    created BIGINT NOT NULL,
    expires BIGINT NOT NULL,
    cancelled BIGINT NOT NULL DEFAULT 0,
    taker_account BIGINT NOT NULL DEFAULT 0,
    game_id BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX seeks_open ON seeks(expires) WHERE game_id = 0 AND cancelled = 0;
-- A game made from a seek: its seats' accounts (0: a guest) and, for a
-- rated one, its state: playing, rated (once, when it ended) or aborted.
CREATE TABLE lobby_games (
    game_id BIGINT PRIMARY KEY,
    first_account BIGINT NOT NULL,
    second_account BIGINT NOT NULL,
    variant TEXT NOT NULL,
    rated BIGINT NOT NULL,
    state TEXT NOT NULL,
    first_rating DOUBLE PRECISION NOT NULL DEFAULT 0,
    first_change DOUBLE PRECISION NOT NULL DEFAULT 0,
    second_rating DOUBLE PRECISION NOT NULL DEFAULT 0,
    second_change DOUBLE PRECISION NOT NULL DEFAULT 0,
    -- The rest of each seat's standing before the game: what a replay of
    -- the ratings starts each game from.
    first_deviation DOUBLE PRECISION NOT NULL DEFAULT 0,
    first_volatility DOUBLE PRECISION NOT NULL DEFAULT 0,
    first_games BIGINT NOT NULL DEFAULT 0,
    second_deviation DOUBLE PRECISION NOT NULL DEFAULT 0,
    second_volatility DOUBLE PRECISION NOT NULL DEFAULT 0,
    second_games BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX lobby_games_first ON lobby_games(first_account);
CREATE INDEX lobby_games_second ON lobby_games(second_account);
CREATE TABLE ratings (
    account_id BIGINT NOT NULL,
    variant TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    wins BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    losses BIGINT NOT NULL,
    updated BIGINT NOT NULL,
    PRIMARY KEY (account_id, variant)
);
CREATE TABLE rating_history (
    account_id BIGINT NOT NULL,
    variant TEXT NOT NULL,
    game_id BIGINT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (account_id, variant, game_id)
);
