//! The caro tables: until a fit on caro positions wins its sequential
//! test (`caro train --rule caro --counts --out
//! crates/caro-engine/src/point_values/caro.rs`, docs/training.md), caro
//! plays the first tables (`first.rs`), which freestyle played before its
//! own fit.

pub(crate) use super::first::{BOTH_SIDES, COUNTS, FITTED};
