//! Files of move lists, one per line (`h8 i9 j10`, commas also work),
//! with `#` comments: the openings of `caro match`, the positions of
//! `caro bench --solve`.

use std::path::Path;

use caro_core::notation::parse_move_list;
use caro_core::{BoardSize, Color, Game, Pos, Rules};
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::matchcmd::random_opening;
use crate::UsageError;

/// Random openings, when a command has no openings file: how many, of how
/// many plies near the centre, from which seed.
pub struct RandomOpenings {
    /// Openings to make.
    pub count: usize,
    /// Plies of each.
    pub plies: usize,
    /// Seed of their moves.
    pub seed: u64,
}

/// The openings of a series of games under `rules`: the file's move
/// lists in order, or `random` ones; each checked legal and not already
/// over (`caro selfplay`, `caro tune`).
///
/// # Errors
/// A [`UsageError`] for a file that cannot be read or holds no list, or
/// an opening that is illegal or ends the game, named by its number.
pub fn game_openings(
    file: Option<&Path>,
    rules: Rules,
    random: &RandomOpenings,
) -> Result<Vec<Vec<Pos>>, UsageError> {
    let lists: Vec<Vec<Pos>> = match file {
        Some(path) => read_move_lists(path, rules.size, "openings")?
            .into_iter()
            .map(|(_, moves)| moves)
            .collect(),
        None => {
            let mut rng = StdRng::seed_from_u64(random.seed);
            (0..random.count.max(1))
                .map(|_| random_opening(&rules, random.plies, &mut rng))
                .collect()
        }
    };
    for (n, moves) in lists.iter().enumerate() {
        let game = Game::from_moves(rules, Color::Black, moves)
            .map_err(|e| UsageError(format!("opening {}: {e}", n + 1)))?;
        if game.is_over() {
            return Err(UsageError(format!(
                "opening {} already ends the game",
                n + 1
            )));
        }
    }
    Ok(lists)
}

/// The move lists of a file with their line numbers (from 1), each
/// checked as moves of a board of `size`; `what` names them in the error
/// for a file that holds none.
///
/// # Errors
/// A [`UsageError`] naming the file, line and move for a file that
/// cannot be read, a move that is not one, or a file with no list.
pub fn read_move_lists(
    path: &Path,
    size: BoardSize,
    what: &str,
) -> Result<Vec<(usize, Vec<Pos>)>, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let moves = parse_move_list(line, size).map_err(|(m, e)| {
            UsageError(format!("{} line {}: move {m}: {e}", path.display(), n + 1))
        })?;
        out.push((n + 1, moves));
    }
    if out.is_empty() {
        return Err(UsageError(format!("{} holds no {what}", path.display())));
    }
    Ok(out)
}
