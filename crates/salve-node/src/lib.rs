//! The native half of the `salve-edits` npm package: the engine's operations through
//! [`salve_bindings`]. The JavaScript half (`index.js`) turns the JSON these return into
//! objects with camelCase fields and a failure into the error class named by its kind. Built by
//! the napi-rs CLI with the `node` feature; without it the crate is empty (see Cargo.toml).

#[cfg(feature = "node")]
pub mod addon;
