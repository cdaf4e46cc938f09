//! A game's stored form, and a game replayed from it.

use std::time::Instant;

use caro_core::opening::{Choice, Opening};
use caro_core::table::{Ending, Table};
use caro_core::{BoardSize, Color, Pos, Rule, Rules};

use super::{parse_color, sitter, Clock, LiveGame, MatchLink, Online};
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
        let game = self.game();
        let rules = game.rules();
        let (result, ending) = match self.table.ending() {
            None => (String::new(), String::new()),
            Some(e) => {
                let winner = e.winner().map_or("draw", Color::name).to_string();
                let ending = match &e {
                    Ending::Resign { winner } => format!("resign {}", winner.opponent()),
                    Ending::Time { loser } => format!("time {loser}"),
                    Ending::Failed { reason, .. } => format!("failed: {reason}"),
                    other => other.code().to_string(),
                };
                (winner, ending)
            }
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
        let [first, second] = self.table.sitters();
        GameRow {
            id: self.id,
            created: self.created,
            updated: self.updated,
            black: first.name().to_string(),
            white: second.name().to_string(),
            width: rules.size.width,
            height: rules.size.height,
            k: rules.k,
            rule: rules.rule.name().to_string(),
            first: game.first().name().to_string(),
            time_ms: self.time_ms,
            moves: write_moves(game.moves()),
            redo: write_moves(game.redo_moves()),
            result,
            ending,
            black_token,
            white_token,
            owner,
            clock,
            opening: self.table.opening().opening().name().to_string(),
            choices: write_choices(&self.table),
            match_id: self.series.as_ref().map_or(0, |m| m.id),
            game_no: self.series.as_ref().map_or(0, |m| m.game_no),
            hints: self.hints,
            names: self
                .names
                .as_ref()
                .map(|n| n.join("\n"))
                .unwrap_or_default(),
            version: self.version,
            offers: self
                .online
                .as_ref()
                .map(Online::offers_text)
                .unwrap_or_default(),
            paused: match (self.paused, self.step_pending) {
                (false, _) => 0,
                (true, false) => 1,
                (true, true) => 2,
            },
            delay_ms: self.delay_ms,
            computer_turn: self.computer_turn(),
            search_until: self.search_until,
            next_id: self
                .online
                .as_ref()
                .and_then(|o| o.next.as_ref().map(|n| n.0))
                .or_else(|| self.series.as_ref().and_then(|m| m.next))
                .unwrap_or(0),
        }
    }

    /// A stored game, replayed. A match game's [`MatchLink`] holds only its
    /// match's id and its number: the store fills in the rest
    /// ([`LiveGame::link_match`]).
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
        let opening: Opening = row
            .opening
            .parse()
            .map_err(|_| damaged(format!("opening {:?}", row.opening)))?;
        let (choices, offers) = read_choices(&row.choices).map_err(damaged)?;
        // The redo line is replayed too, then taken back, so redo works
        // after a restart.
        let mut table = Table::replay_with_offers(
            rules,
            first,
            opening,
            [sitter(&row.black), sitter(&row.white)],
            &moves,
            &redo,
            &choices,
            &offers,
        )
        .map_err(|e| damaged(e.to_string()))?;
        let ended = if let Some(reason) = row.ending.strip_prefix("failed: ") {
            let seat = table
                .turn()
                .seat()
                .unwrap_or(caro_core::opening::Seat::First);
            table.fail(seat, reason).map(|_| ())
        } else if let Some(loser) = row.ending.strip_prefix("resign ") {
            let loser = parse_color(loser).ok_or_else(|| damaged("resigned colour".into()))?;
            let seat = table.seat_of(loser);
            table.resign(Some(seat)).map(|_| ())
        } else if let Some(loser) = row.ending.strip_prefix("time ") {
            let loser = parse_color(loser).ok_or_else(|| damaged("timed-out colour".into()))?;
            table.time_out(loser).map(|_| ())
        } else if row.ending == "agreed" {
            table.agree_draw().map(|_| ())
        } else {
            Ok(())
        };
        ended.map_err(|e| damaged(format!("ending {:?}: {e}", row.ending)))?;
        let mut live = LiveGame::new(table, row.time_ms);
        live.id = row.id;
        live.hints = row.hints;
        live.names = row
            .names
            .split_once('\n')
            .map(|(b, w)| [b.to_string(), w.to_string()]);
        if row.match_id != 0 {
            live.series = Some(MatchLink {
                id: row.match_id,
                first_to: 1,
                players: [row.black.clone(), row.white.clone()],
                game_no: row.game_no.max(1),
                earlier: Vec::new(),
                games: vec![row.id],
                next: None,
            });
        }
        if !row.black_token.is_empty() && !row.white_token.is_empty() {
            let clock = if row.clock.is_empty() {
                None
            } else {
                Some(Clock::from_text(&row.clock).ok_or_else(|| damaged("clock".into()))?)
            };
            let online = Online {
                tokens: [row.black_token.clone(), row.white_token.clone()],
                owner: row.owner.clone(),
                clock,
                ..Online::default()
            };
            live.online = Some(
                online
                    .with_offers(&row.offers)
                    .ok_or_else(|| damaged(format!("offers {:?}", row.offers)))?,
            );
            // The clock runs on from where it was stored.
            live.settle_clock(None, Instant::now());
        }
        live.created = row.created;
        live.updated = row.updated;
        live.version = row.version;
        live.paused = row.paused != 0;
        live.step_pending = row.paused == 2;
        live.delay_ms = row.delay_ms;
        live.search_until = row.search_until;
        Ok(live)
    }
}

/// The `choices` column: the opening's decisions by name, then a renju
/// opening's offered 5th moves as `at-X-Y` (0-based, y from the top).
fn write_choices(table: &Table) -> String {
    let mut words: Vec<String> = table.choices().iter().map(ToString::to_string).collect();
    words.extend(table.offers().iter().map(|p| format!("at-{}-{}", p.x, p.y)));
    words.join(" ")
}

/// Reads the `choices` column ([`write_choices`]).
fn read_choices(text: &str) -> Result<(Vec<Choice>, Vec<Pos>), String> {
    let mut choices = Vec::new();
    let mut offers = Vec::new();
    for word in text.split_whitespace() {
        if let Some(point) = word.strip_prefix("at-") {
            let (x, y) = point
                .split_once('-')
                .and_then(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)))
                .ok_or_else(|| format!("offered point {word:?}"))?;
            offers.push(Pos::new(x, y));
        } else {
            choices.push(word.parse::<Choice>().map_err(|e| e.to_string())?);
        }
    }
    Ok((choices, offers))
}

#[cfg(test)]
mod tests {
    use super::super::testing::game;
    use super::super::*;

    #[test]
    fn rows_round_trip_with_redo_and_resignation() {
        let mut g = game(5, [Sitter::Human, Sitter::Human]);
        for (i, p) in [Pos::new(0, 0), Pos::new(1, 0), Pos::new(0, 1)]
            .into_iter()
            .enumerate()
        {
            g.play_human(i, p).unwrap();
        }
        g.undo(None).unwrap();
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.game().moves(), g.game().moves());
        assert_eq!(back.game().redo_moves(), g.game().redo_moves());
        g.resign(None).unwrap();
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.result_view(), g.result_view());
        assert_eq!(
            back.result_view().unwrap().winner,
            Some("white"),
            "black, to move, resigned"
        );
    }

    #[test]
    fn a_swap_game_with_its_choices_hints_and_failure_round_trips() {
        use caro_core::opening::{Choice, Opening, Seat};
        use caro_core::table::Table;
        use caro_core::{BoardSize, Rule, Rules};
        let rules = Rules::new(BoardSize::square(9), 5, Rule::Freestyle).unwrap();
        let table = Table::new(
            rules,
            Color::Black,
            Opening::Swap2,
            [Sitter::Human, Sitter::Computer("random".into())],
        )
        .unwrap();
        let mut g = LiveGame::new(table, 100);
        for (i, (x, y)) in [(4, 4), (5, 5), (3, 3)].into_iter().enumerate() {
            g.play_human(i, Pos::new(x, y)).unwrap();
        }
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.view().turn, g.view().turn);
        assert!(g.choose_computer(g.generation, true));
        g.hints = 3;
        g.names = Some(["Ann".into(), "Bob".into()]);
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.table.seat_of(Color::White), Seat::Second);
        assert_eq!(back.table.choices(), &[Choice::TakeWhite]);
        assert_eq!(back.hints, 3);
        assert_eq!(back.names, g.names);
        assert_eq!(back.view().seats, g.view().seats);
        // White, the computer, is to move and fails.
        g.fail("crashed".into());
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.result_view(), g.result_view());
        assert_eq!(back.result_view().unwrap().winner, Some("black"));
    }
}
