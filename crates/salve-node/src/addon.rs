//! The addon's functions, as napi-rs exports them to the JavaScript half (public so a build
//! without the export registration, such as `cargo test`, still sees them used).
// `#[napi]` expands to unsafe N-API registration code; nothing in this file is unsafe itself.
#![allow(unsafe_code)]

use napi::{Error, Status};
use napi_derive::napi;
use salve_bindings::{ApplyArgs, Edits, Failure};

/// A failure crosses as JSON in the error's message (kind, code, message, hint): the
/// JavaScript half rebuilds the named error from it.
fn raise(failure: Failure) -> Error {
    let payload = serde_json::to_string(&failure).unwrap_or_else(|_| failure.message.clone());
    Error::new(Status::GenericFailure, payload)
}

/// The options of one apply, as the JavaScript half passes them (all present).
#[napi(object)]
pub struct NativeApplyOptions {
    pub root: String,
    pub check: bool,
    pub partial: bool,
    pub base: Option<String>,
    pub checkpoint: bool,
    pub record: bool,
}

/// Apply a reply (`is_json` false) or one JSON value's edits; returns [report JSON, extra JSON].
#[napi]
pub fn apply(
    edits: String,
    is_json: bool,
    options: NativeApplyOptions,
) -> napi::Result<Vec<String>> {
    let edits = if is_json {
        Edits::Value(edits)
    } else {
        Edits::Reply(edits)
    };
    let args = ApplyArgs {
        check: options.check,
        partial: options.partial,
        base: options.base,
        checkpoint: options.checkpoint,
        record: options.record,
        ..ApplyArgs::new(options.root)
    };
    salve_bindings::apply(&edits, &args)
        .map(|applied| vec![applied.report, applied.extra])
        .map_err(raise)
}

#[napi]
pub fn checkpoint(root: String, message: Option<String>) -> napi::Result<String> {
    salve_bindings::checkpoint(root, message).map_err(raise)
}

#[napi]
pub fn restore(root: String, id: String) -> napi::Result<String> {
    salve_bindings::restore(root, &id).map_err(raise)
}

#[napi]
pub fn undo(root: String) -> napi::Result<String> {
    salve_bindings::undo(root).map_err(raise)
}

#[napi]
pub fn extract(reply: String) -> napi::Result<String> {
    salve_bindings::extract(&reply).map_err(raise)
}
