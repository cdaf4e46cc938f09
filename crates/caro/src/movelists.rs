//! Files of move lists, one per line (`h8 i9 j10`, commas also work),
//! with `#` comments: the openings of `caro match`, the positions of
//! `caro bench --solve`.

use std::path::Path;

use caro_core::notation::parse_move_list;
use caro_core::{BoardSize, Pos};

use crate::UsageError;

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
