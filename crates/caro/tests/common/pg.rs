//! A fresh PostgreSQL database for a test: the store's own helper
//! (`caro_server::store::testdb`, with the `test-support` feature), so the
//! command line's tests and the store's make and drop their databases the
//! same way. See `docs/testing.md`.

// Not every test file that has `common` uses a database.
#![allow(unused_imports)]

pub use caro_server::store::testdb::{fresh_database, TestDb};
