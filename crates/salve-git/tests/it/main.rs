//! salve-git against real temporary repositories.

// Tests panic on purpose when something is off; unwrap is the clearest way to say so.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod catalog;
mod checkpoint;
mod commit;
mod dataloss;
mod inproc;
mod packs;
mod restore;
mod support;
