//! The tools' work, synchronous: each calls one engine operation on the server's work tree and
//! turns its outcome or error into a tool result. The server runs these off the async runtime.

use rmcp::model::CallToolResult;
use salve_engine::apply::{apply, Input, Options as ApplyOptions, Outcome as Applied};
use salve_engine::interrupt::Cancel;
use salve_engine::report::Outcome;
use salve_engine::{checkpoint, record, restore, undo};

use crate::params::{
    ApplyEditParams, CheckpointParams, EditFileParams, ListCheckpointsParams, LogParams,
    RestoreParams, ShowRunParams, StrReplaceParams, WriteFileParams,
};
use crate::result;
use crate::state::State;

/// Runs listed by `log` when no limit is given.
pub const DEFAULT_LOG_LIMIT: usize = 20;

/// `apply_edit`: the reply as written.
pub fn apply_edit(state: &State, params: &ApplyEditParams, cancel: &Cancel) -> CallToolResult {
    apply_input(
        state,
        Input::Reply(&params.edit),
        (params.check_only, cancel),
        "apply_edit",
    )
}

/// `str_replace`: the arguments as an old/new edit, given to the engine as they are (no text
/// form in between, so any path the guard allows can be named).
pub fn str_replace(state: &State, params: &StrReplaceParams, cancel: &Cancel) -> CallToolResult {
    let value = serde_json::json!({
        "path": params.path,
        "old_string": params.old_str,
        "new_string": params.new_str,
    });
    apply_input(state, Input::Value(&value), (false, cancel), "str_replace")
}

/// `edit_file`: the arguments as Cursor's `edit_file` call, given to the engine as they are:
/// `code_edit` is a lazy edit snippet, merged without a model.
pub fn edit_file(state: &State, params: &EditFileParams, cancel: &Cancel) -> CallToolResult {
    if params.code_edit.trim().is_empty() {
        return result::refused(
            "empty_content",
            "code_edit is empty",
            Some("give the changed lines with a few unchanged lines around them".to_owned()),
        );
    }
    let value = serde_json::json!({
        "target_file": params.target_file,
        "instructions": params.instructions,
        "code_edit": params.code_edit,
    });
    apply_input(state, Input::Value(&value), (false, cancel), "edit_file")
}

/// `write_file`: the arguments as a whole-file write, given to the engine as they are.
pub fn write_file(state: &State, params: &WriteFileParams, cancel: &Cancel) -> CallToolResult {
    // The path guard first: a path into `.git` (in any spelling) is refused as such, before
    // anything else is said of the call.
    if let Err(why) = salve_engine::paths::normalize(&params.path) {
        return result::refused(
            "path_rejected",
            &format!("{:?}: {why}", params.path),
            Some("name a file inside the work tree, outside `.git`".to_owned()),
        );
    }
    if params.content.trim().is_empty() {
        return result::refused(
            "empty_content",
            "the content is empty",
            Some(
                "write the whole content; to empty or delete a file use apply_edit with a diff"
                    .to_owned(),
            ),
        );
    }
    let value = serde_json::json!({
        "file_path": params.path,
        "content": params.content,
    });
    apply_input(state, Input::Value(&value), (false, cancel), "write_file")
}

fn apply_input(
    state: &State,
    input: Input<'_>,
    (check_only, cancel): (bool, &Cancel),
    tool: &str,
) -> CallToolResult {
    let options = ApplyOptions {
        check: check_only,
        cancel: cancel.clone(),
        // The agent read the files as they are, not as HEAD has them.
        three_way: false,
        command: vec!["salve".to_owned(), "mcp".to_owned(), tool.to_owned()],
        ..ApplyOptions::new(&state.dir)
    };
    match apply(input, &options) {
        Ok(outcome) => {
            state.made(outcome.checkpoint.as_deref());
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
            } else if outcome.no_checkpoint.is_some() {
                s.push_str(
                    "; not in a git repository, so no checkpoint was taken and the undo tool \
                     cannot revert this",
                );
            }
            s
        }
        Outcome::AlreadyApplied => {
            "already applied: the files already hold this change; nothing was written".to_owned()
        }
        Outcome::Partial | Outcome::Refused => {
            let refusals = match report.refusals() {
                r if r.is_empty() => "no edit could be used".to_owned(),
                r => r,
            };
            let mut s = format!("refused, nothing was written: {refusals}");
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
pub fn list_checkpoints(state: &State, params: &ListCheckpointsParams) -> CallToolResult {
    let options = checkpoint::ListOptions {
        dir: state.dir.clone(),
        // This work tree's own, as restore_checkpoint takes only those.
        here: !params.all_worktrees.unwrap_or(false),
        limit: Some(params.limit.unwrap_or(DEFAULT_LOG_LIMIT)),
        offset: params.offset.unwrap_or(0),
    };
    match checkpoint::list(&options) {
        Ok(list) => {
            let shown = list.checkpoints.len();
            let offset = options.offset;
            let value = serde_json::json!({
                "checkpoints": list.checkpoints,
                "total": list.total,
                "offset": offset,
            });
            let more = list.total.saturating_sub(offset + shown);
            let summary = if more > 0 {
                format!(
                    "{shown} of {} checkpoint(s), newest first; {more} older (offset {})",
                    list.total,
                    offset + shown
                )
            } else {
                format!("{shown} of {} checkpoint(s), newest first", list.total)
            };
            result::ok(summary, &value)
        }
        Err(e) => result::failed(&e),
    }
}

/// `restore_checkpoint`.
pub fn restore_checkpoint(state: &State, params: &RestoreParams) -> CallToolResult {
    match restore::restore(&restore::Options::new(&state.dir, &params.id)) {
        Ok(done) => {
            state.made(Some(&done.before));
            result::ok(
                format!(
                "restored checkpoint {}: {} file(s) written, {} deleted; the state it replaced \
                 was saved as checkpoint {} (undo takes the restore back)",
                done.target,
                done.written.len(),
                done.deleted.len(),
                done.before
            ),
                &done,
            )
        }
        Err(e) => result::failed(&e),
    }
}

/// `undo`: this session's newest change (an undo of it redoes), merged into the files as they
/// are, so other sessions' and the user's work stays.
pub fn undo(state: &State) -> CallToolResult {
    let options = undo::Options {
        only: Some(state.changes()),
        ..undo::Options::new(&state.dir)
    };
    match undo::undo(&options) {
        Ok(done) => {
            state.made(done.checkpoint_taken());
            let how = match (&done.restore, &done.reverted) {
                (Some(r), _) => format!("by restoring checkpoint {}", r.target),
                (None, Some(r)) => format!(
                    "by {} {}",
                    if r.redo {
                        "applying its change again to"
                    } else {
                        "reverting its own changes to"
                    },
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
    let shown = record::show(&record::ShowOptions {
        dir: state.dir.clone(),
        run: params.run.clone(),
        what: record::Shown::RecordWithDiffs,
    });
    match shown {
        Ok(shown) => result::ok(format!("run {}", params.run), &shown),
        Err(e) => result::failed(&e),
    }
}
