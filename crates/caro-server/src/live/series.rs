//! The match a game belongs to: first to `N` wins, colours alternating
//! game by game ([`Series`]). Each game knows its match's settings, the
//! results of the games before it and the ids of the match's games; the
//! score follows from those and its own ending.

use caro_core::opening::Opening;
use caro_core::table::{Series, SeriesError, Table};

use super::{sitter, ActionError, LiveGame};
use crate::store::{GameRow, MatchRow, StoreError};

/// A game's place in its match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchLink {
    /// The match's id in the store.
    pub id: i64,
    /// Wins needed to take the match.
    pub first_to: u32,
    /// Players A and B (`human` or a computer player's name): A opens
    /// (or plays black in) game 1.
    pub players: [String; 2],
    /// This game's number, from 1.
    pub game_no: u32,
    /// The results of the games before this one: the winner (0 = A,
    /// 1 = B) or `None` for a draw.
    pub earlier: Vec<Option<usize>>,
    /// The match's games known so far, in order (this one included).
    pub games: Vec<i64>,
    /// The next game, once it exists.
    pub next: Option<i64>,
}

impl MatchLink {
    /// The match as of this game's start.
    ///
    /// # Errors
    /// [`SeriesError`] when the stored results do not make a match.
    pub fn series(&self) -> Result<Series, SeriesError> {
        Series::resume(
            self.first_to,
            [sitter(&self.players[0]), sitter(&self.players[1])],
            &self.earlier,
        )
    }

    /// The match with this game's result counted, if it is over.
    ///
    /// # Errors
    /// [`SeriesError`] when the stored results do not make a match.
    pub fn series_after(&self, table: &Table) -> Result<Series, SeriesError> {
        let mut series = self.series()?;
        if table.is_over() {
            series.record(table)?;
        }
        Ok(series)
    }
}

impl LiveGame {
    /// The first game of a new match (id 0 until stored): player A sits in
    /// the first seat.
    #[must_use]
    pub fn start_match(table: Table, time_ms: u64, match_id: i64, first_to: u32) -> LiveGame {
        let players = [
            table.sitters()[0].name().to_string(),
            table.sitters()[1].name().to_string(),
        ];
        let mut live = LiveGame::new(table, time_ms);
        live.series = Some(MatchLink {
            id: match_id,
            first_to,
            players,
            game_no: 1,
            earlier: Vec::new(),
            games: Vec::new(),
            next: None,
        });
        live
    }

    /// Fills in a stored game's match ([`LiveGame::from_row`] knows only
    /// its id and number): its settings, the results of the games before
    /// this one, and the ids of its games.
    ///
    /// # Errors
    /// [`StoreError::Damaged`] when the match's games do not make a match.
    pub fn link_match(&mut self, m: &MatchRow, games: &[GameRow]) -> Result<(), StoreError> {
        let id = self.id;
        let Some(link) = self.series.as_mut() else {
            return Ok(());
        };
        let damaged = |reason: String| StoreError::Damaged { id, reason };
        link.first_to = m.first_to;
        link.players = [m.player_a.clone(), m.player_b.clone()];
        link.games = games.iter().map(|g| g.id).collect();
        link.next = games
            .iter()
            .find(|g| g.game_no == link.game_no + 1)
            .map(|g| g.id);
        let mut series = Series::new(
            link.first_to,
            [sitter(&link.players[0]), sitter(&link.players[1])],
        )
        .map_err(|e| damaged(e.to_string()))?;
        for row in games.iter().filter(|g| g.game_no < link.game_no) {
            let earlier = LiveGame::from_row(row)?;
            series
                .record(&earlier.table)
                .map_err(|e| damaged(format!("match game {}: {e}", row.game_no)))?;
        }
        link.earlier = series.results();
        Ok(())
    }

    /// The next game of this game's match: same rules, opening and first
    /// colour, the other player opening (id 0 until stored).
    ///
    /// # Errors
    /// [`ActionError::NoMatch`], [`ActionError::GameNotOver`], or
    /// [`ActionError::MatchOver`] when this game ended the match.
    pub fn next_in_match(&self) -> Result<LiveGame, ActionError> {
        let link = self.series.as_ref().ok_or(ActionError::NoMatch)?;
        if !self.is_over() {
            return Err(ActionError::GameNotOver);
        }
        let series = link
            .series_after(&self.table)
            .map_err(|_| ActionError::MatchOver)?;
        let opener = series.opener().ok_or(ActionError::MatchOver)?;
        let sitters = [
            sitter(&link.players[opener]),
            sitter(&link.players[1 - opener]),
        ];
        let opening: Opening = self.table.opening().opening();
        let table = Table::new(*self.game().rules(), self.game().first(), opening, sitters)?;
        let mut live = LiveGame::new(table, self.time_ms);
        live.delay_ms = self.delay_ms;
        live.series = Some(MatchLink {
            id: link.id,
            first_to: link.first_to,
            players: link.players.clone(),
            game_no: link.game_no + 1,
            earlier: series.results(),
            games: link.games.clone(),
            next: None,
        });
        Ok(live)
    }
}

#[cfg(test)]
mod tests {
    use super::super::*;
    use caro_core::opening::Opening;
    use caro_core::table::Table;
    use caro_core::{BoardSize, Rule, Rules};

    fn first_game() -> LiveGame {
        let rules = Rules::new(BoardSize::square(9), 5, Rule::Freestyle).unwrap();
        let table = Table::new(
            rules,
            Color::Black,
            Opening::Free,
            [Sitter::Human, Sitter::Computer("random".into())],
        )
        .unwrap();
        let mut g = LiveGame::start_match(table, 100, 7, 2);
        g.id = 1;
        g.series.as_mut().unwrap().games = vec![1];
        g
    }

    #[test]
    fn a_match_goes_on_game_by_game_with_the_other_player_opening() {
        let mut g1 = first_game();
        assert!(matches!(g1.next_in_match(), Err(ActionError::GameNotOver)));
        g1.resign(None).unwrap();
        let m = g1.view().series.unwrap();
        assert_eq!((m.score, m.over, m.game), ([0, 1], false, 1));
        // The result counts at once, as in the terminal: no undo, even
        // before the next game exists.
        assert!(matches!(g1.undo(None), Err(ActionError::GameOver)));
        let mut g2 = g1.next_in_match().unwrap();
        // Stored: the server adds its id to the match's games.
        g2.id = 2;
        g2.series.as_mut().unwrap().games.push(2);
        // B (random) opens game 2 and plays black.
        assert_eq!(
            g2.sitter_of(Color::Black),
            &Sitter::Computer("random".into())
        );
        assert_eq!(g2.series.as_ref().unwrap().earlier, vec![Some(1)]);
        g2.resign(None).unwrap();
        let m = g2.view().series.unwrap();
        assert_eq!((m.score, m.over, m.winner), ([0, 2], true, Some(1)));
        assert!(matches!(g2.next_in_match(), Err(ActionError::MatchOver)));

        // From the store: the match's row and its games' rows.
        let rows = [g1.to_row(), g2.to_row()];
        let m = crate::store::MatchRow {
            id: 7,
            first_to: 2,
            player_a: "human".into(),
            player_b: "random".into(),
            created: 0,
        };
        let mut back = LiveGame::from_row(&rows[1]).unwrap();
        back.link_match(&m, &rows).unwrap();
        assert_eq!(back.view().series, g2.view().series);
        let mut first = LiveGame::from_row(&rows[0]).unwrap();
        first.link_match(&m, &rows).unwrap();
        let view = first.view().series.unwrap();
        assert_eq!(
            (view.next, view.games, view.score),
            (Some(2), vec![1, 2], [0, 1])
        );
        assert!(matches!(first.undo(None), Err(ActionError::GameOver)));
    }
}
