//! Integration tests of salve-store on real files: the record's model end to end, the
//! migration from an older schema, export and import, gc, and several processes at once.

// Test code: a failed unwrap is a failed test with a useful message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod commits;
mod concurrency;
mod exchange;
mod gc;
mod migration;
mod model;
mod stamp;
mod support;
