//! The operation log: which checkpoint was taken before each salve change of this work tree.
//!
//! One line per operation in `<git-dir>/salve/oplog` (the per-worktree git directory, so linked
//! worktrees keep separate logs): `time TAB kind TAB before-commit TAB target-commit-or-dash`.
//! [`crate::undo()`] restores the `before` of the last line; the restore it does is itself logged,
//! so a second undo goes back to where the first one started.

use std::io::Write;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::cmd::GitError;
use crate::repo::Repo;

/// One logged salve change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// Seconds since the Unix epoch.
    pub time: i64,
    /// `apply`, `restore`, `undo`, ...
    pub kind: String,
    /// The checkpoint commit taken just before the change.
    pub before: String,
    /// For restores and undos, the checkpoint commit that was brought back.
    pub target: Option<String>,
}

fn log_path(repo: &Repo) -> Result<PathBuf, GitError> {
    Ok(repo.salve_dir()?.join("oplog"))
}

/// Append an operation. One `write` of one line with `O_APPEND`, so concurrent salve processes
/// do not interleave within a line.
pub fn record(repo: &Repo, kind: &str, before: &str, target: Option<&str>) -> Result<(), GitError> {
    let path = log_path(repo)?;
    let time = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let kind: String = kind
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let line = format!("{time}\t{kind}\t{before}\t{}\n", target.unwrap_or("-"));
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| GitError::io(format!("opening {}", path.display()), e))?;
    file.write_all(line.as_bytes())
        .map_err(|e| GitError::io(format!("writing {}", path.display()), e))
}

/// Every logged operation, oldest first. A missing log is an empty one.
pub fn read(repo: &Repo) -> Result<Vec<Operation>, GitError> {
    let path = log_path(repo)?;
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(GitError::io(format!("reading {}", path.display()), e)),
    };
    Ok(text.lines().filter_map(parse_line).collect())
}

/// The changes not yet taken back, newest first: what successive steps of undo go back through.
///
/// An undo's `target` names the `before` of the operation it took back (a restore-based undo
/// brings that checkpoint back; a reverting undo logs it), so walking from the newest: an undo
/// whose own `before` a later undo names was itself undone (a redo) and counts for nothing;
/// any other undo marks its target undone; an operation that is not an undo, and not marked,
/// is a change still in place.
pub fn changes_in_place(ops: &[Operation]) -> Vec<Operation> {
    let mut undone: Vec<&str> = Vec::new();
    let mut pending = Vec::new();
    for op in ops.iter().rev() {
        let marked = undone.iter().any(|b| *b == op.before);
        if is_undo(&op.kind) {
            if !marked {
                if let Some(target) = &op.target {
                    undone.push(target);
                }
            }
        } else if !marked {
            pending.push(op.clone());
        }
    }
    pending
}

/// The kind logged by an undo that reverted the change it took back (its diff, merged into
/// the files as they were): undoing it re-applies that change the same way.
pub const UNDO: &str = "undo";
/// The kind logged by an undo that restored the checkpoint taken before the change (the whole
/// tree): undoing it restores the checkpoint it took in turn.
pub const UNDO_RESTORE: &str = "undo-restore";

/// Whether an operation of this kind is an undo.
pub fn is_undo(kind: &str) -> bool {
    kind == UNDO || kind == UNDO_RESTORE
}

/// The most recent operation, if any. Reads only the end of the log: a page asks on every
/// view, and the log grows with every change ever made.
pub fn last(repo: &Repo) -> Result<Option<Operation>, GitError> {
    use std::io::{Read as _, Seek as _, SeekFrom};
    const TAIL: u64 = 4096;
    let path = log_path(repo)?;
    let io = |e| GitError::io(format!("reading {}", path.display()), e);
    let mut file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(e)),
    };
    let len = file.metadata().map_err(io)?.len();
    let start = len.saturating_sub(TAIL);
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail).map_err(io)?;
    let text = String::from_utf8_lossy(&tail);
    let mut lines: Vec<&str> = text.lines().collect();
    // The first line of a tail that starts mid-file may be cut.
    if start > 0 && !lines.is_empty() {
        lines.remove(0);
    }
    match lines.iter().rev().find_map(|l| parse_line(l)) {
        Some(op) => Ok(Some(op)),
        // Lines longer than the tail (never written by salve): read it all.
        None if start > 0 => Ok(read(repo)?.pop()),
        None => Ok(None),
    }
}

fn parse_line(line: &str) -> Option<Operation> {
    let mut fields = line.split('\t');
    let time = fields.next()?.parse().ok()?;
    let kind = fields.next()?.to_owned();
    let before = fields.next()?.to_owned();
    let target = fields.next().filter(|t| *t != "-").map(str::to_owned);
    if before.is_empty() || !before.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(Operation {
        time,
        kind,
        before,
        target,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lines_and_rejects_garbage() {
        assert_eq!(
            parse_line("10\tapply\tabc123\t-"),
            Some(Operation {
                time: 10,
                kind: "apply".into(),
                before: "abc123".into(),
                target: None
            })
        );
        assert_eq!(
            parse_line("11\tundo\tabc\tdef").and_then(|o| o.target),
            Some("def".into())
        );
        assert_eq!(parse_line("x\tapply\tabc\t-"), None);
        assert_eq!(parse_line("10\tapply\tnot-hex\t-"), None);
    }

    fn op(kind: &str, before: &str, target: Option<&str>) -> Operation {
        Operation {
            time: 0,
            kind: kind.into(),
            before: before.into(),
            target: target.map(Into::into),
        }
    }

    fn befores(ops: &[Operation]) -> Vec<&str> {
        ops.iter().map(|o| o.before.as_str()).collect()
    }

    #[test]
    fn changes_in_place_skip_undone_ones_and_count_redone_ones() {
        let a = op("apply", "a1", None);
        let b = op("ask", "b2", None);
        let c = op("restore", "c3", Some("a1"));
        assert_eq!(
            befores(&changes_in_place(&[a.clone(), b.clone(), c.clone()])),
            ["c3", "b2", "a1"]
        );
        // b undone: it is no longer in place.
        let undo_b = op("undo", "d4", Some("b2"));
        assert_eq!(
            befores(&changes_in_place(&[a.clone(), b.clone(), undo_b.clone()])),
            ["a1"]
        );
        // The undo undone (a redo): b is in place again.
        let redo = op("undo", "e5", Some("d4"));
        assert_eq!(
            befores(&changes_in_place(&[
                a.clone(),
                b.clone(),
                undo_b.clone(),
                redo.clone()
            ])),
            ["b2", "a1"]
        );
        // An undo that restored counts alike.
        assert_eq!(
            befores(&changes_in_place(&[
                a.clone(),
                b.clone(),
                op("undo-restore", "g7", Some("b2"))
            ])),
            ["a1"]
        );
        // An old undo without a target (logged before targets were) marks nothing.
        assert_eq!(
            befores(&changes_in_place(&[a, b, op("undo", "f6", None)])),
            ["b2", "a1"]
        );
    }
}
