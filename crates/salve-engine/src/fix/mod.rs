//! The fix loop's parts (issue 10, DESIGN.md §6): `salve fix -- CMD` runs a check, classifies its
//! failures, repairs them by rules or a model, and verifies.
//!
//! - [`guard`]: refuses repairs that make the check pass by weakening it.
//! - [`budget`]: attempt and environment re-run budgets persisted per branch and failure.
//! - [`rules`]: repairs learned from earlier runs (the store) or pinned in the repository.
//! - [`strictness`]: what the loop may do on its own at each level.

pub mod budget;
pub mod guard;
pub mod rules;
pub mod strictness;
