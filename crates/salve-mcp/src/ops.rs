//! The tools' work, synchronous: each calls one engine operation on the server's work tree and
//! turns its outcome or error into a tool result. The server runs these off the async runtime.

use rmcp::model::CallToolResult;
use salve_engine::apply::{apply, Options as ApplyOptions, Outcome as Applied};
use salve_engine::{checkpoint, record, restore, undo};
use salve_patch::{Outcome, Report, Status};
use serde_json::Value;

use crate::params::{
    ApplyEditParams, CheckpointParams, LogParams, RestoreParams, ShowRunParams, StrReplaceParams,
    WriteFileParams,
};
use crate::reply::{self, WriteFileError};
use crate::result;
use crate::state::State;

/// Runs listed by `log` when no limit is given.
pub const DEFAULT_LOG_LIMIT: usize = 20;

/// `apply_edit`.
pub fn apply_edit(state: &State, params: &ApplyEditParams) -> CallToolResult {
    apply_reply(state, &params.edit, params.check_only, "apply_edit")
}

/// `str_replace`: the pair as old/new JSON, applied like any edit.
pub fn str_replace(state: &State, params: &StrReplaceParams) -> CallToolResult {
    let text = reply::str_replace(&params.path, &params.old_str, &params.new_str);
    apply_reply(state, &text, false, "str_replace")
}

/// `write_file`: the content as a whole-file block, applied like any edit.
pub fn write_file(state: &State, params: &WriteFileParams) -> CallToolResult {
    // The path guard first: a path into `.git` (in any spelling) is refused as such, even one
    // the whole-file form could not carry (`.git::$INDEX_ALLOCATION/config`).
    if let Err(why) = salve_engine::paths::normalize(&params.path) {
        return result::refused(
            "path_rejected",
            &format!("{:?}: {why}", params.path),
            Some("name a file inside the work tree, outside `.git`".to_owned()),
        );
    }
    match reply::write_file(&params.path, &params.content) {
        Ok(text) => apply_reply(state, &text, false, "write_file"),
        Err(e @ WriteFileError::Path(_)) => result::refused(
            "unnameable_path",
            &e.to_string(),
            Some("use apply_edit with a git diff (`diff --git a/PATH b/PATH`), which can name any path".to_owned()),
        ),
        Err(e @ WriteFileError::Empty) => result::refused(
            "empty_content",
            &e.to_string(),
            Some("write the whole content; to empty or delete a file use apply_edit with a diff".to_owned()),
        ),
    }
}

fn apply_reply(state: &State, text: &str, check_only: bool, tool: &str) -> CallToolResult {
    let options = ApplyOptions {
        check: check_only,
        // The agent read the files as they are, not as HEAD has them.
        three_way: false,
        command: vec!["salve".to_owned(), "mcp".to_owned(), tool.to_owned()],
        ..ApplyOptions::new(&state.dir)
    };
    match apply(text, &options) {
        Ok(outcome) => {
            let summary = apply_summary(&outcome);
            match outcome.report.outcome {
                Outcome::Applied | Outcome::AlreadyApplied => result::ok(summary, &outcome),
                Outcome::Partial | Outcome::Refused => result::declined(summary, &outcome),
            }
        }
        Err(e) => result::failed(&e),
    }
}

fn apply_summary(outcome: &Applied) -> String {
    let report = &outcome.report;
    let mut summary = match report.outcome {
        Outcome::Applied if report.check_only => {
            "check only: every edit places; nothing was written".to_owned()
        }
        Outcome::Applied => {
            let files: Vec<String> = outcome
                .written
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            let mut s = format!("applied: wrote {}", files.join(", "));
            if let Some(id) = &outcome.checkpoint {
                s.push_str(&format!(
                    "; checkpoint {id} was taken before writing (the undo tool reverts this)"
                ));
            }
            s
        }
        Outcome::AlreadyApplied => {
            "already applied: the files already hold this change; nothing was written".to_owned()
        }
        Outcome::Partial | Outcome::Refused => {
            let mut s = format!("refused, nothing was written: {}", refusals(report));
            if report
                .files
                .iter()
                .any(|f| f.hunks.iter().any(|h| !h.candidates.is_empty()))
            {
                s.push_str(
                    ". The hunks that did not place list their closest candidates (lines, \
                     similarity, a character diff, the enclosing scope and the file's numbered \
                     lines around them): correct the edit from them and call again",
                );
            }
            s
        }
    };
    if let Some(run) = &outcome.run {
        summary.push_str(&format!("; recorded as run {run}"));
    }
    summary
}

/// `path: status (message)` for each file that did not place, and the reply's own issues.
fn refusals(report: &Report) -> String {
    let mut parts: Vec<String> = report
        .files
        .iter()
        .filter(|f| !f.status.is_success() && f.status != Status::Skipped)
        .map(|f| {
            let message = f
                .message
                .clone()
                .or_else(|| f.hunks.iter().find_map(|h| h.message.clone()));
            match message {
                Some(m) => format!("{}: {} ({m})", f.path, f.status.as_str()),
                None => format!("{}: {}", f.path, f.status.as_str()),
            }
        })
        .collect();
    parts.extend(report.issues.iter().map(|i| match &i.path {
        Some(p) => format!("{p}: {}", i.message),
        None => i.message.clone(),
    }));
    if parts.is_empty() {
        "no edit could be used".to_owned()
    } else {
        parts.join("; ")
    }
}

/// `checkpoint`.
pub fn checkpoint(state: &State, params: &CheckpointParams) -> CallToolResult {
    let options = checkpoint::CreateOptions {
        message: params.message.clone(),
        ..checkpoint::CreateOptions::new(&state.dir)
    };
    match checkpoint::create(&options) {
        Ok(taken) => result::ok(
            format!(
                "checkpoint {} taken; restore_checkpoint with this id brings this state back",
                taken.id
            ),
            &taken,
        ),
        Err(e) => result::failed(&e),
    }
}

/// `list_checkpoints`.
pub fn list_checkpoints(state: &State) -> CallToolResult {
    let options = checkpoint::ListOptions {
        dir: state.dir.clone(),
        here: false,
    };
    match checkpoint::list(&options) {
        Ok(list) => {
            let value = serde_json::json!({ "checkpoints": list.checkpoints });
            result::ok(
                format!("{} checkpoint(s), newest first", list.checkpoints.len()),
                &value,
            )
        }
        Err(e) => result::failed(&e),
    }
}

/// `restore_checkpoint`.
pub fn restore_checkpoint(state: &State, params: &RestoreParams) -> CallToolResult {
    match restore::restore(&restore::Options::new(&state.dir, &params.id)) {
        Ok(done) => result::ok(
            format!(
                "restored checkpoint {}: {} file(s) written, {} deleted; the state it replaced \
                 was saved as checkpoint {} (undo takes the restore back)",
                done.target,
                done.written.len(),
                done.deleted.len(),
                done.before
            ),
            &done,
        ),
        Err(e) => result::failed(&e),
    }
}

/// `undo`.
pub fn undo(state: &State) -> CallToolResult {
    match undo::undo(&undo::Options::new(&state.dir)) {
        Ok(done) => {
            let how = match (&done.restore, &done.reverted) {
                (Some(r), _) => format!("by restoring checkpoint {}", r.target),
                (None, Some(r)) => format!(
                    "by reverting its own changes to {}",
                    if r.written.is_empty() {
                        "no file".to_owned()
                    } else {
                        r.written.join(", ")
                    }
                ),
                (None, None) => "with nothing to write".to_owned(),
            };
            result::ok(
                format!(
                    "undid the last {} {how}; undo again to redo it",
                    done.undone.kind
                ),
                &done,
            )
        }
        Err(e) => result::failed(&e),
    }
}

/// `log`.
pub fn log(state: &State, params: &LogParams) -> CallToolResult {
    let options = record::LogOptions {
        dir: state.dir.clone(),
        limit: Some(params.limit.unwrap_or(DEFAULT_LOG_LIMIT)),
        status: params.status.clone(),
        ..record::LogOptions::default()
    };
    match record::log(&options) {
        Ok(found) => {
            let summary = match found.record {
                record::RecordState::NotKept => "no record is kept here".to_owned(),
                _ => format!("{} run(s), newest first", found.runs.len()),
            };
            result::ok(summary, &serde_json::json!({ "runs": found.runs }))
        }
        Err(e) => result::failed(&e),
    }
}

/// `show_run`: the run's record, with the diffs it applied as text.
pub fn show_run(state: &State, params: &ShowRunParams) -> CallToolResult {
    let read = |what| {
        record::show(&record::ShowOptions {
            dir: state.dir.clone(),
            run: params.run.clone(),
            what,
        })
    };
    let shown = match read(record::Shown::Record) {
        Ok(shown) => shown,
        Err(e) => return result::failed(&e),
    };
    let mut value = serde_json::to_value(&shown).unwrap_or(Value::Null);
    if let Ok(record::ShowOutcome::Diffs { diffs, .. }) = read(record::Shown::Diffs) {
        let diffs: Vec<String> = diffs
            .iter()
            .map(|d| String::from_utf8_lossy(d).into_owned())
            .collect();
        if let Value::Object(map) = &mut value {
            map.insert("applied_diffs".to_owned(), Value::from(diffs));
        }
    }
    result::ok(format!("run {}", params.run), &value)
}
