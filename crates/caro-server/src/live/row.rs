//! A game's stored form, and a game replayed from it.

use std::time::Instant;

use caro_core::{BoardSize, Color, Game, Outcome, Pos, Rule, Rules};

use super::{parse_color, Clock, LiveGame, Online, Seat};
use crate::store::{GameRow, StoreError};

fn write_moves(moves: &[Pos]) -> String {
    moves
        .iter()
        .map(|p| format!("{},{}", p.x, p.y))
        .collect::<Vec<_>>()
        .join(" ")
}

fn read_moves(text: &str) -> Option<Vec<Pos>> {
    text.split_whitespace()
        .map(|m| {
            let (x, y) = m.split_once(',')?;
            Some(Pos::new(x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

impl LiveGame {
    /// The stored form.
    #[must_use]
    pub fn to_row(&self) -> GameRow {
        let rules = self.game.rules();
        let (result, ending) = match (&self.failed, self.game.outcome()) {
            (Some(reason), _) => (
                self.game.to_move().opponent().name().to_string(),
                format!("failed: {reason}"),
            ),
            (None, Some(outcome)) => {
                let view = self.result_view().map(|r| r.reason).unwrap_or("draw");
                let winner = outcome.winner().map_or("draw", Color::name);
                let ending = match outcome {
                    Outcome::Resigned { winner } => {
                        format!("resign {}", winner.opponent().name())
                    }
                    _ => view.to_string(),
                };
                (winner.to_string(), ending)
            }
            (None, None) if self.timed_out.is_some() => {
                let loser = self.timed_out.unwrap_or(Color::Black);
                (
                    loser.opponent().name().to_string(),
                    format!("time {}", loser.name()),
                )
            }
            (None, None) if self.agreed_draw => ("draw".to_string(), "agreed".to_string()),
            (None, None) => (String::new(), String::new()),
        };
        let (black_token, white_token, owner) = match &self.online {
            Some(o) => (o.tokens[0].clone(), o.tokens[1].clone(), o.owner.clone()),
            None => Default::default(),
        };
        let clock = self
            .online
            .as_ref()
            .and_then(|o| o.clock.as_ref())
            .map(|c| c.to_text(Instant::now()))
            .unwrap_or_default();
        GameRow {
            id: self.id,
            created: self.created,
            updated: self.updated,
            black: self.seats[0].name().to_string(),
            white: self.seats[1].name().to_string(),
            width: rules.size.width,
            height: rules.size.height,
            k: rules.k,
            rule: rules.rule.name().to_string(),
            first: self.game.first().name().to_string(),
            time_ms: self.time_ms,
            moves: write_moves(self.game.moves()),
            redo: write_moves(self.game.redo_moves()),
            result,
            ending,
            black_token,
            white_token,
            owner,
            clock,
        }
    }

    /// A stored game, replayed.
    ///
    /// # Errors
    /// [`StoreError::Damaged`] when the row does not make a game.
    pub fn from_row(row: &GameRow) -> Result<LiveGame, StoreError> {
        let damaged = |reason: String| StoreError::Damaged { id: row.id, reason };
        let size = BoardSize::new(row.width, row.height).map_err(|e| damaged(e.to_string()))?;
        let rule: Rule = row
            .rule
            .parse()
            .map_err(|_| damaged(format!("rule {:?}", row.rule)))?;
        let rules = Rules::new(size, row.k, rule).map_err(|e| damaged(e.to_string()))?;
        let first = parse_color(&row.first).ok_or_else(|| damaged("first colour".into()))?;
        let moves = read_moves(&row.moves).ok_or_else(|| damaged("moves".into()))?;
        let redo = read_moves(&row.redo).ok_or_else(|| damaged("redo moves".into()))?;
        let mut game = Game::new(rules, first).map_err(|e| damaged(e.to_string()))?;
        // Replay the redo line too, then take it back, so redo works after
        // a restart.
        for &p in moves.iter().chain(redo.iter()) {
            game.try_play(p).map_err(|e| damaged(e.to_string()))?;
        }
        for _ in &redo {
            game.undo();
        }
        let mut failed = None;
        if let Some(reason) = row.ending.strip_prefix("failed: ") {
            failed = Some(reason.to_string());
        } else if let Some(loser) = row.ending.strip_prefix("resign ") {
            let loser = parse_color(loser).ok_or_else(|| damaged("resigned colour".into()))?;
            game.resign_side(loser)
                .map_err(|e| damaged(e.to_string()))?;
        }
        let seat = |name: &str| {
            if name == "human" {
                Seat::Human
            } else {
                Seat::Computer(name.to_string())
            }
        };
        let mut live = LiveGame::new(game, [seat(&row.black), seat(&row.white)], row.time_ms);
        live.id = row.id;
        live.failed = failed;
        live.agreed_draw = row.ending == "agreed";
        if let Some(loser) = row.ending.strip_prefix("time ") {
            live.timed_out =
                Some(parse_color(loser).ok_or_else(|| damaged("timed-out colour".into()))?);
        }
        if !row.black_token.is_empty() && !row.white_token.is_empty() {
            let clock = if row.clock.is_empty() {
                None
            } else {
                Some(Clock::from_text(&row.clock).ok_or_else(|| damaged("clock".into()))?)
            };
            live.online = Some(Online {
                tokens: [row.black_token.clone(), row.white_token.clone()],
                owner: row.owner.clone(),
                clock,
                ..Online::default()
            });
            // The clock runs on from where it was stored.
            live.settle_clock(None, Instant::now());
        }
        live.created = row.created;
        live.updated = row.updated;
        Ok(live)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::game;
    use super::super::*;

    #[test]
    fn rows_round_trip_with_redo_and_resignation() {
        let mut g = game(5, [Seat::Human, Seat::Human]);
        for (i, p) in [Pos::new(0, 0), Pos::new(1, 0), Pos::new(0, 1)]
            .into_iter()
            .enumerate()
        {
            g.play_human(i, p).unwrap();
        }
        g.undo(None).unwrap();
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.game.moves(), g.game.moves());
        assert_eq!(back.game.redo_moves(), g.game.redo_moves());
        g.resign(None).unwrap();
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.result_view(), g.result_view());
        assert_eq!(
            back.result_view().unwrap().winner,
            Some("white"),
            "black, to move, resigned"
        );
    }
}
