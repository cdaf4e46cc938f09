//! # caro-tui
//!
//! Play caro in the terminal, against a person at the same keyboard, a
//! computer player, or watch two computers play.
//!
//! - [`session`]: the game in progress, independent of any screen — the
//!   rules of the seated game from [`caro_core::table`] (seats, turns,
//!   undo/redo back to the person's previous turn, resigning, swap
//!   decisions, the result's sentence), a match of several games, the
//!   cursor, and engines searching on background threads that a
//!   [`caro_engine::StopFlag`] interrupts.
//! - [`screen`]: the full-screen board (ratatui + crossterm): keys, mouse,
//!   highlights, the engine's thinking, scrolling for large boards.
//! - [`plain`]: a line mode over any [`std::io::BufRead`] and
//!   [`std::io::Write`], for pipes, scripts and screen readers.
//!
//! ```
//! use caro_core::{BoardSize, Rule, Rules};
//! use caro_tui::plain::run_plain;
//! use caro_tui::session::{SeatKind, Session, SessionConfig};
//!
//! let rules = Rules::new(BoardSize::square(3), 3, Rule::Freestyle).unwrap();
//! let config = SessionConfig::new(rules, SeatKind::Human, SeatKind::Human);
//! let mut session = Session::new(config).unwrap();
//! let mut out = Vec::new();
//! run_plain(&mut session, "1\n4\n2\n5\n3\n".as_bytes(), &mut out).unwrap();
//! let text = String::from_utf8(out).unwrap();
//! assert!(text.contains("black wins"));
//! ```
#![deny(missing_docs)]

pub mod plain;
pub mod screen;
pub mod session;
pub mod text;

/// Why the terminal game could not start or go on.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// A computer player could not be built or failed.
    #[error("{0}")]
    Engine(String),
    /// Reading input or writing to the terminal failed.
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
}
