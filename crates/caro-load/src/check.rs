//! Every stored game compared with what its two players saw.

use std::collections::HashSet;

use serde_json::Value;

use crate::client::{parse_moves, ClientEnd, Point};
use crate::LoadError;

/// What the stored games hold that they should not, summed over games.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Check {
    /// Games read.
    pub games: usize,
    /// Moves a player saw stored that are not at their ply.
    pub lost: usize,
    /// Stored moves on a point already taken at an earlier ply.
    pub duplicated: usize,
    /// Stored moves no player saw acknowledged.
    pub unacknowledged: usize,
    /// Games whose stored moves differ from the last view of a player who
    /// saw the game end.
    pub differing: usize,
    /// Games stored without a result.
    pub unfinished: usize,
    /// Games that could not be read.
    pub unreadable: usize,
}

impl Check {
    /// Nothing wrong.
    pub fn clean(&self) -> bool {
        self.lost == 0
            && self.duplicated == 0
            && self.unacknowledged == 0
            && self.differing == 0
            && self.unfinished == 0
            && self.unreadable == 0
    }

    /// The two checks together.
    pub fn add(&mut self, other: &Check) {
        self.games += other.games;
        self.lost += other.lost;
        self.duplicated += other.duplicated;
        self.unacknowledged += other.unacknowledged;
        self.differing += other.differing;
        self.unfinished += other.unfinished;
        self.unreadable += other.unreadable;
    }
}

/// Compares one stored game (`GET /api/games/ID`) with its players' ends.
pub fn check_game(stored: &Value, players: &[&ClientEnd]) -> Check {
    let mut check = Check {
        games: 1,
        ..Check::default()
    };
    let Some(moves) = parse_moves(&stored["moves"]) else {
        check.unreadable = 1;
        return check;
    };
    if stored["result"].is_null() {
        check.unfinished = 1;
    }
    let mut points: HashSet<Point> = HashSet::new();
    check.duplicated = moves.iter().filter(|p| !points.insert(**p)).count();
    let mut acked_plies: HashSet<usize> = HashSet::new();
    for player in players {
        for &(ply, point) in &player.acked {
            if moves.get(ply) == Some(&point) {
                acked_plies.insert(ply);
            } else {
                check.lost += 1;
            }
        }
    }
    check.unacknowledged = moves.len() - acked_plies.len();
    if players.iter().any(|p| p.finished && p.moves != moves) {
        check.differing = 1;
    }
    check
}

/// Reads every game from the instance at `base` (`http://host:port`) and
/// checks it against `players` (two per game, in the order of `ids`).
pub fn check_all(base: &str, ids: &[i64], players: &[ClientEnd]) -> Result<Check, LoadError> {
    let agent: ureq::Agent = ureq::Agent::config_builder().build().into();
    let mut total = Check::default();
    for (i, id) in ids.iter().enumerate() {
        let stored = agent
            .get(&format!("{base}/api/games/{id}"))
            .call()
            .map_err(|e| LoadError::Http(e.to_string()))
            .and_then(|mut r| {
                r.body_mut()
                    .read_json::<Value>()
                    .map_err(|e| LoadError::Http(e.to_string()))
            });
        let check = match stored {
            Ok(stored) => check_game(&stored, &[&players[2 * i], &players[2 * i + 1]]),
            Err(_) => Check {
                games: 1,
                unreadable: 1,
                ..Check::default()
            },
        };
        total.add(&check);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn player(acked: &[(usize, Point)], moves: &[Point]) -> ClientEnd {
        ClientEnd {
            acked: acked.to_vec(),
            moves: moves.to_vec(),
            finished: true,
            ..ClientEnd::default()
        }
    }

    #[test]
    fn a_game_as_played_is_clean() {
        let moves = [(7, 7), (8, 8), (7, 8)];
        let black = player(&[(0, (7, 7)), (2, (7, 8))], &moves);
        let white = player(&[(1, (8, 8))], &moves);
        let stored = json!({"moves": [[7, 7], [8, 8], [7, 8]], "result": "black"});
        let check = check_game(&stored, &[&black, &white]);
        assert!(check.clean(), "{check:?}");
    }

    #[test]
    fn a_lost_move_a_duplicate_and_an_unfinished_game_are_counted() {
        let black = player(&[(0, (7, 7)), (2, (7, 8))], &[(7, 7), (8, 8)]);
        let white = player(&[(1, (8, 8))], &[(7, 7), (8, 8)]);
        let stored = json!({"moves": [[7, 7], [8, 8]], "result": null});
        let check = check_game(&stored, &[&black, &white]);
        assert_eq!(check.lost, 1);
        assert_eq!(check.unfinished, 1);
        assert_eq!(check.duplicated, 0);
        assert!(!check.clean());

        let stored = json!({"moves": [[7, 7], [8, 8], [7, 7]], "result": "draw"});
        let check = check_game(&stored, &[&black, &white]);
        assert_eq!(check.duplicated, 1);
        assert_eq!(check.lost, 1);
        assert_eq!(check.unacknowledged, 1);
        assert_eq!(check.differing, 1);
    }

    #[test]
    fn an_unreadable_game_is_counted() {
        let check = check_game(&json!({"error": "not found"}), &[]);
        assert_eq!(check.unreadable, 1);
        assert!(!check.clean());
    }
}
