//! # caro-gomocup
//!
//! The Gomocup (Piskvork) engine protocol, both ways:
//!
//! - [`brain`]: caro as a `pbrain` engine, for Piskvork, Yixin's GUI,
//!   liskvork and other managers (`caro brain`, `pbrain-caro`);
//! - [`pbrain`]: any `pbrain` engine as a caro [`caro_engine::Player`], so
//!   it can sit wherever a built-in player can (`caro match`, `caro play`).
//!
//! [`protocol`] reads the lines both sides send.
#![deny(missing_docs)]

pub mod brain;
pub mod pbrain;
pub mod protocol;
