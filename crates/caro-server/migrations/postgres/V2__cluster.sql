-- Several instances on one database: a version per game (a write names
-- the version it changes), the state the instances share (offers, pause,
-- speed, the computer's search claim, the next game), and the instances
-- with the sockets each holds.
ALTER TABLE games ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN offers TEXT NOT NULL DEFAULT '';
ALTER TABLE games ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN delay_ms BIGINT NOT NULL DEFAULT 400;
ALTER TABLE games ADD COLUMN computer_turn INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN search_until BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN next_id BIGINT NOT NULL DEFAULT 0;
CREATE INDEX games_searches ON games(search_until) WHERE computer_turn = 1 AND result = '';
CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    seen BIGINT NOT NULL
);
CREATE TABLE presence (
    instance TEXT NOT NULL,
    game_id BIGINT NOT NULL,
    seat INTEGER NOT NULL,
    sockets INTEGER NOT NULL,
    PRIMARY KEY (instance, game_id, seat)
);
