//! Commits that hold only a fix: [`files()`] commits HEAD plus exactly the named files through a
//! temporary index, and [`FixMessage`] writes the `fix(<scopes>): ...` message.

pub mod files;
mod hooks;
mod message;

pub use files::files;
pub use message::{scopes_for, FixMessage, Verification};
