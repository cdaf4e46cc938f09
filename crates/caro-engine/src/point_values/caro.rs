//! The caro table: until a fit on caro positions wins its sequential test
//! (`caro train --rule caro --out crates/caro-engine/src/point_values/caro.rs`,
//! docs/training.md), caro plays the freestyle table
//! and its count and both-sides values.

pub(crate) use super::freestyle::{BOTH_SIDES, COUNTS, FITTED};
