-- The schema as it was before versioned migrations: games with every
-- column up to `names`, analyses, matches and their indexes. Everything is
-- created only if missing, so a file from then (brought up to these
-- columns when it is opened) passes through unchanged.
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    width INTEGER NOT NULL,
    height INTEGER NOT NULL,
    k INTEGER NOT NULL,
    rule TEXT NOT NULL,
    first TEXT NOT NULL,
    time_ms INTEGER NOT NULL,
    moves TEXT NOT NULL,
    redo TEXT NOT NULL,
    result TEXT NOT NULL,
    ending TEXT NOT NULL,
    black_token TEXT NOT NULL DEFAULT '',
    white_token TEXT NOT NULL DEFAULT '',
    owner TEXT NOT NULL DEFAULT '',
    clock TEXT NOT NULL DEFAULT '',
    opening TEXT NOT NULL DEFAULT 'free',
    choices TEXT NOT NULL DEFAULT '',
    match_id INTEGER NOT NULL DEFAULT 0,
    game_no INTEGER NOT NULL DEFAULT 0,
    hints INTEGER NOT NULL DEFAULT 0,
    names TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS games_updated ON games(updated);
CREATE INDEX IF NOT EXISTS games_match ON games(match_id) WHERE match_id <> 0;
CREATE UNIQUE INDEX IF NOT EXISTS games_match_game ON games(match_id, game_no) WHERE match_id <> 0;
CREATE TABLE IF NOT EXISTS analyses (
    game_id INTEGER PRIMARY KEY,
    position TEXT NOT NULL,
    engine TEXT NOT NULL,
    data TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    first_to INTEGER NOT NULL,
    player_a TEXT NOT NULL,
    player_b TEXT NOT NULL,
    created INTEGER NOT NULL
);
