//! The native half of the `salve_edits` Python package: the engine's operations through
//! [`salve_bindings`], with the GIL released while they run. The Python half
//! (`python/salve_edits/`) turns the JSON these return into typed objects and a failure into
//! the exception named by its kind. Built by maturin with the `python` feature; without it the
//! crate is empty (see Cargo.toml).

#[cfg(feature = "python")]
mod module;
