//! Online play: every intent names the colour of the seat it comes from
//! (found from its token); the other seat must agree to a takeback or a
//! draw.

use std::time::Instant;

use caro_core::{Color, Pos};

use super::{seat_index, ActionError, Clock, LiveGame};

/// An online game's seats and pending offers. The tokens are secrets: they
/// are stored, never shown in a view.
#[derive(Clone, Debug, Default)]
pub struct Online {
    /// Black's and white's seat tokens (hex).
    pub tokens: [String; 2],
    /// The address of the client that created the game.
    pub owner: String,
    /// A pending takeback request: the colour asking and the ply.
    pub takeback: Option<(Color, usize)>,
    /// The colour offering a draw.
    pub draw: Option<Color>,
    /// Which colours asked for a rematch (black, white).
    pub rematch: [bool; 2],
    /// The rematch, once created: its id and its tokens (black, white).
    pub next: Option<(i64, [String; 2])>,
    /// The clock, if the game has one.
    pub clock: Option<Clock>,
}

impl Online {
    /// The colour whose token this is, if any. Compares every byte, so
    /// the time taken does not tell how much of a guess was right.
    #[must_use]
    pub fn seat_of(&self, token: &str) -> Option<Color> {
        let same = |a: &str, b: &str| {
            !a.is_empty()
                && a.len() == b.len()
                && a.bytes()
                    .zip(b.bytes())
                    .fold(0u8, |acc, (x, y)| acc | (x ^ y))
                    == 0
        };
        if same(&self.tokens[0], token) {
            Some(Color::Black)
        } else if same(&self.tokens[1], token) {
            Some(Color::White)
        } else {
            None
        }
    }
}

impl LiveGame {
    /// The seat a token sits in, in an online game.
    #[must_use]
    pub fn online_seat(&self, token: Option<&str>) -> Option<Color> {
        self.online.as_ref()?.seat_of(token?)
    }

    fn online_mut(&mut self) -> Result<&mut Online, ActionError> {
        self.online
            .as_mut()
            .ok_or(ActionError::Online("this game is not an online game"))
    }

    pub(super) fn clear_offers(&mut self) {
        if let Some(o) = &mut self.online {
            o.takeback = None;
            o.draw = None;
        }
    }

    /// The seat `color` plays `pos`, sent for ply `ply`.
    ///
    /// # Errors
    /// [`ActionError`]: stale, over, the opponent's turn, or refused by
    /// the rules; the game is unchanged.
    pub fn online_move(&mut self, color: Color, ply: usize, pos: Pos) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let to_move = self.game.to_move();
        if to_move != color {
            return Err(ActionError::OpponentsTurn(to_move.name()));
        }
        let now = Instant::now();
        if self
            .online
            .as_ref()
            .and_then(|o| o.clock.as_ref())
            .is_some_and(|c| c.running.is_some() && c.left(color, now) == 0)
        {
            return Err(ActionError::GameOver);
        }
        self.game.try_play(pos).map_err(ActionError::Move)?;
        self.settle_clock(Some(color), now);
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` resigns.
    ///
    /// # Errors
    /// [`ActionError::GameOver`].
    pub fn online_resign(&mut self, color: Color) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        self.game
            .resign_side(color)
            .map_err(|_| ActionError::GameOver)?;
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` asks to take back its last move, at ply `ply`.
    ///
    /// # Errors
    /// Stale, over, or [`ActionError::NothingToUndo`] when `color` has
    /// not moved yet.
    pub fn request_takeback(&mut self, color: Color, ply: usize) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let n = self.game.moves().len();
        if !(0..n).any(|i| self.game.color_of_move(i) == color) {
            return Err(ActionError::NothingToUndo);
        }
        self.online_mut()?.takeback = Some((color, ply));
        self.touch();
        Ok(())
    }

    /// The seat `color` accepts the opponent's takeback request made at
    /// ply `ply`: moves are taken back until the asker is to move again.
    ///
    /// # Errors
    /// Stale, or [`ActionError::NoOffer`].
    pub fn accept_takeback(&mut self, color: Color, ply: usize) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        let by = match self.online_mut()?.takeback {
            Some((by, at)) if by != color && at == ply => by,
            _ => return Err(ActionError::NoOffer),
        };
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        self.game.undo();
        while self.game.to_move() != by && !self.game.moves().is_empty() {
            self.game.undo();
        }
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` declines the opponent's takeback request.
    ///
    /// # Errors
    /// [`ActionError::NoOffer`].
    pub fn decline_takeback(&mut self, color: Color) -> Result<(), ActionError> {
        let online = self.online_mut()?;
        match online.takeback {
            Some((by, _)) if by != color => online.takeback = None,
            _ => return Err(ActionError::NoOffer),
        }
        self.touch();
        Ok(())
    }

    /// The seat `color` offers a draw; when the opponent offered one
    /// already, the game is drawn.
    ///
    /// # Errors
    /// [`ActionError::GameOver`].
    pub fn offer_draw(&mut self, color: Color) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let online = self.online_mut()?;
        match online.draw {
            Some(by) if by != color => return self.accept_draw(color),
            _ => online.draw = Some(color),
        }
        self.touch();
        Ok(())
    }

    /// The seat `color` accepts the opponent's draw offer.
    ///
    /// # Errors
    /// [`ActionError::NoOffer`] or [`ActionError::GameOver`].
    pub fn accept_draw(&mut self, color: Color) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        match self.online_mut()?.draw {
            Some(by) if by != color => {}
            _ => return Err(ActionError::NoOffer),
        }
        self.agreed_draw = true;
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// The seat `color` asks for a rematch once the game is over. Returns
    /// whether both have now asked and no rematch exists yet.
    ///
    /// # Errors
    /// [`ActionError::Online`] while the game goes on.
    pub fn offer_rematch(&mut self, color: Color) -> Result<bool, ActionError> {
        if !self.is_over() {
            return Err(ActionError::Online(
                "a rematch is offered once the game is over",
            ));
        }
        let online = self.online_mut()?;
        online.rematch[seat_index(color)] = true;
        let both = online.rematch == [true, true] && online.next.is_none();
        self.touch();
        Ok(both)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::online_game;
    use super::super::*;

    #[test]
    fn online_seats_move_in_turn_and_agree_takebacks_and_draws() {
        let mut g = online_game();
        assert_eq!(g.online_seat(Some(&"w".repeat(32))), Some(Color::White));
        assert_eq!(g.online_seat(Some("w")), None);
        assert_eq!(g.online_seat(None), None);
        assert!(matches!(
            g.online_move(Color::White, 0, Pos::new(0, 0)),
            Err(ActionError::OpponentsTurn("black"))
        ));
        g.online_move(Color::Black, 0, Pos::new(0, 0)).unwrap();
        g.online_move(Color::White, 1, Pos::new(1, 1)).unwrap();
        // Black asks after white replied: both moves go back.
        g.request_takeback(Color::Black, 2).unwrap();
        assert!(matches!(
            g.accept_takeback(Color::Black, 2),
            Err(ActionError::NoOffer)
        ));
        g.accept_takeback(Color::White, 2).unwrap();
        assert_eq!(g.game.moves().len(), 0);
        g.online_move(Color::Black, 0, Pos::new(2, 2)).unwrap();
        g.request_takeback(Color::Black, 1).unwrap();
        g.decline_takeback(Color::White).unwrap();
        assert!(matches!(
            g.accept_takeback(Color::White, 1),
            Err(ActionError::NoOffer)
        ));
        g.offer_draw(Color::White).unwrap();
        assert!(!g.is_over());
        g.accept_draw(Color::Black).unwrap();
        assert!(g.is_over());
        assert_eq!(g.result_view().unwrap().reason, "agreed");
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert!(back.agreed_draw && back.online.is_some());
        assert!(!g.offer_rematch(Color::Black).unwrap());
        assert!(g.offer_rematch(Color::White).unwrap());
    }
}
