//! Several steps of undo: go back through salve's own changes, newest first, each taken back
//! as a single undo takes back the last one (its diff reverted and merged, or its checkpoint
//! restored), and each logged, so each can itself be undone.
//!
//! The changes gone back through are those still in place: undos are not steps, a change an
//! undo already took back is skipped, and one brought back by undoing that undo counts again
//! (see `salve_git::oplog::changes_in_place`).

use serde::Serialize;

use super::{undo_one, Error, Options, Outcome};
use crate::error::Classified;

/// What several steps of undo did. Fields are in alphabetical order, as JSON prints them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Steps {
    /// How many steps were asked for.
    pub asked: usize,
    /// The steps taken, newest change first.
    pub steps: Vec<Outcome>,
    /// The step that could not be taken, when one could not; the steps before it stand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
}

/// A step that was refused, after earlier steps were taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stopped {
    /// The error's stable code (`undo_conflict`, ...).
    pub code: String,
    /// The files in conflict, for `undo_conflict`.
    pub files: Vec<String>,
    /// The change that was not taken back: its kind.
    pub kind: String,
    pub message: String,
    /// When that change happened, in seconds since the Unix epoch.
    pub time: i64,
}

/// Take back the `count` most recent salve changes still in place, newest first. Fails,
/// changing nothing, when fewer are in place or the first step is refused; a later step that is
/// refused stops the walk, and the outcome says where.
pub fn undo_steps(options: &Options, count: usize) -> Result<Steps, Error> {
    let repo = salve_git::Repo::discover(&options.dir)?;
    let ops = salve_git::oplog::read(&repo)?;
    let in_place = salve_git::oplog::changes_in_place(&ops);
    if in_place.is_empty() {
        return Err(Error::NothingToUndo(
            "nothing to undo: every salve change of this work tree has been taken back".to_owned(),
        ));
    }
    if count > in_place.len() {
        return Err(Error::TooFewChanges {
            asked: count,
            available: in_place.len(),
        });
    }
    let mut steps = Vec::with_capacity(count);
    let mut stopped = None;
    for op in in_place.iter().take(count) {
        match undo_one(&repo, op, options) {
            Ok(outcome) => steps.push(outcome),
            Err(e) if steps.is_empty() => return Err(e),
            Err(e) => {
                stopped = Some(Stopped {
                    code: e.code().to_owned(),
                    files: match &e {
                        Error::Conflict { files, .. } => files.clone(),
                        _ => Vec::new(),
                    },
                    kind: op.kind.clone(),
                    message: e.to_string(),
                    time: op.time,
                });
                break;
            }
        }
    }
    Ok(Steps {
        asked: count,
        steps,
        stopped,
    })
}
