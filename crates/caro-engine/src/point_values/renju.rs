//! The renju table: until a fit on renju positions wins its sequential test
//! (`caro train --rule renju --out crates/caro-engine/src/point_values/renju.rs`,
//! docs/training.md), renju plays the freestyle table
//! and its count and both-sides values.

pub(crate) use super::freestyle::{BOTH_SIDES, COUNTS, FITTED};
