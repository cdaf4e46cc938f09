//! The computer's part in renju's tournament openings (`soosorvN`,
//! `taraguchi10`): every step a seat can be asked for, decided from the
//! player's own search.
//!
//! - Placing a stone the other player may then swap (the canonical three,
//!   the 4th, Taraguchi's stones in their central squares): the candidate
//!   whose position its search finds closest to even, so that neither
//!   colour is a gift.
//! - A swap decision: the colour its search finds at least even
//!   ([`decide_swap`]).
//! - Soosõrv's declaration: the number `k` of its best 5th moves whose
//!   worst (the one white would pick) its search finds closest to even,
//!   since white may swap after the declaration; never more than it finds
//!   5th moves that do not lose for black, so a level-10 engine does not
//!   offer eight losing ones.
//! - Taraguchi's choice: ten offers when it finds ten good 5th moves,
//!   otherwise one 5th stone in the central 9×9.
//! - An offer: the best 5th move for black not yet offered and not
//!   symmetric to an earlier offer.
//! - A pick: the offered 5th move worst for black.
//!
//! Every evaluation is one search by the player under the limits given
//! for it ([`opening_action`]'s `per_eval`): a score from the point of
//! view of the side to move.

use caro_core::opening::symmetry::symmetric;
use caro_core::opening::Choice;
use caro_core::table::{decide_swap, Table, Turn};
use caro_core::{Game, Pos};

use crate::player::{Context, EngineError, Limits, Player, Score, StopFlag};

/// What a computer does at a step of a renju opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpeningAction {
    /// Place a stone (an opening stone, or a move once the opening is
    /// over: then ask the player for its move instead).
    Place(Pos),
    /// Make this choice (swap, declaration, Taraguchi's choice).
    Choose(Choice),
    /// Offer this point as a 5th move.
    Offer(Pos),
    /// Pick this offered 5th move.
    Pick(Pos),
}

/// Most candidate points a placement looks at.
const PLACE_CANDIDATES: usize = 10;
/// Most candidate 5th moves ranked for offers and declarations.
const FIFTH_CANDIDATES: usize = 24;
/// A value at or below which a 5th move counts as losing for black: a
/// proven loss, or an evaluation far beyond an ordinary disadvantage.
const LOSING: i64 = -5_000;

/// The limits of each search an opening step makes, from the limits of a
/// move: a sixteenth of the time, a sixteenth of the nodes, at most 8
/// plies (4 when no limit is set).
#[must_use]
pub fn per_eval_limits(limits: Limits) -> Limits {
    let time = limits
        .time_budget()
        .map(|t| (t / 16).max(std::time::Duration::from_millis(5)));
    let depth = match (time, limits.nodes, limits.depth) {
        (_, _, Some(d)) => Some(d.min(8)),
        (None, None, None) => Some(4),
        _ => Some(8),
    };
    Limits {
        move_time: time,
        time_left: None,
        increment: None,
        nodes: limits.nodes.map(|n| (n / 16).max(1_000)),
        depth,
        threads: Some(1),
    }
}

/// A score as one number, from the side to move's point of view: wins far
/// above any evaluation, the sooner the higher.
#[must_use]
pub fn score_value(score: Score) -> i64 {
    const WIN: i64 = 1_000_000;
    match score {
        Score::Eval(v) => i64::from(v),
        Score::WinIn(n) => WIN - i64::from(n),
        Score::Win => WIN - 1_000,
        Score::LossIn(n) => -WIN + i64::from(n),
    }
}

/// One evaluation of `game` for the side to move.
fn evaluate(
    player: &mut dyn Player,
    game: &Game,
    per_eval: Limits,
    stop: &StopFlag,
) -> Result<i64, EngineError> {
    if let Some(outcome) = game.outcome() {
        // The side to move has lost (a five) or it is a draw.
        return Ok(match outcome.winner() {
            Some(c) if c == game.to_move() => 1_000_000,
            Some(_) => -1_000_000,
            None => 0,
        });
    }
    let mut progress = |_: &crate::player::SearchInfo| {};
    let mut ctx = Context::new(per_eval, stop.clone(), &mut progress);
    let decision = player.choose(game, &mut ctx)?;
    Ok(decision.info.map_or(0, |i| score_value(i.score)))
}

/// The empty legal points nearest the stones (within two points of one),
/// nearest first, ties in board order; at most `most`.
fn near_points(game: &Game, keep: impl Fn(Pos) -> bool, most: usize) -> Vec<Pos> {
    let board = game.board();
    let stones: Vec<Pos> = board.stones().map(|(p, _)| p).collect();
    let mut points: Vec<(u8, Pos)> = game
        .size()
        .points()
        .filter(|&p| keep(p) && game.check(p).is_ok())
        .filter_map(|p| {
            let d = stones
                .iter()
                .map(|s| s.x.abs_diff(p.x).max(s.y.abs_diff(p.y)))
                .min()
                .unwrap_or(0);
            (d <= 2).then_some((d, p))
        })
        .collect();
    points.sort_by_key(|&(d, p)| (d, p.y, p.x));
    points.into_iter().take(most).map(|(_, p)| p).collect()
}

/// The 5th moves for black on the table's position, best for black
/// first, each with its value for black.
fn ranked_fifths(
    table: &Table,
    player: &mut dyn Player,
    per_eval: Limits,
    stop: &StopFlag,
) -> Result<Vec<(Pos, i64)>, EngineError> {
    // The offers of one opening are made one by one on the same stones:
    // rank them once.
    let key = (table.game().hash(), player.name(), per_eval);
    if let Some(ranked) = RANKED.with_borrow(|c| {
        c.as_ref()
            .filter(|(k, _)| *k == key)
            .map(|(_, r)| r.clone())
    }) {
        return Ok(ranked);
    }
    let ranked = rank_fifths(table, player, per_eval, stop)?;
    if !stop.is_set() {
        RANKED.with_borrow_mut(|c| *c = Some((key, ranked.clone())));
    }
    Ok(ranked)
}

/// The key of a ranking: position, player and limits.
type RankKey = (u64, String, Limits);
/// The last ranking: its key and the ranked 5th moves.
type Ranking = Option<(RankKey, Vec<(Pos, i64)>)>;

thread_local! {
    /// The last ranking of 5th moves made on this thread.
    static RANKED: std::cell::RefCell<Ranking> =
        const { std::cell::RefCell::new(None) };
}

fn rank_fifths(
    table: &Table,
    player: &mut dyn Player,
    per_eval: Limits,
    stop: &StopFlag,
) -> Result<Vec<(Pos, i64)>, EngineError> {
    let game = table.game();
    let mut ranked = Vec::new();
    let mut candidates = near_points(game, |_| true, FIFTH_CANDIDATES);
    // The player's own best 5th move is always a candidate.
    let mut progress = |_: &crate::player::SearchInfo| {};
    let mut ctx = Context::new(per_eval, stop.clone(), &mut progress);
    let own = player.choose(game, &mut ctx)?.best;
    if !candidates.contains(&own) {
        candidates.insert(0, own);
    }
    for pos in candidates {
        let mut after = game.clone();
        if after.try_play(pos).is_err() {
            continue;
        }
        // White is to move after the 5th: its score, negated, is black's.
        let value = -evaluate(player, &after, per_eval, stop)?;
        ranked.push((pos, value));
    }
    ranked.sort_by_key(|&(p, v)| (std::cmp::Reverse(v), p.y, p.x));
    Ok(ranked)
}

/// The computer's action for the step of the renju opening due now at
/// `table` (the computer sits in the seat that must act). `per_eval`
/// limits each of the searches it makes.
///
/// # Errors
/// [`EngineError::GameOver`] when the game is over; a search's error.
pub fn opening_action(
    table: &Table,
    player: &mut dyn Player,
    per_eval: Limits,
    stop: &StopFlag,
) -> Result<OpeningAction, EngineError> {
    let game = table.game();
    match table.turn() {
        Turn::Over => Err(EngineError::GameOver),
        Turn::Move { .. } if table.colors_decided() => {
            let mut progress = |_: &crate::player::SearchInfo| {};
            let mut ctx = Context::new(per_eval, stop.clone(), &mut progress);
            Ok(OpeningAction::Place(player.choose(game, &mut ctx)?.best))
        }
        Turn::Move { .. } => {
            let size = game.size();
            let opening = table.opening();
            let candidates = if opening.zone().is_some() {
                let mut c = near_points(
                    game,
                    |p| opening.check_place(size, p).is_ok(),
                    PLACE_CANDIDATES,
                );
                if c.is_empty() {
                    c = size
                        .points()
                        .filter(|&p| opening.check_place(size, p).is_ok() && game.check(p).is_ok())
                        .take(PLACE_CANDIDATES)
                        .collect();
                }
                c
            } else {
                near_points(game, |_| true, PLACE_CANDIDATES)
            };
            place_balanced(game, &candidates, player, per_eval, stop).map(OpeningAction::Place)
        }
        Turn::Choose { options, .. } => {
            let choice = match options.first() {
                Some(Choice::Offers(_)) => {
                    let ranked = ranked_fifths(table, player, per_eval, stop)?;
                    let most = u8::try_from(options.len()).unwrap_or(u8::MAX);
                    Choice::Offers(declare(game, &ranked, most))
                }
                Some(Choice::PlaceFifth) => {
                    let ranked = ranked_fifths(table, player, per_eval, stop)?;
                    let offers = distinct_offers(game, &ranked, &[], usize::from(u8::MAX));
                    let good = offers.iter().filter(|&&(_, v)| v > LOSING).count();
                    if good >= usize::from(caro_core::opening::TARAGUCHI_OFFERS) {
                        Choice::OfferFifths
                    } else {
                        Choice::PlaceFifth
                    }
                }
                _ => {
                    let value = evaluate(player, game, per_eval, stop)?;
                    decide_swap(options, game.to_move(), value >= 0)
                }
            };
            Ok(OpeningAction::Choose(choice))
        }
        Turn::Offer { .. } => {
            let ranked = ranked_fifths(table, player, per_eval, stop)?;
            let made = table.offers();
            let next = distinct_offers(game, &ranked, made, 1)
                .first()
                .map(|&(p, _)| p)
                .or_else(|| any_offer(game, made));
            next.map(OpeningAction::Offer).ok_or(EngineError::GameOver)
        }
        Turn::Pick { .. } => {
            let mut best: Option<(i64, Pos)> = None;
            for &pos in table.offers() {
                let mut after = game.clone();
                if after.try_play(pos).is_err() {
                    continue;
                }
                // White to move: the highest score is the worst for black.
                let value = evaluate(player, &after, per_eval, stop)?;
                if best.is_none_or(|(v, _)| value > v) {
                    best = Some((value, pos));
                }
            }
            best.map(|(_, p)| OpeningAction::Pick(p))
                .ok_or(EngineError::GameOver)
        }
    }
}

/// How many 5th moves to declare, at least one and at most `most`. With
/// `k` offers, the best `k` distinct ones, white picks the worst of them:
/// black gets the `k`th value. White may swap after the declaration, so
/// black declares the `k` whose value is closest to even — never more
/// than it has 5th moves that do not lose.
fn declare(game: &Game, ranked: &[(Pos, i64)], most: u8) -> u8 {
    let offers = distinct_offers(game, ranked, &[], usize::from(most));
    let good = offers.iter().filter(|&&(_, v)| v > LOSING).count().max(1);
    let k = offers
        .iter()
        .take(good)
        .enumerate()
        .min_by_key(|&(k, &(_, v))| (v.abs(), k))
        .map_or(1, |(k, _)| k + 1);
    u8::try_from(k).unwrap_or(most).clamp(1, most)
}

/// The candidate whose position (the opponent to move, who may then
/// swap) the search finds closest to even.
fn place_balanced(
    game: &Game,
    candidates: &[Pos],
    player: &mut dyn Player,
    per_eval: Limits,
    stop: &StopFlag,
) -> Result<Pos, EngineError> {
    if let [only] = candidates {
        return Ok(*only);
    }
    let mut best: Option<(i64, Pos)> = None;
    for &pos in candidates {
        let mut after = game.clone();
        if after.try_play(pos).is_err() {
            continue;
        }
        let off = evaluate(player, &after, per_eval, stop)?.abs();
        if best.is_none_or(|(b, _)| off < b) {
            best = Some((off, pos));
        }
    }
    best.map(|(_, p)| p).ok_or(EngineError::GameOver)
}

/// From `ranked`, in order, up to `most` points that are not offered in
/// `made` and not symmetric to one of `made` or to one taken before.
fn distinct_offers(
    game: &Game,
    ranked: &[(Pos, i64)],
    made: &[Pos],
    most: usize,
) -> Vec<(Pos, i64)> {
    let board = game.board();
    let mut taken: Vec<Pos> = made.to_vec();
    let mut out = Vec::new();
    for &(pos, value) in ranked {
        if out.len() >= most {
            break;
        }
        if taken.iter().any(|&t| t == pos || symmetric(board, t, pos)) {
            continue;
        }
        taken.push(pos);
        out.push((pos, value));
    }
    out
}

/// Any legal point not symmetric to an offer made, when the ranked
/// candidates are used up.
fn any_offer(game: &Game, made: &[Pos]) -> Option<Pos> {
    let board = game.board();
    game.size()
        .points()
        .find(|&p| game.check(p).is_ok() && !made.iter().any(|&t| t == p || symmetric(board, t, p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::PlayerSpec;
    use caro_core::notation::parse_pos;
    use caro_core::opening::{Opening, Seat, SOOSORV8};
    use caro_core::table::{Actor, Sitter};
    use caro_core::{BoardSize, Color, Rule, Rules};

    fn p(text: &str) -> Pos {
        parse_pos(text, BoardSize::square(15)).unwrap()
    }

    fn table(opening: Opening) -> Table {
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        Table::new(
            rules,
            Color::Black,
            opening,
            [
                Sitter::Computer("caro:10".into()),
                Sitter::Computer("caro:10".into()),
            ],
        )
        .unwrap()
    }

    fn act(t: &mut Table, action: OpeningAction) {
        let seat = t.turn().seat().unwrap();
        match action {
            OpeningAction::Choose(c) => t.choose(Actor::Seat(seat), c).unwrap(),
            OpeningAction::Place(pos) | OpeningAction::Offer(pos) | OpeningAction::Pick(pos) => {
                t.play(Actor::Seat(seat), pos).unwrap();
            }
        }
    }

    fn engine() -> Box<dyn Player> {
        PlayerSpec::Caro(10).build(1)
    }

    const QUICK: Limits = Limits {
        move_time: None,
        time_left: None,
        increment: None,
        nodes: Some(4_000),
        depth: Some(3),
        threads: None,
    };

    /// Two computers play Soosõrv-8 through to the 6th move: every step
    /// is accepted by the table.
    #[test]
    fn two_computers_play_soosorv8_through() {
        let mut t = table(SOOSORV8);
        let mut player = engine();
        let stop = StopFlag::new();
        while !t.colors_decided() {
            let a = opening_action(&t, player.as_mut(), QUICK, &stop).unwrap();
            act(&mut t, a);
        }
        assert_eq!(t.game().moves().len(), 5);
        assert!(!t.offers().is_empty());
        assert!(t.offers().contains(&t.game().moves()[4]));
    }

    #[test]
    fn two_computers_play_taraguchi10_through() {
        let mut t = table(Opening::Taraguchi10);
        let mut player = engine();
        let stop = StopFlag::new();
        while !t.colors_decided() {
            let a = opening_action(&t, player.as_mut(), QUICK, &stop).unwrap();
            act(&mut t, a);
        }
        assert_eq!(t.game().moves().len(), 5);
    }

    /// After h8 i8 j8 and white's a4 black (to move, with two stones near
    /// the centre against one) is clearly better: a chooser holding white
    /// takes black.
    #[test]
    fn the_chooser_swaps_to_the_better_side() {
        let mut t = table(SOOSORV8);
        for pos in ["h8", "i8", "j8"] {
            t.play(Actor::Seat(Seat::First), p(pos)).unwrap();
        }
        t.choose(Actor::Seat(Seat::Second), Choice::TakeWhite)
            .unwrap();
        // The 4th, white's, far away in a corner: black is well ahead.
        t.play(Actor::Seat(Seat::Second), p("a1")).unwrap();
        let mut player = engine();
        // The black holder (first seat) keeps black.
        let a = opening_action(&t, player.as_mut(), QUICK, &StopFlag::new()).unwrap();
        assert_eq!(a, OpeningAction::Choose(Choice::TakeBlack));
    }

    /// A position where black must block white's open three with its 5th
    /// move: black h8, j10 (far); white i8 j8 k8 would need three whites,
    /// so use a Taraguchi-free table with the stones set through Soosõrv:
    /// black h8, white i9, black h10; white g9... The chooser is asked
    /// which offered 5th move it picks: one that makes black's four-three
    /// is never picked over a quiet one.
    #[test]
    fn the_chooser_picks_the_offer_worst_for_black() {
        let mut t = table(Opening::Soosorv(2));
        for pos in ["h8", "i9", "h9"] {
            t.play(Actor::Seat(Seat::First), p(pos)).unwrap();
        }
        t.choose(Actor::Seat(Seat::Second), Choice::TakeWhite)
            .unwrap();
        t.play(Actor::Seat(Seat::Second), p("a1")).unwrap();
        t.choose(Actor::Seat(Seat::First), Choice::TakeBlack)
            .unwrap();
        t.choose(Actor::Seat(Seat::First), Choice::Offers(2))
            .unwrap();
        t.choose(Actor::Seat(Seat::Second), Choice::TakeWhite)
            .unwrap();
        // h10 makes an open three (h8 h9 h10) for black; o15 is a wasted
        // move in the far corner. White picks o15.
        t.play(Actor::Seat(Seat::First), p("h10")).unwrap();
        t.play(Actor::Seat(Seat::First), p("o15")).unwrap();
        let mut player = engine();
        let a = opening_action(&t, player.as_mut(), QUICK, &StopFlag::new()).unwrap();
        assert_eq!(a, OpeningAction::Pick(p("o15")));
    }

    /// White threatens to make five at once (a four: i9 j10 k11 l12 with
    /// h8 and m13 open) — black's only 5th moves that do not lose block
    /// it. A level-10 engine declares no more offers than it has good
    /// moves, and its first offers block.
    #[test]
    fn offers_are_not_all_losing() {
        // A position reached by hand through the table is not possible
        // with three white stones in Soosõrv (white has two), so check the
        // ranking on a game with a white four directly.
        let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
        let moves = [
            p("h8"),
            p("i9"),
            p("a1"),
            p("j10"),
            p("a3"),
            p("k11"),
            p("a5"),
            p("l12"),
        ];
        let game = Game::from_moves(rules, Color::Black, &moves).unwrap();
        let mut player = engine();
        let stop = StopFlag::new();
        let mut ranked = Vec::new();
        for pos in near_points(&game, |_| true, FIFTH_CANDIDATES) {
            let mut after = game.clone();
            after.try_play(pos).unwrap();
            ranked.push((
                pos,
                -evaluate(player.as_mut(), &after, QUICK, &stop).unwrap(),
            ));
        }
        ranked.sort_by_key(|&(p, v)| (std::cmp::Reverse(v), p.y, p.x));
        let good: Vec<Pos> = ranked
            .iter()
            .filter(|&&(_, v)| v > LOSING)
            .map(|&(p, _)| p)
            .collect();
        // Only m13 stops the five (h8 is black's own).
        assert_eq!(good, vec![p("m13")]);
        assert_eq!(ranked[0].0, p("m13"));
        // So black declares one offer, and offers m13 first.
        let synthetic: Vec<(Pos, i64)> = ["a15", "b15", "c15", "d15", "e15", "f15"]
            .iter()
            .zip([300, 200, 50, -20, -400, -6_000])
            .map(|(t, v)| (p(t), v))
            .collect();
        // The 4th best (-20) is the closest to even: four offers.
        assert_eq!(declare(&game, &synthetic, 8), 4);
        // At most N, and with every move losing, one.
        assert_eq!(declare(&game, &synthetic, 2), 2);
        let lost: Vec<(Pos, i64)> = synthetic.iter().map(|&(q, _)| (q, -900_000)).collect();
        assert_eq!(declare(&game, &lost, 8), 1);
        assert_eq!(declare(&game, &ranked, 8), 1);
        assert_eq!(distinct_offers(&game, &ranked, &[], 1)[0].0, p("m13"));
    }
}
