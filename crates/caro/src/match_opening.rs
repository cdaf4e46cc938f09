//! `caro match --opening soosorv8` (or `soosorvN`, `taraguchi10`): each
//! game's renju opening played by the two caro players through every
//! phase before the refereed game goes on from its five stones.

use caro_core::opening::{Choice, Opening, Seat};
use caro_core::table::{Actor, Sitter, Table};
use caro_core::{Color, Pos, Rules};
use caro_engine::renju_opening::{opening_action, per_eval_limits, OpeningAction};
use caro_engine::{Limits, Player, StopFlag};

use crate::UsageError;

/// Most opening steps before a runaway opening is given up (a Soosõrv-16
/// takes 27).
const MAX_STEPS: usize = 64;

/// Checks `caro match` can play `opening` between players `a` and `b` on
/// `rules`: free needs nothing; a renju opening needs the renju rule and
/// caro's own players (a Gomocup engine cannot take part in its phases).
///
/// # Errors
/// [`UsageError`] saying why not.
pub fn check(opening: Opening, a: &str, b: &str, rules: Rules) -> Result<(), UsageError> {
    match opening {
        Opening::Free => return Ok(()),
        Opening::Swap1 | Opening::Swap2 => {
            return Err(UsageError(format!(
                "caro match plays the free, soosorvN and taraguchi10 openings, not {opening}"
            )))
        }
        Opening::Soosorv(_) | Opening::Taraguchi10 => {}
    }
    refuse_gomocup_engines(opening, &[a, b])?;
    let sitters = [Sitter::Computer(a.into()), Sitter::Computer(b.into())];
    Table::new(rules, Color::Black, opening, sitters).map_err(|e| UsageError(e.to_string()))?;
    Ok(())
}

/// Refuses a Gomocup engine (`pbrain:PATH`) among `players` when
/// `opening` is a renju opening: the protocol cannot ask an engine for the
/// opening's swaps, declarations, offered 5th moves or pick.
///
/// # Errors
/// [`UsageError`] naming the first such engine.
pub fn refuse_gomocup_engines(opening: Opening, players: &[&str]) -> Result<(), UsageError> {
    if !opening.is_renju() {
        return Ok(());
    }
    for name in players {
        if name.trim().to_ascii_lowercase().starts_with("pbrain") {
            return Err(UsageError(format!(
                "{name} cannot play the {opening} opening: the Gomocup protocol has no way to \
                 ask an engine for its swaps, declarations, offered 5th moves or pick; \
                 use caro's players (random, scoremap, quintuple, minimax:N, caro:N) or \
                 --opening free"
            )));
        }
    }
    Ok(())
}

/// A renju opening played out.
pub struct Opened {
    /// The five stones.
    pub moves: Vec<Pos>,
    /// Whether the opener (the first seat) plays black.
    pub opener_is_black: bool,
    /// The decisions taken during the opening, in order (for the game's
    /// PSQ record).
    pub choices: Vec<Choice>,
    /// The 5th moves black offered, in order (for the game's PSQ record).
    pub offers: Vec<Pos>,
}

/// Plays `opening` with `opener` in the first seat and `other` in the
/// second, each step its player's (each search under a share of
/// `limits`).
///
/// # Errors
/// A player's error, or an action the table refuses, as text.
pub fn play(
    opening: Opening,
    rules: Rules,
    opener: &mut dyn Player,
    other: &mut dyn Player,
    limits: Limits,
) -> Result<Opened, String> {
    let sitters = [
        Sitter::Computer(opener.name()),
        Sitter::Computer(other.name()),
    ];
    let mut table = Table::new(rules, Color::Black, opening, sitters).map_err(|e| e.to_string())?;
    let per_eval = per_eval_limits(limits);
    let stop = StopFlag::new();
    for _ in 0..MAX_STEPS {
        if table.colors_decided() {
            return Ok(Opened {
                moves: table.game().moves().to_vec(),
                opener_is_black: table.seat_of(Color::Black) == Seat::First,
                choices: table.choices().to_vec(),
                offers: table.offers().to_vec(),
            });
        }
        let seat = table
            .turn()
            .seat()
            .ok_or_else(|| "the game ended during the opening".to_string())?;
        let player: &mut dyn Player = match seat {
            Seat::First => &mut *opener,
            Seat::Second => &mut *other,
        };
        let action = opening_action(&table, player, per_eval, &stop).map_err(|e| e.to_string())?;
        let done = match action {
            OpeningAction::Choose(c) => table.choose(Actor::Seat(seat), c),
            OpeningAction::Place(p) | OpeningAction::Offer(p) | OpeningAction::Pick(p) => {
                table.play(Actor::Seat(seat), p).map(|_| ())
            }
        };
        done.map_err(|e| format!("{} ({seat} seat): {e}", table.sitter(seat)))?;
    }
    Err(format!(
        "the {opening} opening did not end in {MAX_STEPS} steps"
    ))
}
