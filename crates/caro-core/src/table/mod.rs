//! A seated game: the one place for the rules around the board.
//!
//! A [`Table`] holds a [`Game`], its [opening](crate::opening) and who sits
//! in each seat ([`Sitter::Human`] or a named [`Sitter::Computer`]). It
//! answers whose [`Turn`] it is, places stones and takes swap decisions for
//! the seat whose turn it is, takes moves back and replays them the way a
//! person expects, says who may resign, and tells how the game ended
//! ([`Ending`], with the one English sentence each front end shows). A
//! [`Series`] plays a match of such tables, first to `N` wins.
//!
//! Pure rules: no I/O, no threads, no engines. The terminal and the server
//! drive it and keep their engines, clocks and screens themselves.
//!
//! # Seats
//! The seats are those of the opening: [`Seat::First`] opens (places the
//! first stones of a swap opening; in a `free` opening it plays black) and
//! [`Seat::Second`] is the other. Until a swap opening decides the colours
//! the first seat counts as black.
//!
//! # Undo and redo
//! [`Table::undo`] takes back:
//! - when a person plays a computer, the moves back to the person's
//!   previous turn (the computer's reply goes too); when the person had no
//!   earlier turn there is [nothing to undo](TableError::NothingToUndo)
//!   (the computer is not asked to play its first move again);
//! - with two people, or two computers, one move;
//! - in a `swap1` or `swap2` opening still going on, one opening action
//!   (a stone or a swap decision), or against a computer back to the
//!   person's previous action (the opener taking back a stone just
//!   placed); once the colours are decided the opening's stones are the
//!   floor;
//! - in renju's tournament openings (`soosorvN`, `taraguchi10`), back
//!   through the opening's phases too, one action at a time (a stone, a
//!   swap decision, a declaration, an offer), or against a computer back
//!   to the person's previous action.
//!
//! A finished game stays finished: once it has a result (five in a row, a
//! full board, a resignation, an agreed draw, a foul, a failure or a loss
//! on time) undo is refused with [`TableError::GameOver`], so a result is
//! never erased (look at an earlier position in an analysis instead).
//! [`Table::redo`] replays up to the person's next turn (one move with two
//! people or two computers).
//!
//! Undo never takes back a computer's first move alone: letting it move
//! again would give a new game, not the person's earlier turn.
//!
//! Front ends step through a game with [`Table::step_back`] and
//! [`Table::step_forward`], which add the seated game's policy: with
//! computers in both seats an undo or a redo pauses computer play (the
//! person wants to look, not have the computers play on), and a game a
//! match has counted is finished, so it is never stepped.
//!
//! ```
//! use caro_core::opening::{Choice, Opening, Seat};
//! use caro_core::table::{Actor, Sitter, Table, Turn};
//! use caro_core::{BoardSize, Color, Pos, Rule, Rules};
//!
//! let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
//! let mut table = Table::new(
//!     rules,
//!     Color::Black,
//!     Opening::Swap1,
//!     [Sitter::Human, Sitter::Computer("caro:3".into())],
//! )
//! .unwrap();
//! for (x, y) in [(7, 7), (8, 8), (9, 9)] {
//!     table.play(Actor::Person, Pos::new(x, y)).unwrap();
//! }
//! assert!(matches!(table.turn(), Turn::Choose { seat: Seat::Second, .. }));
//! // The computer's search says the side to move (white) is fine: it takes white.
//! let choice = table.computer_choice(true).unwrap();
//! assert_eq!(choice, Choice::TakeWhite);
//! table.choose(Actor::Seat(Seat::Second), choice).unwrap();
//! assert_eq!(table.turn(), Turn::Move { seat: Seat::Second, color: Color::White });
//! ```

use std::fmt;

use crate::board::Line;
use crate::forbidden::Foul;
use crate::game::{Game, MoveError, Outcome};
use crate::notation::format_pos;
use crate::opening::{Choice, Opening, OpeningError, OpeningState, OpeningStep, Seat};
use crate::pos::{BoardSize, Color, Pos};
use crate::rule::Rules;

mod series;

pub use series::{Series, SeriesError};

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Sitter {
    /// A person.
    Human,
    /// A computer player, by its name (`caro:5`, `random`, `pbrain:/x`).
    Computer(String),
}

impl Sitter {
    /// `human`, or the computer player's name.
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            Sitter::Human => "human",
            Sitter::Computer(name) => name,
        }
    }

    /// Whether a person sits here.
    #[must_use]
    pub fn is_human(&self) -> bool {
        matches!(self, Sitter::Human)
    }

    /// Whether a computer sits here.
    #[must_use]
    pub fn is_computer(&self) -> bool {
        matches!(self, Sitter::Computer(_))
    }
}

impl fmt::Display for Sitter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who must do what now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// `seat` places a stone of `color`: an opening stone or a move.
    Move {
        /// Who places it.
        seat: Seat,
        /// Its colour.
        color: Color,
    },
    /// `seat` makes a swap decision among `options`.
    Choose {
        /// Who chooses.
        seat: Seat,
        /// What may be chosen, in a fixed order.
        options: &'static [Choice],
    },
    /// `seat` (black for now) offers a 5th move by naming a point (renju
    /// openings); no stone goes there yet.
    Offer {
        /// Who offers.
        seat: Seat,
        /// How many were offered so far.
        made: u8,
        /// How many will be.
        total: u8,
    },
    /// `seat` (white for now) picks one of the offered 5th moves by naming
    /// its point; black's 5th stone goes there.
    Pick {
        /// Who picks.
        seat: Seat,
    },
    /// The game is over.
    Over,
}

impl Turn {
    /// The seat that must act, unless the game is over.
    #[must_use]
    pub const fn seat(&self) -> Option<Seat> {
        match *self {
            Turn::Move { seat, .. }
            | Turn::Choose { seat, .. }
            | Turn::Offer { seat, .. }
            | Turn::Pick { seat } => Some(seat),
            Turn::Over => None,
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Turn::Move { color, .. } => write!(f, "{color} is to move"),
            Turn::Choose { seat, options } => {
                write!(
                    f,
                    "the {seat} player chooses {}",
                    crate::opening::list(options)
                )
            }
            Turn::Offer { seat, made, total } => write!(
                f,
                "the {seat} player offers a 5th move ({} of {total})",
                made + 1
            ),
            Turn::Pick { seat } => {
                write!(f, "the {seat} player picks one of the offered 5th moves")
            }
            Turn::Over => f.write_str("the game is over"),
        }
    }
}

/// Who acts: any person at the board, or one seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Actor {
    /// Whichever person sits where the turn is (one screen, one keyboard):
    /// refused when a computer sits there.
    Person,
    /// Exactly this seat (an online player's seat, or a computer's move):
    /// refused when it is the other seat's turn.
    Seat(Seat),
}

/// Why a table refused an action. The table is unchanged. Each error has a
/// stable machine code ([`TableError::code`]) that front ends translate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// Somebody else must act now.
    #[error("not your turn: {turn} ({player})")]
    NotYourTurn {
        /// What is due now.
        turn: Turn,
        /// Who must do it.
        player: String,
    },
    /// A swap decision is due, not a stone.
    #[error("the {seat} player chooses now: {}", crate::opening::list(.options))]
    MustChoose {
        /// Who chooses.
        seat: Seat,
        /// What may be chosen.
        options: &'static [Choice],
    },
    /// No swap decision is due now.
    #[error("there is nothing to choose now")]
    NoChoice,
    /// The choice is not among those offered.
    #[error("{choice} is not offered here: choose {}", crate::opening::list(.options))]
    NotOffered {
        /// The choice made.
        choice: Choice,
        /// The choices offered.
        options: &'static [Choice],
    },
    /// The other seat makes the decision due now.
    #[error("the {seat} player ({player}) chooses now, not you")]
    NotYourChoice {
        /// Who chooses.
        seat: Seat,
        /// Who sits there.
        player: String,
    },
    /// The rules refuse the move (occupied, forbidden, off the board).
    #[error(transparent)]
    Move(MoveError),
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// Nothing can be taken back.
    #[error("nothing to undo")]
    NothingToUndo,
    /// Nothing can be replayed.
    #[error("nothing to redo")]
    NothingToRedo,
    /// Resigning needs a person in the seat.
    #[error("only a person can resign; in a computer game start a new game")]
    NobodyToResign,
    /// A renju opening refuses the point: outside the central square, an
    /// offer symmetric to an earlier one, a pick that was not offered.
    #[error(transparent)]
    Opening(OpeningError),
    /// The table cannot be set up this way.
    #[error("bad table: {0}")]
    Setup(String),
}

impl TableError {
    /// A short stable code: `not_your_turn`, `must_choose`, `no_choice`,
    /// `not_your_choice`, `occupied`, `forbidden`, `off_board`,
    /// `game_over`, `nothing_to_undo`, `nothing_to_redo`,
    /// `nobody_to_resign`, `outside_zone`, `bad_offer`, `not_an_offer` or
    /// `bad_setup`. A choice that is not offered is `no_choice`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            TableError::NotYourTurn { .. } => "not_your_turn",
            TableError::MustChoose { .. } => "must_choose",
            TableError::NoChoice | TableError::NotOffered { .. } => "no_choice",
            TableError::NotYourChoice { .. } => "not_your_choice",
            TableError::Move(MoveError::Occupied { .. }) => "occupied",
            TableError::Move(MoveError::Forbidden { .. }) => "forbidden",
            TableError::Move(MoveError::OffBoard { .. }) => "off_board",
            TableError::Move(MoveError::GameOver) | TableError::GameOver => "game_over",
            TableError::NothingToUndo => "nothing_to_undo",
            TableError::NothingToRedo => "nothing_to_redo",
            TableError::NobodyToResign => "nobody_to_resign",
            TableError::Opening(OpeningError::OutsideZone { .. }) => "outside_zone",
            TableError::Opening(
                OpeningError::SymmetricOffer { .. } | OpeningError::OfferedTwice { .. },
            ) => "bad_offer",
            TableError::Opening(OpeningError::NotAnOffer { .. }) => "not_an_offer",
            TableError::Opening(_) | TableError::Setup(_) => "bad_setup",
        }
    }
}

impl From<MoveError> for TableError {
    fn from(e: MoveError) -> TableError {
        match e {
            MoveError::GameOver => TableError::GameOver,
            other => TableError::Move(other),
        }
    }
}

/// How a game ended: the one description both front ends use.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// `winner` made a line of `k` (or more).
    Five {
        /// Who made it.
        winner: Color,
        /// The line.
        line: Line,
    },
    /// `winner`'s opponent resigned.
    Resign {
        /// The side that did not resign.
        winner: Color,
    },
    /// Drawn by the board: it is full, or (renju) black has only forbidden
    /// points left.
    Draw {
        /// Whether the board is full (else black has no legal move).
        full: bool,
    },
    /// Black played a renju forbidden point (refereed play).
    Foul {
        /// White.
        winner: Color,
        /// The point.
        at: Pos,
        /// Which foul.
        foul: Foul,
    },
    /// `loser` ran out of time.
    Time {
        /// The side whose time ran out.
        loser: Color,
    },
    /// The players agreed a draw.
    Agreed,
    /// `loser`'s computer player failed (crashed, answered an illegal
    /// move…).
    Failed {
        /// The side that failed.
        loser: Color,
        /// What went wrong.
        reason: String,
    },
}

impl Ending {
    /// The reason code: `five`, `resign`, `draw`, `foul`, `time`, `agreed`
    /// or `failed`.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Ending::Five { .. } => "five",
            Ending::Resign { .. } => "resign",
            Ending::Draw { .. } => "draw",
            Ending::Foul { .. } => "foul",
            Ending::Time { .. } => "time",
            Ending::Agreed => "agreed",
            Ending::Failed { .. } => "failed",
        }
    }

    /// The winner, or `None` for a draw.
    #[must_use]
    pub fn winner(&self) -> Option<Color> {
        match *self {
            Ending::Five { winner, .. }
            | Ending::Resign { winner }
            | Ending::Foul { winner, .. } => Some(winner),
            Ending::Time { loser } | Ending::Failed { loser, .. } => Some(loser.opponent()),
            Ending::Draw { .. } | Ending::Agreed => None,
        }
    }

    /// The winning line, for a five.
    #[must_use]
    pub fn line(&self) -> Option<Line> {
        match *self {
            Ending::Five { line, .. } => Some(line),
            _ => None,
        }
    }

    /// The ending of a game the rules ended.
    #[must_use]
    pub fn from_outcome(outcome: &Outcome, game: &Game) -> Ending {
        match *outcome {
            Outcome::Five { winner, line } => Ending::Five { winner, line },
            Outcome::Resigned { winner } => Ending::Resign { winner },
            Outcome::Draw => Ending::Draw {
                full: game.board().is_full(),
            },
            Outcome::Foul { winner, at, foul } => Ending::Foul { winner, at, foul },
        }
    }

    /// The one English sentence for this ending, points named on a board of
    /// `size`:
    /// - `black wins with 5 in a row: h8 i8 j8 k8 l8`
    /// - `black wins: white resigned`
    /// - `draw: the board is full`
    /// - `draw: black has no legal move (every empty point is forbidden)`
    /// - `white wins: black played a forbidden point at h8 (double-three)`
    /// - `black wins: white ran out of time`
    /// - `draw by agreement`
    /// - `black wins: white could not move (reason)`
    #[must_use]
    pub fn sentence(&self, size: BoardSize) -> String {
        match self {
            Ending::Five { winner, line } => format!(
                "{winner} wins with {} in a row: {}",
                line.len,
                line.points()
                    .map(|p| format_pos(p, size))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            Ending::Resign { winner } => {
                format!("{winner} wins: {} resigned", winner.opponent())
            }
            Ending::Draw { full: true } => "draw: the board is full".to_string(),
            Ending::Draw { full: false } => {
                "draw: black has no legal move (every empty point is forbidden)".to_string()
            }
            Ending::Foul { winner, at, foul } => format!(
                "{winner} wins: black played a forbidden point at {} ({foul})",
                format_pos(*at, size)
            ),
            Ending::Time { loser } => {
                format!("{} wins: {loser} ran out of time", loser.opponent())
            }
            Ending::Agreed => "draw by agreement".to_string(),
            Ending::Failed { loser, reason } => {
                format!(
                    "{} wins: {loser} could not move ({reason})",
                    loser.opponent()
                )
            }
        }
    }
}

/// The computer's swap decision: it takes the colour its search finds at
/// least even for. `to_move` is the side to move in the position (white,
/// after the opening's stones) and `at_least_even` whether the search
/// scores it at least even; when it cannot tell, pass `true`. A computer
/// never places two more stones. When the wanted colour is not offered,
/// the first option.
#[must_use]
pub fn decide_swap(options: &[Choice], to_move: Color, at_least_even: bool) -> Choice {
    let color = if at_least_even {
        to_move
    } else {
        to_move.opponent()
    };
    let wanted = match color {
        Color::Black => Choice::TakeBlack,
        Color::White => Choice::TakeWhite,
    };
    if options.contains(&wanted) {
        wanted
    } else {
        options.first().copied().unwrap_or(wanted)
    }
}

/// The shortest row a swap opening allows: its opener places up to three
/// black stones, which must not win before the colours are chosen.
pub const MIN_SWAP_K: u8 = 4;

/// Where an opening stood before one of its actions, for undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Snapshot {
    opening: OpeningState,
    moves: usize,
    choices: usize,
}

/// What [`Table::step_back`] or [`Table::step_forward`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// How many moves (in a renju opening, opening actions) were taken
    /// back or replayed.
    pub moves: usize,
    /// Whether the front end pauses computer play now: after an undo or a
    /// redo with computers in both seats (a person stepping back or
    /// forward wants to look at the position, not have the computers play
    /// on from it). Resuming is the person's choice.
    pub pause: bool,
}

/// A seated game. See the [module documentation](self).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    game: Game,
    opening: OpeningState,
    sitters: [Sitter; 2],
    choices: Vec<Choice>,
    /// An ending the board does not know: time, agreed, failed.
    stopped: Option<Ending>,
    /// Swap and renju openings: the state before each opening action, for
    /// undo.
    history: Vec<Snapshot>,
}

impl Table {
    /// A new game: empty board, `first` to move, the opening at its start,
    /// `sitters` in the first and second seat. In a `free` opening the first
    /// seat plays black; a swap opening needs black to move first.
    ///
    /// # Errors
    /// [`TableError::Setup`] when the rules refuse `first` (renju), a swap
    /// opening does not start with black, or a swap opening is asked for
    /// with fewer than [`MIN_SWAP_K`] in a row to win; a renju opening
    /// under another rule than renju or on a board too small for its
    /// central squares.
    pub fn new(
        rules: Rules,
        first: Color,
        opening: Opening,
        sitters: [Sitter; 2],
    ) -> Result<Table, TableError> {
        if opening != Opening::Free && first != Color::Black {
            return Err(TableError::Setup(format!(
                "the {opening} opening starts with black"
            )));
        }
        if opening != Opening::Free && rules.k < MIN_SWAP_K {
            return Err(TableError::Setup(format!(
                "the {opening} opening needs at least {MIN_SWAP_K} in a row to win, not {}: \
                 its opening stones could win before the colours are chosen",
                rules.k
            )));
        }
        if opening.is_renju() {
            if rules.rule != crate::rule::Rule::Renju {
                return Err(TableError::Setup(format!(
                    "the {opening} opening is a renju opening: play it under the renju rule, \
                     not {}",
                    rules.rule
                )));
            }
            let side = match opening {
                Opening::Taraguchi10 => 9,
                _ => 5,
            };
            if rules.size.width < side || rules.size.height < side {
                return Err(TableError::Setup(format!(
                    "the {opening} opening needs a board of at least {side}×{side}, not {}",
                    rules.size
                )));
            }
        }
        let game = Game::new(rules, first).map_err(|e| TableError::Setup(e.to_string()))?;
        Ok(Table {
            game,
            opening: OpeningState::new(opening),
            sitters,
            choices: Vec::new(),
            stopped: None,
            history: Vec::new(),
        })
    }

    /// A stored game played again: `moves` in order, each swap decision
    /// taken from `choices` as it falls due, then `redo` played and taken
    /// back so [`Table::redo`] replays it.
    ///
    /// # Errors
    /// [`TableError::Setup`] when the rules refuse a move, a choice is
    /// missing or not offered, choices are left over, or the redo moves
    /// would reach below the opening's stones.
    pub fn replay(
        rules: Rules,
        first: Color,
        opening: Opening,
        sitters: [Sitter; 2],
        moves: &[Pos],
        redo: &[Pos],
        choices: &[Choice],
    ) -> Result<Table, TableError> {
        Table::replay_with_offers(rules, first, opening, sitters, moves, redo, choices, &[])
    }

    /// [`Table::replay`] for a renju opening whose black offered 5th
    /// moves: `offers` are made as they fall due (the pick is the 5th of
    /// `moves`).
    ///
    /// # Errors
    /// As [`Table::replay`]; also when an offer is missing, refused or left
    /// over.
    #[allow(clippy::too_many_arguments)]
    pub fn replay_with_offers(
        rules: Rules,
        first: Color,
        opening: Opening,
        sitters: [Sitter; 2],
        moves: &[Pos],
        redo: &[Pos],
        choices: &[Choice],
        offers: &[Pos],
    ) -> Result<Table, TableError> {
        let mut table = Table::new(rules, first, opening, sitters)?;
        let mut choices = choices.iter().copied();
        let mut offers = offers.iter().copied();
        let bad = |what: String| TableError::Setup(what);
        for (n, &pos) in moves.iter().chain(redo).enumerate() {
            loop {
                match table.turn() {
                    Turn::Choose { seat, .. } => {
                        let choice = choices.next().ok_or_else(|| {
                            bad(format!("no choice recorded before move {}", n + 1))
                        })?;
                        table
                            .choose(Actor::Seat(seat), choice)
                            .map_err(|e| bad(e.to_string()))?;
                    }
                    Turn::Offer { seat, .. } => {
                        let offer = offers.next().ok_or_else(|| {
                            bad(format!("no offer recorded before move {}", n + 1))
                        })?;
                        table
                            .play(Actor::Seat(seat), offer)
                            .map_err(|e| bad(format!("offer: {e}")))?;
                    }
                    _ => break,
                }
            }
            let seat = table.turn().seat().unwrap_or(Seat::First);
            table
                .play(Actor::Seat(seat), pos)
                .map_err(|e| bad(format!("move {}: {e}", n + 1)))?;
        }
        loop {
            match table.turn() {
                Turn::Choose { seat, .. } => {
                    let Some(choice) = choices.next() else { break };
                    table
                        .choose(Actor::Seat(seat), choice)
                        .map_err(|e| bad(e.to_string()))?;
                }
                Turn::Offer { seat, .. } => {
                    let Some(offer) = offers.next() else { break };
                    table
                        .play(Actor::Seat(seat), offer)
                        .map_err(|e| bad(format!("offer: {e}")))?;
                }
                _ => break,
            }
        }
        if choices.next().is_some() {
            return Err(bad("more choices recorded than the opening asks".into()));
        }
        if offers.next().is_some() {
            return Err(bad("more offers recorded than the opening asks".into()));
        }
        if !redo.is_empty() && moves.len() < table.opening.stones_placed() {
            return Err(bad("redo moves reach into the opening".into()));
        }
        for _ in redo {
            table.game.undo();
        }
        Ok(table)
    }

    /// The game: board, history, redo moves and the board's result.
    #[must_use]
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Where the opening has got to.
    #[must_use]
    pub fn opening(&self) -> &OpeningState {
        &self.opening
    }

    /// The swap decisions made so far, in order (for storing the game; see
    /// [`Table::replay`]).
    #[must_use]
    pub fn choices(&self) -> &[Choice] {
        &self.choices
    }

    /// The 5th moves black offered in a renju opening, in order (for
    /// storing the game; see [`Table::replay_with_offers`]).
    #[must_use]
    pub fn offers(&self) -> &[Pos] {
        self.opening.offers()
    }

    /// Stones placed by the opening: undo never goes below them.
    #[must_use]
    pub fn opening_stones(&self) -> usize {
        self.opening.stones_placed()
    }

    /// Who sits in `seat`.
    #[must_use]
    pub fn sitter(&self, seat: Seat) -> &Sitter {
        &self.sitters[seat.index()]
    }

    /// Both seats' sitters, first seat first.
    #[must_use]
    pub fn sitters(&self) -> &[Sitter; 2] {
        &self.sitters
    }

    /// The seat that plays `color`: once a swap opening has decided, the
    /// seat that took it; before, the first seat for black.
    #[must_use]
    pub fn seat_of(&self, color: Color) -> Seat {
        let black = self.opening.holder();
        match color {
            Color::Black => black,
            Color::White => black.other(),
        }
    }

    /// The colour `seat` plays (see [`Table::seat_of`]).
    #[must_use]
    pub fn color_of(&self, seat: Seat) -> Color {
        if self.seat_of(Color::Black) == seat {
            Color::Black
        } else {
            Color::White
        }
    }

    /// Whether the colours are decided (always, but during a swap opening).
    #[must_use]
    pub fn colors_decided(&self) -> bool {
        self.opening.is_done()
    }

    /// Whether a person sits in `seat`.
    #[must_use]
    pub fn is_human_seat(&self, seat: Seat) -> bool {
        self.sitter(seat).is_human()
    }

    /// Whether a person plays `color`.
    #[must_use]
    pub fn is_human(&self, color: Color) -> bool {
        self.is_human_seat(self.seat_of(color))
    }

    /// Whether a person sits in either seat.
    #[must_use]
    pub fn has_human(&self) -> bool {
        self.sitters.iter().any(Sitter::is_human)
    }

    /// Whether computers sit in both seats.
    #[must_use]
    pub fn computers_only(&self) -> bool {
        self.sitters.iter().all(Sitter::is_computer)
    }

    /// Whether a person plays a computer (undo and redo then go to the
    /// person's turns).
    #[must_use]
    pub fn person_against_computer(&self) -> bool {
        self.has_human() && !self.sitters.iter().all(Sitter::is_human)
    }

    /// How the game ended, if it has.
    #[must_use]
    pub fn ending(&self) -> Option<Ending> {
        if let Some(ending) = &self.stopped {
            return Some(ending.clone());
        }
        self.game
            .outcome()
            .map(|o| Ending::from_outcome(o, &self.game))
    }

    /// The sentence of the ending, if the game has ended (see
    /// [`Ending::sentence`]).
    #[must_use]
    pub fn ending_sentence(&self) -> Option<String> {
        self.ending().map(|e| e.sentence(self.game.size()))
    }

    /// Whether the game has ended.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.stopped.is_some() || self.game.is_over()
    }

    /// Who must do what now.
    #[must_use]
    pub fn turn(&self) -> Turn {
        if self.is_over() {
            return Turn::Over;
        }
        match self.opening.step() {
            OpeningStep::Place { seat, color } => Turn::Move { seat, color },
            OpeningStep::Choose { seat, options } => Turn::Choose { seat, options },
            OpeningStep::Offer { seat, made, total } => Turn::Offer { seat, made, total },
            OpeningStep::Pick { seat } => Turn::Pick { seat },
            OpeningStep::Done { .. } => {
                let color = self.game.to_move();
                Turn::Move {
                    seat: self.seat_of(color),
                    color,
                }
            }
        }
    }

    /// Whether the game goes on and a person must act (move or choose).
    #[must_use]
    pub fn person_to_act(&self) -> bool {
        self.turn().seat().is_some_and(|s| self.is_human_seat(s))
    }

    /// Whether the game goes on and a computer must act.
    #[must_use]
    pub fn computer_to_act(&self) -> bool {
        self.turn()
            .seat()
            .is_some_and(|s| self.sitter(s).is_computer())
    }

    fn may_act(&self, by: Actor, seat: Seat) -> bool {
        match by {
            Actor::Person => self.is_human_seat(seat),
            Actor::Seat(s) => s == seat,
        }
    }

    fn not_your_turn(&self) -> TableError {
        let turn = self.turn();
        TableError::NotYourTurn {
            turn,
            player: turn
                .seat()
                .map_or("nobody", |s| self.sitter(s).name())
                .to_string(),
        }
    }

    /// `by` places a stone at `pos` for the seat whose turn it is: an
    /// opening stone or a move; in a renju opening, offers `pos` as a 5th
    /// move or picks the offered `pos`. Returns the ending if the move
    /// ended the game.
    ///
    /// # Errors
    /// [`TableError::GameOver`]; [`TableError::MustChoose`] when `by` must
    /// make a swap decision instead; [`TableError::NotYourTurn`] when
    /// another seat must act; [`TableError::Move`] when the rules refuse the
    /// point; [`TableError::Opening`] when the opening does (outside its
    /// central square, a symmetric offer, a pick not offered). The table is
    /// unchanged.
    pub fn play(&mut self, by: Actor, pos: Pos) -> Result<Option<Ending>, TableError> {
        let (seat, color) = match self.turn() {
            Turn::Over => return Err(TableError::GameOver),
            Turn::Choose { seat, options } if self.may_act(by, seat) => {
                return Err(TableError::MustChoose { seat, options })
            }
            Turn::Choose { .. } => return Err(self.not_your_turn()),
            Turn::Offer { seat, .. } => {
                if !self.may_act(by, seat) {
                    return Err(self.not_your_turn());
                }
                self.game.check(pos)?;
                let before = self.snapshot();
                self.opening
                    .offer(self.game.board(), pos)
                    .map_err(TableError::Opening)?;
                self.history.push(before);
                return Ok(None);
            }
            Turn::Pick { seat } => {
                if !self.may_act(by, seat) {
                    return Err(self.not_your_turn());
                }
                let size = self.game.size();
                self.opening
                    .check_pick(size, pos)
                    .map_err(TableError::Opening)?;
                let before = self.snapshot();
                self.game.try_play(pos)?;
                let picked = self.opening.picked(size, pos);
                debug_assert!(picked.is_ok(), "{picked:?}");
                self.history.push(before);
                return Ok(self.ending());
            }
            Turn::Move { seat, color } => (seat, color),
        };
        if !self.may_act(by, seat) {
            return Err(self.not_your_turn());
        }
        if color != self.game.to_move() {
            return Err(TableError::Setup(format!(
                "the opening wants a {color} stone but {} is to move",
                self.game.to_move()
            )));
        }
        if !self.opening.is_done() {
            self.opening
                .check_place(self.game.size(), pos)
                .map_err(TableError::Opening)?;
        }
        let before = self.snapshot();
        self.game.try_play(pos)?;
        if !self.opening.is_done() {
            // The colour was checked above: the opening takes the stone.
            let placed: Result<(), OpeningError> = self.opening.stone_placed(color);
            debug_assert!(placed.is_ok(), "{placed:?}");
            self.remember(before);
        }
        Ok(self.ending())
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            opening: self.opening,
            moves: self.game.moves().len(),
            choices: self.choices.len(),
        }
    }

    /// Keeps the state before an opening action, for undo.
    fn remember(&mut self, before: Snapshot) {
        if self.opening.opening() != Opening::Free {
            self.history.push(before);
        }
    }

    /// `by` makes the swap decision due now.
    ///
    /// # Errors
    /// [`TableError::GameOver`]; [`TableError::NoChoice`] when no decision
    /// is due; [`TableError::NotYourChoice`] when the other seat decides;
    /// [`TableError::NotOffered`] when `choice` is not among the options.
    /// The table is unchanged.
    pub fn choose(&mut self, by: Actor, choice: Choice) -> Result<(), TableError> {
        let (seat, options) = match self.turn() {
            Turn::Over => return Err(TableError::GameOver),
            Turn::Move { .. } | Turn::Offer { .. } | Turn::Pick { .. } => {
                return Err(TableError::NoChoice)
            }
            Turn::Choose { seat, options } => (seat, options),
        };
        if !self.may_act(by, seat) {
            return Err(TableError::NotYourChoice {
                seat,
                player: self.sitter(seat).name().to_string(),
            });
        }
        if !options.contains(&choice) {
            return Err(TableError::NotOffered { choice, options });
        }
        let before = self.snapshot();
        self.opening
            .choose(seat, choice)
            .map_err(|e| TableError::Setup(e.to_string()))?;
        self.choices.push(choice);
        self.remember(before);
        Ok(())
    }

    /// The decision a computer makes when a swap decision is due: see
    /// [`decide_swap`]. `None` when no decision is due.
    #[must_use]
    pub fn computer_choice(&self, at_least_even: bool) -> Option<Choice> {
        match self.turn() {
            Turn::Choose { options, .. } => {
                Some(decide_swap(options, self.game.to_move(), at_least_even))
            }
            _ => None,
        }
    }

    /// Takes moves back (see the [module documentation](self#undo-and-redo)):
    /// against a computer back to the person's previous turn, otherwise one
    /// move, never below a decided swap opening's stones; during an
    /// opening, its actions. Returns how many moves (or opening actions)
    /// were taken back.
    ///
    /// # Errors
    /// [`TableError::GameOver`] once the game has a result (it stays),
    /// [`TableError::NothingToUndo`] when nothing can be taken back. The
    /// table is then unchanged.
    pub fn undo(&mut self) -> Result<usize, TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        let mixed = self.person_against_computer();
        let floor = self.opening.stones_placed();
        if !self.opening.is_done()
            || (self.opening.opening().is_renju() && self.game.moves().len() <= floor)
        {
            return self.undo_opening(mixed);
        }
        if self.game.moves().len() <= floor {
            return Err(TableError::NothingToUndo);
        }
        if !mixed {
            self.game.undo();
            return Ok(1);
        }
        let mut n = 0;
        while self.game.moves().len() > floor && self.game.undo().is_some() {
            n += 1;
            if self.person_to_act() {
                return Ok(n);
            }
        }
        // The person had no earlier turn: put everything back.
        for _ in 0..n {
            self.game.redo();
        }
        Err(TableError::NothingToUndo)
    }

    /// Takes back opening actions: one, or against a computer back to the
    /// person's previous action. A swap opening's stones taken back are
    /// not kept for redo (redo waits for the opening to end, and a stone
    /// placed again replaces them).
    fn undo_opening(&mut self, mixed: bool) -> Result<usize, TableError> {
        let saved = (self.game.clone(), self.opening, self.choices.clone());
        let saved_history = self.history.clone();
        let renju = self.opening.opening().is_renju();
        let mut n = 0;
        while let Some(before) = self.history.pop() {
            while self.game.moves().len() > before.moves {
                let taken = if renju {
                    self.game.undo()
                } else {
                    self.game.undo_unchecked()
                };
                if taken.is_none() {
                    break;
                }
            }
            self.opening = before.opening;
            self.choices.truncate(before.choices);
            n += 1;
            if !mixed || self.person_to_act() {
                return Ok(n);
            }
        }
        (self.game, self.opening, self.choices) = saved;
        self.history = saved_history;
        Err(TableError::NothingToUndo)
    }

    /// Whether [`Table::undo`] would take something back now (for a
    /// front end's Undo button).
    #[must_use]
    pub fn can_undo(&self) -> bool {
        self.clone().undo().is_ok()
    }

    /// Replays moves taken back: up to the person's next turn against a
    /// computer, otherwise one move. Returns how many were replayed.
    ///
    /// # Errors
    /// [`TableError::NothingToRedo`] when there is nothing to replay (or the
    /// game is over).
    pub fn redo(&mut self) -> Result<usize, TableError> {
        if self.is_over() || !self.opening.is_done() {
            return Err(TableError::NothingToRedo);
        }
        let mixed = self.person_against_computer();
        let mut n = 0;
        while self.game.redo().is_some() {
            n += 1;
            if !mixed || self.game.is_over() || self.person_to_act() {
                break;
            }
        }
        if n == 0 {
            Err(TableError::NothingToRedo)
        } else {
            Ok(n)
        }
    }

    /// [`Table::undo`] with the seated game's policy around it: the
    /// [`Step`] says how many moves went back and whether computer play
    /// pauses (with computers in both seats). A refused undo changes
    /// nothing and pauses nothing. Front ends that run computers call this
    /// rather than [`Table::undo`].
    ///
    /// A game a match has counted cannot be stepped back: a match records
    /// only finished games ([`Series::record`]), and a finished game is
    /// refused with [`TableError::GameOver`].
    ///
    /// # Errors
    /// As [`Table::undo`].
    pub fn step_back(&mut self) -> Result<Step, TableError> {
        let moves = self.undo()?;
        Ok(Step {
            moves,
            pause: self.computers_only(),
        })
    }

    /// [`Table::redo`] with the seated game's policy around it: as
    /// [`Table::step_back`], computer play pauses after a redo with
    /// computers in both seats.
    ///
    /// # Errors
    /// As [`Table::redo`] (a finished game, counted or not, has nothing to
    /// redo).
    pub fn step_forward(&mut self) -> Result<Step, TableError> {
        let moves = self.redo()?;
        Ok(Step {
            moves,
            pause: self.computers_only(),
        })
    }

    /// The seat that resigns: `named` if a person sits there; with no name,
    /// the person whose turn it is, else the only person at the board.
    ///
    /// # Errors
    /// [`TableError::GameOver`], or [`TableError::NobodyToResign`] when no
    /// person sits in that seat (or at the board).
    pub fn resigner(&self, named: Option<Seat>) -> Result<Seat, TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        let seat = match named {
            Some(seat) => seat,
            None => {
                let turn = self.turn().seat().unwrap_or(Seat::First);
                if self.is_human_seat(turn) {
                    turn
                } else {
                    turn.other()
                }
            }
        };
        if self.is_human_seat(seat) {
            Ok(seat)
        } else {
            Err(TableError::NobodyToResign)
        }
    }

    /// Resigns for the seat [`Table::resigner`] names. Returns the ending.
    ///
    /// # Errors
    /// As [`Table::resigner`].
    pub fn resign(&mut self, named: Option<Seat>) -> Result<Ending, TableError> {
        let seat = self.resigner(named)?;
        let color = self.color_of(seat);
        self.game.resign_side(color)?;
        Ok(Ending::Resign {
            winner: color.opponent(),
        })
    }

    /// The players agree a draw.
    ///
    /// # Errors
    /// [`TableError::GameOver`] when the game has already ended.
    pub fn agree_draw(&mut self) -> Result<Ending, TableError> {
        self.stop(Ending::Agreed)
    }

    /// `loser` ran out of time.
    ///
    /// # Errors
    /// [`TableError::GameOver`] when the game has already ended.
    pub fn time_out(&mut self, loser: Color) -> Result<Ending, TableError> {
        self.stop(Ending::Time { loser })
    }

    /// The computer in `seat` failed (crashed, answered an illegal move…):
    /// it loses.
    ///
    /// # Errors
    /// [`TableError::GameOver`] when the game has already ended.
    pub fn fail(&mut self, seat: Seat, reason: impl Into<String>) -> Result<Ending, TableError> {
        let loser = self.color_of(seat);
        self.stop(Ending::Failed {
            loser,
            reason: reason.into(),
        })
    }

    fn stop(&mut self, ending: Ending) -> Result<Ending, TableError> {
        if self.is_over() {
            return Err(TableError::GameOver);
        }
        self.stopped = Some(ending.clone());
        Ok(ending)
    }

    /// A new table for another game with the same rules, first colour,
    /// opening and sitters.
    #[must_use]
    pub fn fresh(&self) -> Table {
        // The same rules and first colour made this game: they cannot fail.
        let game = Game::new(*self.game.rules(), self.game.first()).unwrap_or_else(|_| {
            let mut game = self.game.clone();
            while game.undo_unchecked().is_some() {}
            game
        });
        Table {
            game,
            opening: OpeningState::new(self.opening.opening()),
            sitters: self.sitters.clone(),
            choices: Vec::new(),
            stopped: None,
            history: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_pos;
    use crate::rule::Rule;
    use proptest::prelude::*;

    const B: Color = Color::Black;
    const W: Color = Color::White;

    fn cpu(name: &str) -> Sitter {
        Sitter::Computer(name.to_string())
    }

    fn rules(size: u8, k: u8, rule: Rule) -> Rules {
        Rules::new(BoardSize::square(size), k, rule).unwrap()
    }

    fn table(opening: Opening, first: Sitter, second: Sitter) -> Table {
        Table::new(rules(15, 5, Rule::Freestyle), B, opening, [first, second]).unwrap()
    }

    fn at(t: &Table, text: &str) -> Pos {
        parse_pos(text, t.game().size()).unwrap()
    }

    #[test]
    fn swap_openings_need_a_row_the_opening_stones_cannot_make() {
        let people = || [Sitter::Human, Sitter::Human];
        for opening in [Opening::Swap1, Opening::Swap2] {
            let refused = Table::new(rules(3, 3, Rule::Freestyle), B, opening, people());
            assert!(
                matches!(refused, Err(TableError::Setup(ref m)) if m.contains("at least 4")),
                "{opening}: {refused:?}"
            );
            assert!(Table::new(rules(9, 4, Rule::Freestyle), B, opening, people()).is_ok());
        }
        assert!(Table::new(rules(3, 3, Rule::Freestyle), B, Opening::Free, people()).is_ok());
    }

    /// Plays `moves` for whoever's turn it is.
    fn play_all(t: &mut Table, moves: &str) {
        for m in moves.split_whitespace() {
            let seat = t.turn().seat().unwrap();
            let pos = at(t, m);
            t.play(Actor::Seat(seat), pos).unwrap();
        }
    }

    #[test]
    fn a_game_won_by_five_stays_won_whoever_plays() {
        for sitters in [
            [Sitter::Human, cpu("caro:2")],
            [cpu("caro:2"), Sitter::Human],
            [Sitter::Human, Sitter::Human],
            [cpu("random"), cpu("random")],
        ] {
            let mut t = table(Opening::Free, sitters[0].clone(), sitters[1].clone());
            play_all(&mut t, "a1 b1 a2 b2 a3 b3 a4 b4 a5");
            assert_eq!(t.ending().unwrap().winner(), Some(B));
            let won = t.clone();
            assert_eq!(t.undo(), Err(TableError::GameOver), "{sitters:?}");
            assert_eq!(TableError::GameOver.code(), "game_over");
            assert_eq!(t, won, "{sitters:?}: the result is kept");
            assert_eq!(t.redo(), Err(TableError::NothingToRedo));
        }
    }

    #[test]
    fn two_people_undo_and_redo_one_move_at_a_time() {
        let mut t = table(Opening::Free, Sitter::Human, Sitter::Human);
        assert_eq!(t.undo(), Err(TableError::NothingToUndo));
        assert_eq!(t.redo(), Err(TableError::NothingToRedo));
        for m in ["h8", "i9", "h9"] {
            let pos = at(&t, m);
            t.play(Actor::Person, pos).unwrap();
        }
        assert_eq!(t.undo(), Ok(1));
        assert_eq!(t.game().moves().len(), 2);
        assert_eq!(t.redo(), Ok(1));
        assert_eq!(t.game().last_move(), Some(at(&t, "h9")));
        let e = t.redo().unwrap_err();
        assert_eq!(
            (e.code(), e.to_string().as_str()),
            ("nothing_to_redo", "nothing to redo")
        );
    }

    #[test]
    fn refused_moves_have_codes_and_change_nothing() {
        let mut t = table(Opening::Free, Sitter::Human, cpu("caro:3"));
        let h8 = at(&t, "h8");
        t.play(Actor::Person, h8).unwrap();
        let before = t.clone();
        let e = t.play(Actor::Person, at(&t, "i9")).unwrap_err();
        assert_eq!(e.code(), "not_your_turn");
        assert_eq!(e.to_string(), "not your turn: white is to move (caro:3)");
        let e = t.play(Actor::Seat(Seat::Second), h8).unwrap_err();
        assert_eq!(e.code(), "occupied");
        assert_eq!(e.to_string(), "h8 is already occupied");
        assert_eq!(t, before);

        let mut r = Table::new(
            rules(15, 5, Rule::Renju),
            B,
            Opening::Free,
            [Sitter::Human, Sitter::Human],
        )
        .unwrap();
        play_all(&mut r, "h8 a1 i8 a2 j9 a3 j10 a4");
        let e = r.play(Actor::Person, at(&r, "j8")).unwrap_err();
        assert_eq!(e.code(), "forbidden");
        assert!(Table::new(
            rules(15, 5, Rule::Renju),
            W,
            Opening::Free,
            [Sitter::Human, Sitter::Human]
        )
        .is_err());
        let e = Table::new(
            rules(15, 5, Rule::Freestyle),
            W,
            Opening::Swap1,
            [Sitter::Human, Sitter::Human],
        )
        .unwrap_err();
        assert_eq!(e.code(), "bad_setup");
    }

    #[test]
    fn white_first_in_free_play_seats_black_first() {
        let mut t = Table::new(
            rules(15, 5, Rule::Freestyle),
            W,
            Opening::Free,
            [Sitter::Human, cpu("random")],
        )
        .unwrap();
        assert_eq!(
            t.turn(),
            Turn::Move {
                seat: Seat::Second,
                color: W
            }
        );
        assert!(t.computer_to_act());
        let e = t.play(Actor::Person, at(&t, "h8")).unwrap_err();
        assert_eq!(e.code(), "not_your_turn");
        play_all(&mut t, "h8");
        assert!(t.person_to_act());
    }

    #[test]
    fn against_a_computer_undo_takes_back_its_reply_too() {
        let mut t = table(Opening::Free, Sitter::Human, cpu("caro:5"));
        play_all(&mut t, "h8 i9 h9 i10");
        assert!(t.person_to_act());
        assert_eq!(t.undo(), Ok(2));
        assert_eq!(t.game().moves().len(), 2);
        // Undo while the computer is to move: the person's own move goes.
        play_all(&mut t, "h9");
        assert!(t.computer_to_act());
        assert_eq!(t.undo(), Ok(1));
        assert_eq!(t.game().moves().len(), 2);
        assert_eq!(t.undo(), Ok(2));
        assert!(t.game().moves().is_empty());
        assert_eq!(t.redo(), Ok(2));
        assert_eq!(t.game().moves().len(), 2);
        assert!(t.person_to_act());
    }

    #[test]
    fn a_computers_first_move_cannot_be_taken_back_alone() {
        let mut t = table(Opening::Free, cpu("caro:5"), Sitter::Human);
        play_all(&mut t, "h8");
        let before = t.clone();
        assert_eq!(t.undo(), Err(TableError::NothingToUndo));
        assert_eq!(t, before);
        play_all(&mut t, "i9 h9");
        assert_eq!(t.undo(), Ok(2));
        assert_eq!(t.game().moves().len(), 1);
    }

    #[test]
    fn stepping_pauses_only_computer_games() {
        // Two computers: undo and redo both pause, a refused step does not.
        let mut t = table(Opening::Free, cpu("random"), cpu("caro:1"));
        assert_eq!(t.step_back(), Err(TableError::NothingToUndo));
        play_all(&mut t, "h8 i9");
        assert_eq!(
            t.step_back(),
            Ok(Step {
                moves: 1,
                pause: true
            })
        );
        assert_eq!(
            t.step_forward(),
            Ok(Step {
                moves: 1,
                pause: true
            })
        );
        assert_eq!(t.step_forward(), Err(TableError::NothingToRedo));
        // A person at the board: nothing pauses.
        for sitters in [
            [Sitter::Human, cpu("caro:1")],
            [Sitter::Human, Sitter::Human],
        ] {
            let mut t = table(Opening::Free, sitters[0].clone(), sitters[1].clone());
            play_all(&mut t, "h8 i9");
            assert!(!t.step_back().unwrap().pause, "{sitters:?}");
            assert!(!t.step_forward().unwrap().pause, "{sitters:?}");
        }
    }

    #[test]
    fn a_counted_match_game_is_not_stepped() {
        let r = rules(15, 5, Rule::Freestyle);
        let mut series = Series::new(2, [Sitter::Human, cpu("random")]).unwrap();
        let mut t = series.table(r, Opening::Free).unwrap();
        play_all(&mut t, "h8 i9");
        t.resign(None).unwrap();
        assert_eq!(series.record(&t), Ok(Some(1)));
        let counted = t.clone();
        assert_eq!(t.step_back(), Err(TableError::GameOver));
        assert_eq!(t.step_forward(), Err(TableError::NothingToRedo));
        assert_eq!(t, counted);
    }

    #[test]
    fn two_computers_undo_one_move() {
        let mut t = table(Opening::Free, cpu("random"), cpu("caro:1"));
        assert!(t.computers_only() && !t.has_human());
        play_all(&mut t, "h8 i9 h9");
        assert_eq!(t.undo(), Ok(1));
        assert_eq!(t.redo(), Ok(1));
        assert_eq!(t.game().moves().len(), 3);
    }

    #[test]
    fn swap2_with_people_places_two_more_and_lets_the_first_choose() {
        let mut t = table(Opening::Swap2, Sitter::Human, Sitter::Human);
        for (m, color) in [("h8", B), ("i9", W), ("j10", B)] {
            assert_eq!(
                t.turn(),
                Turn::Move {
                    seat: Seat::First,
                    color
                }
            );
            let pos = at(&t, m);
            t.play(Actor::Person, pos).unwrap();
        }
        // Two people: the opener takes back the stone just placed, once.
        assert!(t.can_undo());
        assert_eq!(t.undo(), Ok(1));
        assert_eq!(t.game().moves().len(), 2);
        assert_eq!(
            t.turn(),
            Turn::Move {
                seat: Seat::First,
                color: B
            }
        );
        assert_eq!(t.redo(), Err(TableError::NothingToRedo));
        play_all(&mut t, "j10");
        let e = t.play(Actor::Person, at(&t, "a1")).unwrap_err();
        assert_eq!(e.code(), "must_choose");
        let e = t.play(Actor::Seat(Seat::First), at(&t, "a1")).unwrap_err();
        assert_eq!(e.code(), "not_your_turn");
        let e = t
            .choose(Actor::Seat(Seat::First), Choice::TakeBlack)
            .unwrap_err();
        assert_eq!(e.code(), "not_your_choice");
        t.choose(Actor::Seat(Seat::Second), Choice::PlaceTwo)
            .unwrap();
        for (m, color) in [("k11", W), ("l12", B)] {
            assert_eq!(
                t.turn(),
                Turn::Move {
                    seat: Seat::Second,
                    color
                }
            );
            let pos = at(&t, m);
            t.play(Actor::Seat(Seat::Second), pos).unwrap();
        }
        assert!(!t.colors_decided());
        let e = t.choose(Actor::Person, Choice::PlaceTwo).unwrap_err();
        assert_eq!(e.code(), "no_choice");
        assert_eq!(
            e.to_string(),
            "place-two is not offered here: choose take-black or take-white"
        );
        t.choose(Actor::Person, Choice::TakeWhite).unwrap();
        assert_eq!(t.choices(), &[Choice::PlaceTwo, Choice::TakeWhite]);
        assert_eq!(t.seat_of(W), Seat::First);
        assert_eq!(t.color_of(Seat::Second), B);
        assert_eq!(
            t.turn(),
            Turn::Move {
                seat: Seat::First,
                color: W
            }
        );
        assert_eq!(
            t.choose(Actor::Person, Choice::TakeBlack),
            Err(TableError::NoChoice)
        );
        play_all(&mut t, "a1");
        assert_eq!(t.opening_stones(), 5);
        assert_eq!(t.undo(), Ok(1));
        assert_eq!(t.undo(), Err(TableError::NothingToUndo));
        assert_eq!(t.game().moves().len(), 5);
    }

    #[test]
    fn swap1_against_a_computer_stops_at_the_floor() {
        // The person opens; the computer takes white and moves at once.
        let mut t = table(Opening::Swap1, Sitter::Human, cpu("caro:3"));
        play_all(&mut t, "h8 i9 j10");
        let choice = t.computer_choice(true).unwrap();
        assert_eq!(choice, Choice::TakeWhite);
        t.choose(Actor::Seat(Seat::Second), choice).unwrap();
        play_all(&mut t, "k11");
        assert!(t.person_to_act());
        // Back to the person's turn would be below the opening: refused.
        assert_eq!(t.undo(), Err(TableError::NothingToUndo));
        play_all(&mut t, "a1 a2");
        assert_eq!(t.undo(), Ok(2));
        assert_eq!(t.game().moves().len(), 4);
    }

    #[test]
    fn swap_openers_take_back_their_own_stones() {
        // The person opens against a computer: each stone just placed goes.
        for opening in [Opening::Swap1, Opening::Swap2] {
            let mut t = table(opening, Sitter::Human, cpu("caro:3"));
            assert_eq!(t.undo(), Err(TableError::NothingToUndo));
            assert!(!t.can_undo());
            play_all(&mut t, "h8 i9");
            assert!(t.can_undo());
            assert_eq!(t.undo(), Ok(1));
            assert_eq!(t.game().moves(), &[at(&t, "h8")]);
            assert!(t.game().redo_moves().is_empty());
            assert_eq!(t.redo(), Err(TableError::NothingToRedo));
            play_all(&mut t, "j10 k11");
            assert_eq!(t.opening_stones(), 3);
            // The computer's decision is due: the person's last stone goes.
            assert_eq!(t.undo(), Ok(1));
            assert!(t.person_to_act());
            play_all(&mut t, "k11");
            let choice = t.computer_choice(true).unwrap();
            t.choose(Actor::Seat(Seat::Second), choice).unwrap();
            // Settled: the opening's stones are the floor again.
            assert!(t.colors_decided());
            assert_eq!(t.undo(), Err(TableError::NothingToUndo));
            assert_eq!(t.game().moves().len(), 3);
        }

        // Swap2, the computer places two more: the person's undo at the
        // final choice goes back past the computer's actions to the
        // person's third stone.
        let mut t = table(Opening::Swap2, Sitter::Human, cpu("caro:3"));
        play_all(&mut t, "h8 i9 j10");
        t.choose(Actor::Seat(Seat::Second), Choice::PlaceTwo)
            .unwrap();
        play_all(&mut t, "k11 l12");
        assert!(matches!(
            t.turn(),
            Turn::Choose {
                seat: Seat::First,
                ..
            }
        ));
        assert_eq!(t.undo(), Ok(4));
        assert_eq!(t.game().moves().len(), 2);
        assert!(t.choices().is_empty());
        assert_eq!(
            t.turn(),
            Turn::Move {
                seat: Seat::First,
                color: B
            }
        );

        // The computer opens: the person has no earlier opening action.
        let mut t = table(Opening::Swap2, cpu("caro:3"), Sitter::Human);
        play_all(&mut t, "h8 i9 j10");
        let before = t.clone();
        assert_eq!(t.undo(), Err(TableError::NothingToUndo));
        assert_eq!(t, before);
        // Its own two stones after place-two are the person's to take back.
        t.choose(Actor::Person, Choice::PlaceTwo).unwrap();
        play_all(&mut t, "k11");
        assert_eq!(t.undo(), Ok(1));
        assert_eq!(t.undo(), Ok(1), "the place-two decision goes back too");
        assert!(matches!(
            t.turn(),
            Turn::Choose {
                seat: Seat::Second,
                ..
            }
        ));
        assert_eq!(t.undo(), Err(TableError::NothingToUndo));
    }

    #[test]
    fn the_computer_takes_the_colour_its_search_likes() {
        let all = &[Choice::TakeBlack, Choice::TakeWhite, Choice::PlaceTwo];
        assert_eq!(decide_swap(all, W, true), Choice::TakeWhite);
        assert_eq!(decide_swap(all, W, false), Choice::TakeBlack);
        assert_eq!(
            decide_swap(&[Choice::TakeBlack, Choice::TakeWhite], B, true),
            Choice::TakeBlack
        );
        assert_eq!(decide_swap(&[Choice::PlaceTwo], W, true), Choice::PlaceTwo);
        let t = table(Opening::Swap2, cpu("caro:1"), Sitter::Human);
        assert_eq!(t.computer_choice(true), None);
    }

    #[test]
    fn who_may_resign() {
        let mut t = table(Opening::Free, Sitter::Human, cpu("caro:3"));
        play_all(&mut t, "h8");
        // The computer is to move: the only person at the board resigns.
        assert_eq!(t.resigner(None), Ok(Seat::First));
        assert_eq!(
            t.resigner(Some(Seat::Second)),
            Err(TableError::NobodyToResign)
        );
        let ending = t.resign(None).unwrap();
        assert_eq!(ending, Ending::Resign { winner: W });
        assert_eq!(t.ending(), Some(ending));
        assert_eq!(t.turn(), Turn::Over);
        assert_eq!(t.resign(None).unwrap_err().code(), "game_over");
        assert_eq!(
            t.play(Actor::Person, Pos::new(0, 0)).unwrap_err().code(),
            "game_over"
        );
        // A resignation stays: undo is refused and changes nothing.
        let resigned = t.clone();
        assert_eq!(t.undo(), Err(TableError::GameOver));
        assert_eq!(t, resigned);

        let mut two = table(Opening::Free, Sitter::Human, Sitter::Human);
        play_all(&mut two, "h8");
        assert_eq!(two.resigner(None), Ok(Seat::Second));
        assert_eq!(two.resigner(Some(Seat::First)), Ok(Seat::First));
        two.resign(None).unwrap();
        assert_eq!(two.undo(), Err(TableError::GameOver));
        assert_eq!(two.game().moves().len(), 1);
        assert!(two.is_over());

        let cpus = table(Opening::Free, cpu("random"), cpu("random"));
        assert_eq!(cpus.resigner(None).unwrap_err().code(), "nobody_to_resign");

        // During a swap opening the first seat counts as black.
        let mut s = table(Opening::Swap2, Sitter::Human, cpu("caro:1"));
        play_all(&mut s, "h8 i9 j10");
        assert_eq!(s.resign(None), Ok(Ending::Resign { winner: W }));
    }

    #[test]
    fn endings_and_their_sentences() {
        let size = BoardSize::square(15);
        let mut t = Table::new(
            rules(3, 3, Rule::Freestyle),
            B,
            Opening::Free,
            [Sitter::Human, Sitter::Human],
        )
        .unwrap();
        play_all(&mut t, "a3 a2 b3 b2");
        let ending = t.play(Actor::Person, at(&t, "c3")).unwrap().unwrap();
        assert_eq!(ending.code(), "five");
        assert_eq!(ending.winner(), Some(B));
        assert!(ending.line().is_some());
        assert_eq!(
            t.ending_sentence().unwrap(),
            "black wins with 3 in a row: a3 b3 c3"
        );

        let mut full = Table::new(
            rules(3, 3, Rule::Freestyle),
            B,
            Opening::Free,
            [Sitter::Human, Sitter::Human],
        )
        .unwrap();
        play_all(&mut full, "b2 a1 c3 c1 b1 b3 a3 a2 c2");
        assert_eq!(full.ending(), Some(Ending::Draw { full: true }));
        assert_eq!(full.ending_sentence().unwrap(), "draw: the board is full");

        let cases = [
            (
                Ending::Resign { winner: B },
                "resign",
                "black wins: white resigned",
            ),
            (
                Ending::Draw { full: false },
                "draw",
                "draw: black has no legal move (every empty point is forbidden)",
            ),
            (
                Ending::Foul {
                    winner: W,
                    at: Pos::new(7, 7),
                    foul: Foul::DoubleThree,
                },
                "foul",
                "white wins: black played a forbidden point at h8 (double-three)",
            ),
            (
                Ending::Time { loser: W },
                "time",
                "black wins: white ran out of time",
            ),
            (Ending::Agreed, "agreed", "draw by agreement"),
            (
                Ending::Failed {
                    loser: B,
                    reason: "the engine crashed".into(),
                },
                "failed",
                "white wins: black could not move (the engine crashed)",
            ),
        ];
        for (ending, code, sentence) in cases {
            assert_eq!(ending.code(), code);
            assert_eq!(ending.sentence(size), sentence);
        }
    }

    #[test]
    fn time_agreed_and_failed_end_the_game() {
        let mut t = table(Opening::Free, Sitter::Human, cpu("caro:1"));
        play_all(&mut t, "h8 i9 h9");
        t.fail(Seat::Second, "crashed").unwrap();
        assert_eq!(t.ending().unwrap().winner(), Some(B));
        assert!(t.is_over());
        // Every ending stays: undo is refused and changes nothing.
        let failed = t.clone();
        assert_eq!(t.undo(), Err(TableError::GameOver));
        assert_eq!(t, failed);

        let mut t = table(Opening::Free, Sitter::Human, cpu("caro:1"));
        play_all(&mut t, "h8 i9");
        t.agree_draw().unwrap();
        assert_eq!(t.agree_draw().unwrap_err().code(), "game_over");
        assert_eq!(t.undo(), Err(TableError::GameOver));

        let mut t = table(Opening::Free, Sitter::Human, cpu("caro:1"));
        play_all(&mut t, "h8 i9");
        t.time_out(B).unwrap();
        let before = t.clone();
        assert_eq!(t.undo(), Err(TableError::GameOver));
        assert_eq!(t, before);
        assert_eq!(t.ending(), Some(Ending::Time { loser: B }));
    }

    #[test]
    fn replay_restores_choices_and_redo() {
        let mut t = table(Opening::Swap2, Sitter::Human, cpu("caro:2"));
        play_all(&mut t, "h8 i9 j10");
        t.choose(Actor::Seat(Seat::Second), Choice::PlaceTwo)
            .unwrap();
        play_all(&mut t, "k11 l12");
        t.choose(Actor::Person, Choice::TakeBlack).unwrap();
        play_all(&mut t, "a1 a2 a3");
        assert_eq!(t.undo(), Ok(2));
        let moves = t.game().moves().to_vec();
        let redo: Vec<Pos> = t.game().redo_moves().iter().rev().copied().collect();
        let again = Table::replay(
            *t.game().rules(),
            B,
            Opening::Swap2,
            t.sitters().clone(),
            &moves,
            &redo,
            t.choices(),
        )
        .unwrap();
        assert_eq!(again, t);
        let e = Table::replay(
            *t.game().rules(),
            B,
            Opening::Swap2,
            t.sitters().clone(),
            &moves,
            &[],
            &[Choice::PlaceTwo],
        )
        .unwrap_err();
        assert_eq!(e.code(), "bad_setup");
        assert_eq!(
            t.fresh(),
            table(Opening::Swap2, Sitter::Human, cpu("caro:2"))
        );
    }

    #[test]
    fn a_series_alternates_openers_and_counts_by_player() {
        let r = rules(15, 5, Rule::Freestyle);
        let mut series = Series::new(2, [Sitter::Human, cpu("random")]).unwrap();
        assert_eq!(
            Series::new(0, [Sitter::Human, Sitter::Human])
                .unwrap_err()
                .code(),
            "bad_match"
        );
        // Game 1: A opens a swap1 game, B takes black and wins.
        let mut t = series.table(r, Opening::Swap1).unwrap();
        assert_eq!(series.player_in(Seat::First), Some(0));
        play_all(&mut t, "h8 i9 j10");
        t.choose(Actor::Seat(Seat::Second), Choice::TakeBlack)
            .unwrap();
        assert_eq!(series.record(&t).unwrap_err().code(), "game_not_over");
        t.resign(Some(Seat::First)).unwrap();
        assert_eq!(series.record(&t), Ok(Some(1)));
        assert_eq!(series.score(), [0, 1]);
        // Game 2: B opens and plays black in a free game; a draw.
        assert_eq!(series.opener(), Some(1));
        let mut t = series.table(r, Opening::Free).unwrap();
        assert_eq!(t.sitters(), &[cpu("random"), Sitter::Human]);
        t.agree_draw().unwrap();
        assert_eq!(series.record(&t), Ok(None));
        // Game 3: A opens; A wins on time of B (white).
        let mut t = series.table(r, Opening::Free).unwrap();
        t.time_out(W).unwrap();
        assert_eq!(series.record(&t), Ok(Some(0)));
        assert!(series.is_over(), "three games: 2N-1");
        assert_eq!(series.winner(), None, "1-1 with a draw is a drawn match");
        assert_eq!(series.results(), vec![Some(1), None, Some(0)]);
        assert_eq!(
            series.table(r, Opening::Free).unwrap_err().code(),
            "match_over"
        );
        assert_eq!(series.record(&t).unwrap_err().code(), "match_over");
        let resumed = Series::resume(2, series.players().clone(), &series.results()).unwrap();
        assert_eq!(resumed, series);
        assert_eq!(
            Series::resume(2, [Sitter::Human, Sitter::Human], &[Some(2)])
                .unwrap_err()
                .code(),
            "bad_match"
        );

        let mut quick = Series::new(1, [cpu("a"), cpu("b")]).unwrap();
        let mut t = quick.table(r, Opening::Free).unwrap();
        t.fail(Seat::Second, "gone").unwrap();
        assert_eq!(quick.record(&t), Ok(Some(0)));
        assert!(quick.is_over());
        assert_eq!(quick.winner(), Some(0));
    }

    /// The naive reference of undo and redo: the moves, the redo list, and
    /// the seat to move after `n` plies once the opening is done.
    struct Model {
        moves: Vec<Pos>,
        redo: Vec<Pos>,
    }

    fn human_after(t: &Table, plies: usize) -> bool {
        let color = if plies % 2 == 0 { B } else { W };
        t.is_human(color)
    }

    fn over_after(t: &Table, moves: &[Pos]) -> bool {
        Game::from_moves(*t.game().rules(), B, moves)
            .map(|g| g.is_over())
            .unwrap_or(true)
    }

    fn mixed(t: &Table) -> bool {
        t.has_human() && !t.computers_only() && !t.sitters().iter().all(Sitter::is_human)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Random play, choices, undo and redo keep the game equal to the
        /// naive reference and never go below the opening's stones.
        #[test]
        fn undo_and_redo_follow_the_reference(
            humans in (any::<bool>(), any::<bool>()),
            opening in 0usize..3,
            actions in proptest::collection::vec((0u8..10, any::<u16>()), 1..80),
        ) {
            let sitter = |h: bool| if h { Sitter::Human } else { cpu("x") };
            let mut t = Table::new(rules(7, 4, Rule::Freestyle), B, Opening::ALL[opening], [sitter(humans.0), sitter(humans.1)]).unwrap();
            let mut m = Model { moves: Vec::new(), redo: Vec::new() };
            for (kind, n) in actions {
                match (kind, t.turn()) {
                    (0..=5, Turn::Move { seat, .. }) => {
                        let legal = t.game().legal_moves();
                        let pos = legal[usize::from(n) % legal.len()];
                        t.play(Actor::Seat(seat), pos).unwrap();
                        m.moves.push(pos);
                        m.redo.clear();
                    }
                    (0..=5, Turn::Choose { seat, options }) => {
                        let choice = options[usize::from(n) % options.len()];
                        t.choose(Actor::Seat(seat), choice).unwrap();
                    }
                    (6..=7, _) => {
                        let in_opening = !t.opening().is_done();
                        let could = t.can_undo();
                        let got = t.undo();
                        prop_assert_eq!(could, got.is_ok());
                        if t.is_over() {
                            prop_assert_eq!(got, Err(TableError::GameOver));
                        } else if in_opening {
                            // Opening actions go back; the stones taken
                            // back are not kept for redo.
                            let stones = t.game().moves().len();
                            prop_assert!(stones <= m.moves.len());
                            prop_assert_eq!(&m.moves[..stones], t.game().moves());
                            m.moves.truncate(stones);
                        } else {
                            let floor = t.opening_stones();
                            let len = m.moves.len();
                            let target = if mixed(&t) {
                                (floor..len).rev().find(|&j| human_after(&t, j))
                            } else {
                                (len > floor).then(|| len - 1)
                            };
                            match target {
                                Some(j) => {
                                    prop_assert_eq!(got, Ok(len - j));
                                    while m.moves.len() > j {
                                        let p = m.moves.pop().unwrap();
                                        m.redo.push(p);
                                    }
                                }
                                None => prop_assert_eq!(got, Err(TableError::NothingToUndo)),
                            }
                        }
                    }
                    (_, _) => {
                        let got = t.redo();
                        let mut n = 0;
                        if t.opening().is_done() && !over_after(&t, &m.moves) {
                            while let Some(p) = m.redo.pop() {
                                m.moves.push(p);
                                n += 1;
                                if !mixed(&t) || over_after(&t, &m.moves) || human_after(&t, m.moves.len()) {
                                    break;
                                }
                            }
                        }
                        if n == 0 {
                            prop_assert_eq!(got, Err(TableError::NothingToRedo));
                        } else {
                            prop_assert_eq!(got, Ok(n));
                        }
                    }
                }
                let reference = Game::from_moves(*t.game().rules(), B, &m.moves).unwrap();
                prop_assert_eq!(t.game().moves(), reference.moves());
                prop_assert_eq!(t.game().hash(), reference.hash());
                prop_assert_eq!(t.game().is_over(), reference.is_over());
                let redo: Vec<Pos> = m.redo.clone();
                prop_assert_eq!(t.game().redo_moves(), &redo[..]);
                prop_assert!(t.game().moves().len() >= t.opening_stones());
            }
        }
    }
}
