//! Games as `caro match --psq` saves them, seen from one player's side:
//! what `caro analyse losses` and `caro analyse missed-wins` read.

use std::path::{Path, PathBuf};

use caro_core::psq::{read_psq, PsqRecord};
use caro_core::table::Sitter;
use caro_core::{Color, Game};

use crate::UsageError;

/// One saved game, from the start, seen from one player's side.
pub struct SavedGame {
    /// The file it was read from.
    pub path: PathBuf,
    /// The record as read.
    pub record: PsqRecord,
    /// The game at its start (before the first move).
    pub start: Game,
    /// Whether the named player had black.
    pub mine_black: bool,
    /// Whether the named player won, drew or lost.
    pub result: PlayerResult,
    /// The parity of the player's moves in `record.moves` (0: the first
    /// move is the player's).
    pub mine: usize,
}

/// A game's result for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// The names and result of caro's own line, `black=NAME white=NAME
/// result=...` (a name may hold spaces, as a pbrain path can).
fn players_line(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("black=")?;
    let (black, rest) = rest.rsplit_once(" white=")?;
    let (white, result) = rest.rsplit_once(" result=")?;
    Some((black, white, result.trim()))
}

/// Reads the game at `path` and the side of the player whose name
/// contains `name` (black's, when both names do).
///
/// # Errors
/// A [`UsageError`] naming the file when it cannot be read, was not
/// written by `caro match`, does not replay, or neither player's name
/// contains `name`.
pub fn read_saved_game(path: &Path, name: &str) -> Result<SavedGame, UsageError> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read {shown}: {e}")))?;
    let (black, white, result) = text.lines().find_map(players_line).ok_or_else(|| {
        UsageError(format!(
            "{shown}: no `black=... white=... result=...` line (not saved by caro match --psq)"
        ))
    })?;
    let mine_black = black.contains(name);
    if !mine_black && !white.contains(name) {
        return Err(UsageError(format!(
            "{shown}: neither player's name contains {name:?} (black {black}, white {white})"
        )));
    }
    let mine_won = if mine_black {
        "black_wins"
    } else {
        "white_wins"
    };
    // `black_wins_by_five`, `white_wins:_black_lost_on_time_(...)`, `draw`.
    let result = if result.starts_with(mine_won) {
        PlayerResult::Won
    } else if result.starts_with("draw") {
        PlayerResult::Drew
    } else {
        PlayerResult::Lost
    };
    let record = read_psq(&text).map_err(|e| UsageError(format!("{shown}: {e}")))?;
    // A game under a swap or renju opening must replay with its choices
    // and offers.
    if record.opening != caro_core::opening::Opening::Free {
        record
            .to_table([Sitter::Human, Sitter::Human])
            .map_err(|e| UsageError(format!("{shown}: {e}")))?;
    }
    let mut start = record
        .to_game()
        .map_err(|e| UsageError(format!("{shown}: the moves do not replay: {e}")))?;
    while start.undo().is_some() {}
    let mine = usize::from((record.first == Color::Black) != mine_black);
    Ok(SavedGame {
        path: path.to_path_buf(),
        record,
        start,
        mine_black,
        result,
        mine,
    })
}

/// The game files named: each file as given, each folder's `.psq` files
/// in name order.
///
/// # Errors
/// A [`UsageError`] for a path that cannot be read or a folder with no
/// `.psq` file.
pub fn game_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, UsageError> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let entries = std::fs::read_dir(path)
            .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "psq"))
            .collect();
        if found.is_empty() {
            return Err(UsageError(format!(
                "{} holds no .psq files",
                path.display()
            )));
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}

/// Every game of `paths` (files, or folders of `.psq` files) read for the
/// player whose name contains `name`: all are read before any is
/// analysed, so a bad file stops the command at once.
///
/// # Errors
/// As [`game_files`] and [`read_saved_game`].
pub fn read_saved_games(paths: &[PathBuf], name: &str) -> Result<Vec<SavedGame>, UsageError> {
    game_files(paths)?
        .iter()
        .map(|p| read_saved_game(p, name))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_players_line_splits_at_its_keys() {
        assert_eq!(
            players_line("black=caro:1 white=caro:5 result=white_wins_by_five"),
            Some(("caro:1", "caro:5", "white_wins_by_five"))
        );
        assert_eq!(
            players_line("black=pbrain:/My Engines/x white=caro:10 result=draw"),
            Some(("pbrain:/My Engines/x", "caro:10", "draw"))
        );
        assert_eq!(players_line("moves=h8,i9"), None);
        assert_eq!(players_line("black=a result=draw"), None);
    }
}
