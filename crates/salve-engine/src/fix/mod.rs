//! The parts of `salve fix` that look at a check: run it, read its failures, decide whose
//! failure it is.
pub mod check;
pub mod failures;

mod capped;
