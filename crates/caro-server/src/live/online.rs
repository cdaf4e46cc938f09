//! Online play: every intent names the seat it comes from (found from its
//! token); the other seat must agree to a takeback or a draw. Seats, not
//! colours: under a swap opening the colours are decided during the game.

use std::time::Instant;

use caro_core::opening::{Choice, Seat};
use caro_core::table::Actor;
use caro_core::Pos;

use super::{now_secs, ActionError, Clock, LiveGame};

/// Seconds after both players asked for a rematch that is still not made
/// (its maker failed) when another ask makes it.
pub const REMATCH_ABANDONED_SECS: i64 = 10;

/// An online game's seats and pending offers. The tokens are secrets: they
/// are stored, never shown in a view.
#[derive(Clone, Debug, Default)]
pub struct Online {
    /// The first and second seat's tokens (hex); in a free opening the
    /// first seat plays black.
    pub tokens: [String; 2],
    /// The address of the client that created the game.
    pub owner: String,
    /// A pending takeback request: the seat asking and the ply.
    pub takeback: Option<(Seat, usize)>,
    /// The seat offering a draw.
    pub draw: Option<Seat>,
    /// Which seats asked for a rematch (first, second).
    pub rematch: [bool; 2],
    /// The rematch (or the match's next game), once created: its id and
    /// its tokens (first seat, second seat).
    pub next: Option<(i64, [String; 2])>,
    /// The clock, if the game has one.
    pub clock: Option<Clock>,
}

impl Online {
    /// The pending offers as stored: space-separated `takeback:SEAT:PLY`,
    /// `draw:SEAT` and `rematch:SEAT` (seats `first`/`second`).
    #[must_use]
    pub fn offers_text(&self) -> String {
        let mut out = Vec::new();
        if let Some((seat, ply)) = self.takeback {
            out.push(format!("takeback:{}:{ply}", seat.name()));
        }
        if let Some(seat) = self.draw {
            out.push(format!("draw:{}", seat.name()));
        }
        for seat in [Seat::First, Seat::Second] {
            if self.rematch[seat.index()] {
                out.push(format!("rematch:{}", seat.name()));
            }
        }
        out.join(" ")
    }

    /// Reads [`Online::offers_text`] into these offers; `None` when the
    /// text is not such a list.
    #[must_use]
    pub fn with_offers(mut self, text: &str) -> Option<Online> {
        let seat = |name: &str| match name {
            "first" => Some(Seat::First),
            "second" => Some(Seat::Second),
            _ => None,
        };
        for offer in text.split_whitespace() {
            let mut parts = offer.split(':');
            match (parts.next()?, parts.next(), parts.next()) {
                ("takeback", Some(s), Some(ply)) => {
                    self.takeback = Some((seat(s)?, ply.parse().ok()?));
                }
                ("draw", Some(s), None) => self.draw = Some(seat(s)?),
                ("rematch", Some(s), None) => self.rematch[seat(s)?.index()] = true,
                _ => return None,
            }
        }
        Some(self)
    }

    /// The seat whose token this is, if any. Compares every byte, so the
    /// time taken does not tell how much of a guess was right.
    #[must_use]
    pub fn seat_of(&self, token: &str) -> Option<Seat> {
        let same = |a: &str, b: &str| {
            !a.is_empty()
                && a.len() == b.len()
                && a.bytes()
                    .zip(b.bytes())
                    .fold(0u8, |acc, (x, y)| acc | (x ^ y))
                    == 0
        };
        if same(&self.tokens[0], token) {
            Some(Seat::First)
        } else if same(&self.tokens[1], token) {
            Some(Seat::Second)
        } else {
            None
        }
    }
}

impl LiveGame {
    /// The seat a token sits in, in an online game.
    #[must_use]
    pub fn online_seat(&self, token: Option<&str>) -> Option<Seat> {
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

    /// Refuses an act of `seat` whose time has run out (the flag falls
    /// with the next check).
    fn check_time(&self, seat: Seat, now: Instant) -> Result<(), ActionError> {
        if self
            .online
            .as_ref()
            .and_then(|o| o.clock.as_ref())
            .is_some_and(|c| c.running.is_some() && c.left(seat, now) == 0)
        {
            return Err(ActionError::GameOver);
        }
        Ok(())
    }

    /// `seat` places a stone at `pos` (an opening stone or a move), sent
    /// for ply `ply`.
    ///
    /// # Errors
    /// [`ActionError`]: stale, over, the opponent's turn, a choice due, or
    /// refused by the rules; the game is unchanged.
    pub fn online_move(&mut self, seat: Seat, ply: usize, pos: Pos) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        let now = Instant::now();
        self.check_time(seat, now)?;
        self.table.play(Actor::Seat(seat), pos)?;
        self.settle_clock(Some(seat), now);
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// `seat` makes the swap decision due now, sent for ply `ply`.
    ///
    /// # Errors
    /// [`ActionError`]: stale, over, no choice due, the other seat's
    /// choice, or not offered; the game is unchanged.
    pub fn online_choose(
        &mut self,
        seat: Seat,
        ply: usize,
        choice: Choice,
    ) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        let now = Instant::now();
        self.check_time(seat, now)?;
        self.table.choose(Actor::Seat(seat), choice)?;
        self.settle_clock(Some(seat), now);
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// `seat` resigns.
    ///
    /// # Errors
    /// [`ActionError::GameOver`].
    pub fn online_resign(&mut self, seat: Seat) -> Result<(), ActionError> {
        self.table.resign(Some(seat))?;
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// Whether `seat` has a move above the opening's stones to take back.
    fn has_move_to_take_back(&self, seat: Seat) -> bool {
        let game = self.game();
        self.table.colors_decided()
            && (self.table.opening_stones()..game.moves().len())
                .any(|i| self.table.seat_of(game.color_of_move(i)) == seat)
    }

    /// `seat` asks to take back its last move, at ply `ply`.
    ///
    /// # Errors
    /// Stale, over, or [`ActionError::NothingToUndo`] when `seat` has no
    /// move to take back (the opening's stones stay).
    pub fn request_takeback(&mut self, seat: Seat, ply: usize) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        if !self.has_move_to_take_back(seat) {
            return Err(ActionError::NothingToUndo);
        }
        self.online_mut()?.takeback = Some((seat, ply));
        self.touch();
        Ok(())
    }

    /// `seat` accepts the opponent's takeback request made at ply `ply`:
    /// moves are taken back until the asker is to move again.
    ///
    /// # Errors
    /// Stale, or [`ActionError::NoOffer`].
    pub fn accept_takeback(&mut self, seat: Seat, ply: usize) -> Result<(), ActionError> {
        self.check_ply(ply)?;
        let by = match self.online_mut()?.takeback {
            Some((by, at)) if by != seat && at == ply => by,
            _ => return Err(ActionError::NoOffer),
        };
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        self.table.undo()?;
        while self.table.turn().seat() != Some(by) && self.table.undo().is_ok() {}
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// `seat` declines the opponent's takeback request.
    ///
    /// # Errors
    /// [`ActionError::NoOffer`].
    pub fn decline_takeback(&mut self, seat: Seat) -> Result<(), ActionError> {
        let online = self.online_mut()?;
        match online.takeback {
            Some((by, _)) if by != seat => online.takeback = None,
            _ => return Err(ActionError::NoOffer),
        }
        self.touch();
        Ok(())
    }

    /// `seat` offers a draw; when the opponent offered one already, the
    /// game is drawn.
    ///
    /// # Errors
    /// [`ActionError::GameOver`].
    pub fn offer_draw(&mut self, seat: Seat) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        let online = self.online_mut()?;
        match online.draw {
            Some(by) if by != seat => return self.accept_draw(seat),
            _ => online.draw = Some(seat),
        }
        self.touch();
        Ok(())
    }

    /// `seat` accepts the opponent's draw offer.
    ///
    /// # Errors
    /// [`ActionError::NoOffer`] or [`ActionError::GameOver`].
    pub fn accept_draw(&mut self, seat: Seat) -> Result<(), ActionError> {
        if self.is_over() {
            return Err(ActionError::GameOver);
        }
        match self.online_mut()?.draw {
            Some(by) if by != seat => {}
            _ => return Err(ActionError::NoOffer),
        }
        self.table.agree_draw()?;
        self.settle_clock(None, Instant::now());
        self.clear_offers();
        self.touch();
        Ok(())
    }

    /// `seat` declines the opponent's draw offer.
    ///
    /// # Errors
    /// [`ActionError::NoOffer`].
    pub fn decline_draw(&mut self, seat: Seat) -> Result<(), ActionError> {
        let online = self.online_mut()?;
        match online.draw {
            Some(by) if by != seat => online.draw = None,
            _ => return Err(ActionError::NoOffer),
        }
        self.touch();
        Ok(())
    }

    /// `seat` asks for a rematch (or the match's next game) once the game
    /// is over. Returns whether both have now asked and no rematch exists
    /// yet.
    ///
    /// # Errors
    /// [`ActionError::Online`] while the game goes on.
    pub fn offer_rematch(&mut self, seat: Seat) -> Result<bool, ActionError> {
        if !self.is_over() {
            return Err(ActionError::Online(
                "a rematch is offered once the game is over",
            ));
        }
        // Agreed long enough ago that whoever made the rematch has failed
        // (an instance that died in between): the next ask makes it.
        let abandoned = now_secs() - self.updated >= REMATCH_ABANDONED_SECS;
        let online = self.online_mut()?;
        // Only the ask that completes the pair makes the rematch: asking
        // again (from another tab or instance) makes nothing twice.
        let asked = std::mem::replace(&mut online.rematch[seat.index()], true);
        let both = (!asked || abandoned) && online.rematch == [true, true] && online.next.is_none();
        self.touch();
        Ok(both)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::online_game;
    use super::super::*;
    use caro_core::opening::Seat;

    #[test]
    fn online_seats_move_in_turn_and_agree_takebacks_and_draws() {
        let mut g = online_game();
        assert_eq!(g.online_seat(Some(&"w".repeat(32))), Some(Seat::Second));
        assert_eq!(g.online_seat(Some("w")), None);
        assert_eq!(g.online_seat(None), None);
        assert!(matches!(
            g.online_move(Seat::Second, 0, Pos::new(0, 0)),
            Err(ActionError::Table(TableError::NotYourTurn { .. }))
        ));
        g.online_move(Seat::First, 0, Pos::new(0, 0)).unwrap();
        g.online_move(Seat::Second, 1, Pos::new(1, 1)).unwrap();
        // Black asks after white replied: both moves go back.
        g.request_takeback(Seat::First, 2).unwrap();
        assert!(matches!(
            g.accept_takeback(Seat::First, 2),
            Err(ActionError::NoOffer)
        ));
        g.accept_takeback(Seat::Second, 2).unwrap();
        assert_eq!(g.game().moves().len(), 0);
        g.online_move(Seat::First, 0, Pos::new(2, 2)).unwrap();
        g.request_takeback(Seat::First, 1).unwrap();
        g.decline_takeback(Seat::Second).unwrap();
        assert!(matches!(
            g.accept_takeback(Seat::Second, 1),
            Err(ActionError::NoOffer)
        ));
        g.offer_draw(Seat::Second).unwrap();
        assert!(matches!(
            g.decline_draw(Seat::Second),
            Err(ActionError::NoOffer)
        ));
        g.decline_draw(Seat::First).unwrap();
        assert!(g.online.as_ref().unwrap().draw.is_none());
        g.offer_draw(Seat::Second).unwrap();
        assert!(!g.is_over());
        g.accept_draw(Seat::First).unwrap();
        assert!(g.is_over());
        assert_eq!(g.result_view().unwrap().reason, "agreed");
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert!(back.is_over() && back.online.is_some());
        assert_eq!(back.result_view(), g.result_view());
        assert!(!g.offer_rematch(Seat::First).unwrap());
        assert!(g.offer_rematch(Seat::Second).unwrap());
        // Asking again makes nothing twice.
        assert!(!g.offer_rematch(Seat::Second).unwrap());
    }

    #[test]
    fn offers_round_trip_through_their_stored_form() {
        let offers = Online {
            takeback: Some((Seat::Second, 12)),
            draw: Some(Seat::First),
            rematch: [true, false],
            ..Online::default()
        };
        let text = offers.offers_text();
        assert_eq!(text, "takeback:second:12 draw:first rematch:first");
        let back = Online::default().with_offers(&text).expect("offers");
        assert_eq!(back.takeback, offers.takeback);
        assert_eq!(back.draw, offers.draw);
        assert_eq!(back.rematch, offers.rematch);
        assert_eq!(Online::default().offers_text(), "");
        for bad in [
            "draw",
            "draw:third",
            "takeback:first:x",
            "rematch:first:2",
            "pause",
        ] {
            assert!(Online::default().with_offers(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_rematch_agreed_long_ago_but_never_made_is_made_by_the_next_ask() {
        let mut g = online_game();
        g.online_resign(Seat::First).unwrap();
        assert!(!g.offer_rematch(Seat::First).unwrap());
        assert!(g.offer_rematch(Seat::Second).unwrap());
        assert!(
            !g.offer_rematch(Seat::First).unwrap(),
            "its maker is at work"
        );
        g.updated -= super::REMATCH_ABANDONED_SECS;
        assert!(g.offer_rematch(Seat::First).unwrap(), "its maker failed");
    }
}
