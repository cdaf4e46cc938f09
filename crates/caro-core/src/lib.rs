//! # caro-core
//!
//! The rules of five-in-a-row games — caro, gomoku (freestyle and
//! standard), renju and tic-tac-toe — on any board from 3×3 to 60×60
//! (rectangular too), for any win length from 3 to 10. No I/O, no async:
//! every other part of caro stands on this crate.
//!
//! - [`Board`]: stones in a padded array with a Zobrist hash; O(1) place and
//!   remove, win detection through the last stone, no allocation per move.
//! - [`Rule`] / [`Rules`]: freestyle, standard, renju, caro, caro-standard.
//! - [`forbidden`]: renju forbidden points for black (recursive RIF rule).
//! - [`Game`]: history, undo/redo, result, checked and unchecked moves;
//!   untrusted positions come in through [`GameSetup`].
//! - [`opening`]: free, swap1 and swap2 as a state machine; [`matchplay`]:
//!   first to N wins with alternating colours.
//! - [`table`]: a seated game — who sits where, whose turn, undo to the
//!   person's turn, resigning, swap decisions, endings and match series.
//! - [`notation`], [`psq`], [`code`]: `h8` coordinates, Gomocup `x,y`,
//!   Piskvork's PSQ files and a compact position code for URLs.
//!
//! ```
//! use caro_core::{Game, Rules, Rule, BoardSize, Color, notation};
//!
//! let rules = Rules::new(BoardSize::square(15), 5, Rule::Renju).unwrap();
//! let mut game = Game::new(rules, Color::Black).unwrap();
//! for m in notation::parse_move_list("h8 h9 i8 i9 j8 j9 k8 k9", rules.size).unwrap() {
//!     game.try_play(m).unwrap();
//! }
//! let outcome = game.try_play(notation::parse_pos("l8", rules.size).unwrap()).unwrap();
//! assert_eq!(outcome.unwrap().winner(), Some(Color::Black));
//! ```
#![deny(missing_docs)]

pub mod board;
pub mod code;
pub mod forbidden;
pub mod game;
pub mod matchplay;
pub mod notation;
pub mod opening;
pub mod pos;
pub mod psq;
pub mod rule;
pub mod table;
pub mod zobrist;

pub use board::{Board, Cell, Dir, Line};
pub use forbidden::Foul;
pub use game::{Game, GameSetup, MoveError, Outcome, SetupError};
pub use pos::{BoardSize, Color, Pos};
pub use rule::{Rule, Rules, RulesError};
