//! The addon's functions, as napi-rs exports them to the JavaScript half (public so a build
//! without the export registration, such as `cargo test`, still sees them used).
// `#[napi]` expands to unsafe N-API registration code; nothing in this file is unsafe itself.
#![allow(unsafe_code)]

use napi::bindgen_prelude::AsyncTask;
use napi::{Env, Error, Status, Task};
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

/// The engine call of one export, run on the caller's thread or on libuv's pool.
pub enum Job {
    Apply(Edits, ApplyArgs),
    Checkpoint(String, Option<String>),
    Restore(String, String),
    Undo(String),
}

impl Job {
    fn apply(edits: String, is_json: bool, options: NativeApplyOptions) -> Job {
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
        Job::Apply(edits, args)
    }

    /// The call's JSON strings: [report, extra] for an apply, one value otherwise.
    fn run(self) -> napi::Result<Vec<String>> {
        match self {
            Job::Apply(edits, args) => salve_bindings::apply(&edits, &args)
                .map(|applied| vec![applied.report, applied.extra]),
            Job::Checkpoint(root, message) => {
                salve_bindings::checkpoint(root, message).map(|id| vec![id])
            }
            Job::Restore(root, id) => salve_bindings::restore(root, &id).map(|r| vec![r]),
            Job::Undo(root) => salve_bindings::undo(root).map(|r| vec![r]),
        }
        .map_err(raise)
    }
}

/// A [`Job`] run on libuv's thread pool, so the event loop keeps turning while salve reads,
/// places and writes; its promise settles on the loop.
pub struct Background(Option<Job>);

impl Task for Background {
    type Output = Vec<String>;
    type JsValue = Vec<String>;

    fn compute(&mut self) -> napi::Result<Vec<String>> {
        self.0
            .take()
            .ok_or_else(|| Error::new(Status::GenericFailure, "the job already ran"))?
            .run()
    }

    fn resolve(&mut self, _env: Env, output: Vec<String>) -> napi::Result<Vec<String>> {
        Ok(output)
    }
}

/// Apply a reply (`is_json` false) or one JSON value's edits; returns [report JSON, extra JSON].
#[napi]
pub fn apply(
    edits: String,
    is_json: bool,
    options: NativeApplyOptions,
) -> napi::Result<Vec<String>> {
    Job::apply(edits, is_json, options).run()
}

/// [`apply`] on the thread pool.
#[napi(ts_return_type = "Promise<string[]>")]
pub fn apply_async(
    edits: String,
    is_json: bool,
    options: NativeApplyOptions,
) -> AsyncTask<Background> {
    AsyncTask::new(Background(Some(Job::apply(edits, is_json, options))))
}

/// [`checkpoint`] on the thread pool.
#[napi(ts_return_type = "Promise<string[]>")]
pub fn checkpoint_async(root: String, message: Option<String>) -> AsyncTask<Background> {
    AsyncTask::new(Background(Some(Job::Checkpoint(root, message))))
}

/// [`restore`] on the thread pool.
#[napi(ts_return_type = "Promise<string[]>")]
pub fn restore_async(root: String, id: String) -> AsyncTask<Background> {
    AsyncTask::new(Background(Some(Job::Restore(root, id))))
}

/// [`undo`] on the thread pool.
#[napi(ts_return_type = "Promise<string[]>")]
pub fn undo_async(root: String) -> AsyncTask<Background> {
    AsyncTask::new(Background(Some(Job::Undo(root))))
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
