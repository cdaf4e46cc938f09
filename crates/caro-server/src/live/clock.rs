//! An online game's clock.

use std::time::{Duration, Instant};

use caro_core::opening::Seat;

use super::LiveGame;

/// An online game's clock: each seat's time, with an increment added each
/// time it hands the turn over. It starts with the first stone; the seat
/// whose turn it is (to move or to choose) loses when its time runs out.
/// Seats, not colours: a swap opening's opener places stones of both
/// colours on its own time.
#[derive(Clone, Debug)]
pub struct Clock {
    /// Each side's time at the start, in milliseconds.
    pub initial_ms: u64,
    /// Added to a side's time after each of its moves.
    pub increment_ms: u64,
    /// Time left (first seat, second seat), as of when the running seat's
    /// turn began.
    pub left_ms: [u64; 2],
    /// The seat whose time runs, and since when. `None` before the first
    /// move and once the game is over.
    pub running: Option<(Seat, Instant)>,
    /// When the clock read as stored was written (Unix milliseconds), if
    /// the stored form says.
    pub stored_at_ms: Option<i64>,
}

impl Clock {
    /// A clock of `initial_ms` a side plus `increment_ms` a move.
    #[must_use]
    pub fn new(initial_ms: u64, increment_ms: u64) -> Clock {
        Clock {
            initial_ms,
            increment_ms,
            left_ms: [initial_ms; 2],
            running: None,
            stored_at_ms: None,
        }
    }

    /// The time `seat` has left at `now`.
    #[must_use]
    pub fn left(&self, seat: Seat, now: Instant) -> u64 {
        let base = self.left_ms[seat.index()];
        match self.running {
            Some((side, since)) if side == seat => {
                base.saturating_sub(now.saturating_duration_since(since).as_millis() as u64)
            }
            _ => base,
        }
    }

    /// The stored form: `initial,increment,first,second,at` in
    /// milliseconds (in a free opening the first seat plays black), `at`
    /// the Unix time of the reading.
    #[must_use]
    pub fn to_text(&self, now: Instant) -> String {
        format!(
            "{},{},{},{},{}",
            self.initial_ms,
            self.increment_ms,
            self.left(Seat::First, now),
            self.left(Seat::Second, now),
            super::now_ms()
        )
    }

    /// Reads [`Clock::to_text`] (stopped; the game restarts it), with or
    /// without the time of the reading.
    #[must_use]
    pub fn from_text(text: &str) -> Option<Clock> {
        let v: Vec<u64> = text
            .split(',')
            .map(|n| n.trim().parse().ok())
            .collect::<Option<_>>()?;
        let (initial_ms, increment_ms, first, second, at) = match v[..] {
            [initial_ms, increment_ms, first, second] => {
                (initial_ms, increment_ms, first, second, None)
            }
            [initial_ms, increment_ms, first, second, at] => (
                initial_ms,
                increment_ms,
                first,
                second,
                Some(i64::try_from(at).ok()?),
            ),
            _ => return None,
        };
        Some(Clock {
            initial_ms,
            increment_ms,
            left_ms: [first, second],
            running: None,
            stored_at_ms: at,
        })
    }
}

impl LiveGame {
    /// Charges the running seat for its time (adding the increment if it
    /// just acted and hands the turn over) and starts the clock of the
    /// seat whose turn it is; stops it before the first move and once the
    /// game is over.
    pub fn settle_clock(&mut self, mover: Option<Seat>, now: Instant) {
        let turn = self.table.turn().seat();
        let running = !self.game().moves().is_empty();
        let Some(clock) = self.online.as_mut().and_then(|o| o.clock.as_mut()) else {
            return;
        };
        if let Some((side, _)) = clock.running {
            let mut left = clock.left(side, now);
            if mover == Some(side) && turn != Some(side) {
                left += clock.increment_ms;
            }
            clock.left_ms[side.index()] = left;
        }
        clock.running = turn.filter(|_| running).map(|seat| (seat, now));
    }

    /// Charges the running seat for the time since its clock was stored
    /// (to `now_ms`, Unix milliseconds): a game read by an instance while
    /// other instances ran it, whose clock did not stop meanwhile.
    pub fn charge_since_stored(&mut self, now_ms: i64, now: Instant) {
        let Some(clock) = self.online.as_mut().and_then(|o| o.clock.as_mut()) else {
            return;
        };
        let (Some((side, since)), Some(at)) = (clock.running, clock.stored_at_ms) else {
            return;
        };
        let elapsed = Duration::from_millis(u64::try_from(now_ms - at).unwrap_or(0));
        let since = since.checked_sub(elapsed).unwrap_or(since);
        clock.running = Some((side, since.min(now)));
    }

    /// When the side to move has run out of time at `now`, it loses.
    /// Returns whether that happened.
    pub fn flag_if_out_of_time(&mut self, now: Instant) -> bool {
        if self.is_over() {
            return false;
        }
        let Some((side, _)) = self
            .online
            .as_ref()
            .and_then(|o| o.clock.as_ref())
            .and_then(|c| c.running.filter(|&(side, _)| c.left(side, now) == 0))
        else {
            return false;
        };
        let loser = self.table.color_of(side);
        if self.table.time_out(loser).is_err() {
            return false;
        }
        self.settle_clock(None, now);
        self.clear_offers();
        self.touch();
        true
    }

    /// How long until the running side's time is out, if a clock runs.
    #[must_use]
    pub fn time_to_flag(&self, now: Instant) -> Option<Duration> {
        let clock = self.online.as_ref()?.clock.as_ref()?;
        let (side, _) = clock.running?;
        Some(Duration::from_millis(clock.left(side, now)))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::online_game;
    use super::super::*;
    use caro_core::opening::Seat;
    use std::time::{Duration, Instant};

    #[test]
    fn the_side_to_move_loses_on_time_and_moves_add_the_increment() {
        let mut g = online_game();
        if let Some(o) = &mut g.online {
            o.clock = Some(Clock::new(60_000, 2_000));
        }
        let now = Instant::now();
        assert!(
            !g.flag_if_out_of_time(now + Duration::from_secs(3600)),
            "not started"
        );
        g.online_move(Seat::First, 0, Pos::new(0, 0)).unwrap();
        let clock = g.online.as_ref().and_then(|o| o.clock.clone()).unwrap();
        assert_eq!(
            clock.left_ms,
            [60_000, 60_000],
            "the first move costs nothing"
        );
        assert_eq!(clock.running.map(|r| r.0), Some(Seat::Second));
        g.online_move(Seat::Second, 1, Pos::new(1, 1)).unwrap();
        let clock = g.online.as_ref().and_then(|o| o.clock.clone()).unwrap();
        assert!(clock.left_ms[1] > 60_000, "white gained its increment");
        let later = Instant::now() + Duration::from_secs(61);
        assert!(!g.flag_if_out_of_time(Instant::now()));
        assert!(g.flag_if_out_of_time(later));
        assert_eq!(g.result_view().unwrap().winner, Some("white"));
        assert_eq!(g.result_view().unwrap().reason, "time");
        let back = LiveGame::from_row(&g.to_row()).unwrap();
        assert_eq!(back.result_view(), g.result_view());
        assert_eq!(back.view().clock.unwrap().black_ms, 0);
    }

    #[test]
    fn a_stored_clock_reads_back_with_its_time_and_is_charged_only_when_asked() {
        let old = Clock::from_text("60000,0,59000,58000").expect("the form without a time");
        assert_eq!((old.left_ms, old.stored_at_ms), ([59_000, 58_000], None));
        assert!(Clock::from_text("60000,0,59000").is_none());
        assert!(Clock::from_text("60000,0,59000,58000,-5").is_none());
        let mut g = online_game();
        if let Some(o) = &mut g.online {
            o.clock = Some(Clock::new(60_000, 0));
        }
        g.online_move(Seat::First, 0, Pos::new(0, 0)).unwrap();
        let row = g.to_row();
        let stored = Clock::from_text(&row.clock).expect("the stored form");
        assert!(stored
            .stored_at_ms
            .is_some_and(|at| (now_ms() - at).abs() < 60_000));
        // Read again: the clock restarts from the stored time…
        let mut back = LiveGame::from_row(&row).unwrap();
        let now = Instant::now();
        let left = |g: &LiveGame| {
            g.online
                .as_ref()
                .and_then(|o| o.clock.as_ref())
                .unwrap()
                .left(Seat::Second, now)
        };
        assert!(left(&back) > 59_000);
        // …unless it ran on elsewhere since: 20 s later, 20 s are charged.
        back.charge_since_stored(stored.stored_at_ms.unwrap() + 20_000, now);
        assert!((39_000..=40_000).contains(&left(&back)), "{}", left(&back));
    }
}
