//! What the game-reading examples share: a game file as `caro match
//! --psq` saves it, and which side a named player had.

// Each example uses a part of it.
#![allow(dead_code)]

use caro_core::psq::{read_psq, PsqRecord};
use caro_core::{Color, Game};

/// One saved game, from the start, seen from one player's side.
pub struct SavedGame {
    /// The record as read.
    pub record: PsqRecord,
    /// The game at its start (before the first move).
    pub start: Game,
    /// Whether the named player had black.
    pub mine_black: bool,
    /// Whether the named player won, drew (board full) or lost.
    pub result: PlayerResult,
    /// The parity of the player's moves in `record.moves` (0: the first
    /// move is the player's).
    pub mine: usize,
}

/// A game's result for one player.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum PlayerResult {
    Won,
    Drew,
    Lost,
}

impl PlayerResult {
    /// "won", "drew" or "lost".
    pub fn word(self) -> &'static str {
        match self {
            PlayerResult::Won => "won",
            PlayerResult::Drew => "drew",
            PlayerResult::Lost => "lost",
        }
    }
}

/// Reads the game at `path` and the side of the player whose name
/// contains `name`; says on stderr why not and gives `None` when the
/// file cannot be read, was not written by `caro match`, or does not
/// replay.
pub fn read_saved_game(path: &str, name: &str) -> Option<SavedGame> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| eprintln!("{path}: {e}"))
        .ok()?;
    // caro's own line: `black=NAME white=NAME result=...`.
    let Some(players) = text.lines().find(|l| l.starts_with("black=")) else {
        eprintln!("{path}: no players line (not written by caro match)");
        return None;
    };
    let black = players.split_whitespace().next().unwrap_or("");
    let mine_black = black.contains(name);
    let mine_won = if mine_black {
        "result=black_wins"
    } else {
        "result=white_wins"
    };
    let result = if players.contains(mine_won) {
        PlayerResult::Won
    } else if players.contains("result=draw") {
        PlayerResult::Drew
    } else {
        PlayerResult::Lost
    };
    let record = read_psq(&text).map_err(|e| eprintln!("{path}: {e}")).ok()?;
    let Ok(mut start) = record.to_game() else {
        eprintln!("{path}: the moves do not replay");
        return None;
    };
    while start.undo().is_some() {}
    let mine = usize::from((record.first == Color::Black) != mine_black);
    Some(SavedGame {
        record,
        start,
        mine_black,
        result,
        mine,
    })
}
