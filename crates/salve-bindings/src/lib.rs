//! The engine as the Python and Node packages call it. Both hand strings across the language
//! boundary: a reply's text or a JSON value in, JSON out, in exactly the form the command line
//! prints with its JSON output ([`salve_engine::apply::Printed`]), so a report read in Python,
//! in Node or from the binary is one format. Each binding only converts these into its own
//! objects and exceptions; nothing here knows about either language.

use std::path::PathBuf;

use salve_engine::apply::{self, Input};
use salve_engine::{checkpoint, restore, undo, Classified};
use serde::Serialize;

/// An operation that did not run, classified as the engine classifies it. A refused edit is
/// not one of these: it is a report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Failure {
    /// `user`, `config`, `environment`, `interrupted` or `internal` (the engine's `Kind`).
    pub kind: String,
    /// A stable code, such as `not_a_repository` or `unknown_revision`.
    pub code: String,
    pub message: String,
    /// What to do about it, when the engine knows.
    pub hint: Option<String>,
}

impl Failure {
    fn of<E: Classified>(error: &E) -> Failure {
        let kind = serde_json::to_value(error.kind())
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "internal".to_owned());
        Failure {
            kind,
            code: error.code().to_owned(),
            message: error.to_string(),
            hint: error.hint(),
        }
    }

    fn new(kind: &str, code: &str, message: String, hint: Option<&str>) -> Failure {
        Failure {
            kind: kind.to_owned(),
            code: code.to_owned(),
            message,
            hint: hint.map(str::to_owned),
        }
    }

    fn encoding(e: &serde_json::Error) -> Failure {
        Failure::new(
            "internal",
            "json",
            format!("encoding the result: {e}"),
            None,
        )
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// What the edits are given as.
#[derive(Clone, Debug)]
pub enum Edits {
    /// A model's reply as written: prose, fences, any edit format.
    Reply(String),
    /// One JSON value, as text: an agent's tool-call arguments (`{"path", "diff"}`,
    /// `{"file_path", "old_string", "new_string"}`, ...) or old/new objects.
    Value(String),
}

/// The apply options a package exposes: the command line's defaults, the same names.
#[derive(Clone, Debug)]
pub struct ApplyArgs {
    pub root: PathBuf,
    pub check: bool,
    pub partial: bool,
    pub base: Option<String>,
    pub checkpoint: bool,
    pub record: bool,
}

impl ApplyArgs {
    /// Apply to `root` with the defaults: write, all or nothing, checkpointed and recorded.
    pub fn new(root: impl Into<PathBuf>) -> ApplyArgs {
        ApplyArgs {
            root: root.into(),
            check: false,
            partial: false,
            base: None,
            checkpoint: true,
            record: true,
        }
    }
}

/// An apply's result as JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Applied {
    /// The report exactly as the command line prints it as JSON (pretty, no final newline).
    pub report: String,
    /// What the command line does not print: `written`, `baseline`, `run`, `record_error` and
    /// `exit_code` (0 applied or already applied, 1 refused), as one JSON object.
    pub extra: String,
}

#[derive(Serialize)]
struct Extra<'a> {
    written: Vec<String>,
    baseline: Option<&'a str>,
    run: Option<&'a str>,
    record_error: Option<&'a str>,
    exit_code: i32,
}

/// Apply `edits` to `args.root`, as `salve apply` does with the same options.
pub fn apply(edits: &Edits, args: &ApplyArgs) -> Result<Applied, Failure> {
    let options = apply::Options {
        check: args.check,
        partial: args.partial,
        base: args.base.clone(),
        checkpoint: args.checkpoint,
        record: args.record,
        command: Vec::new(),
        ..apply::Options::new(&args.root)
    };
    let value;
    let input = match edits {
        Edits::Reply(text) => Input::Reply(text),
        Edits::Value(text) => {
            value = serde_json::from_str::<serde_json::Value>(text).map_err(|e| {
                Failure::new(
                    "user",
                    "bad_json",
                    format!("the edits are not valid JSON: {e}"),
                    Some("pass a reply's text, or one JSON value holding edits"),
                )
            })?;
            Input::Value(&value)
        }
    };
    let outcome = apply::apply(input, &options).map_err(|e| Failure::of(&e))?;
    let report =
        serde_json::to_string_pretty(&outcome.printed(false)).map_err(|e| Failure::encoding(&e))?;
    let extra = Extra {
        written: outcome
            .written
            .iter()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .collect(),
        baseline: outcome.baseline.as_deref(),
        run: outcome.run.as_deref(),
        record_error: outcome.record_error.as_deref(),
        exit_code: outcome.report.exit_code(),
    };
    let extra = serde_json::to_string(&extra).map_err(|e| Failure::encoding(&e))?;
    Ok(Applied { report, extra })
}

/// Snapshot the work tree at `root`, as `salve checkpoint`; the checkpoint's id.
pub fn checkpoint(root: impl Into<PathBuf>, message: Option<String>) -> Result<String, Failure> {
    let options = checkpoint::CreateOptions {
        message,
        ..checkpoint::CreateOptions::new(root)
    };
    checkpoint::create(&options)
        .map(|taken| taken.id)
        .map_err(|e| Failure::of(&e))
}

/// Bring checkpoint `id` back, as `salve restore ID`; the outcome as JSON.
pub fn restore(root: impl Into<PathBuf>, id: &str) -> Result<String, Failure> {
    let outcome =
        restore::restore(&restore::Options::new(root, id)).map_err(|e| Failure::of(&e))?;
    serde_json::to_string(&outcome).map_err(|e| Failure::encoding(&e))
}

/// Take back the last change, as `salve undo`; the outcome as JSON.
pub fn undo(root: impl Into<PathBuf>) -> Result<String, Failure> {
    let outcome = undo::undo(&undo::Options::new(root)).map_err(|e| Failure::of(&e))?;
    serde_json::to_string(&outcome).map_err(|e| Failure::encoding(&e))
}

/// Read a reply's edits without touching any file: the extraction (edits, issues, notes) as
/// JSON.
pub fn extract(reply: &str) -> Result<String, Failure> {
    serde_json::to_string(&salve_patch::extract(reply)).map_err(|e| Failure::encoding(&e))
}

#[cfg(test)]
mod tests;
