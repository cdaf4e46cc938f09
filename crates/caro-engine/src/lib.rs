//! # caro-engine
//!
//! Computer players for caro, all behind one API ([`Player`]): set a
//! position, think under [`Limits`], stop from another thread through a
//! [`StopFlag`], report progress ([`SearchInfo`]), answer a legal move.
//!
//! - [`random`]: a uniformly random legal move;
//! - [`scoremap`], [`quintuple`], [`minimax`]: the computer players of the
//!   articles caro was asked to implement, reproduced faithfully;
//! - [`search`]: caro's own threat-space alpha-beta search, levels 1..=10;
//! - [`analysis`]: win chances, the best few moves of a position, and a
//!   game reviewed move by move;
//! - [`selfplay`], [`dataset`] and [`train`]: training positions from
//!   self-play, their binary file, and the fit of the evaluation to them.
//!
//! ```
//! use caro_core::{BoardSize, Color, Game, Rule, Rules};
//! use caro_engine::{Context, Limits, PlayerSpec, StopFlag};
//!
//! let rules = Rules::new(BoardSize::square(15), 5, Rule::Freestyle).unwrap();
//! let game = Game::new(rules, Color::Black).unwrap();
//! let mut player = "caro:3".parse::<PlayerSpec>().unwrap().build(7);
//! let mut progress = |_: &caro_engine::SearchInfo| {};
//! let mut ctx = Context::new(Limits::depth(2), StopFlag::new(), &mut progress);
//! let decision = player.choose(&game, &mut ctx).unwrap();
//! assert!(game.check(decision.best).is_ok());
//! ```
#![deny(missing_docs)]

pub mod analysis;
pub mod arena;
pub mod dataset;
mod failcache;
mod keymap;
pub mod minimax;
pub mod network;
pub mod player;
pub mod quintuple;
pub mod random;
pub mod renju_opening;
pub mod scoremap;
pub mod search;
pub mod selfplay;
pub mod sprt;
pub mod spsa;

pub use player::{
    Context, Decision, EngineError, Limits, Player, PlayerSource, PlayerSpec, Score, SearchInfo,
    StopFlag,
};
pub mod pattern;
mod point_values;
mod policy;
pub mod state;
#[cfg(test)]
mod testing;
pub mod train;
pub mod tt;
