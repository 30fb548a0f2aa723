//! What the per-file steps share: the apply's context, reading a file that must exist, running
//! the pure applier over it, and turning its outcome into the report and a write. The steps
//! themselves (modify, create, replace, rename, delete) are in [`super::change`], and choosing
//! the step for a file in [`super::file`].

use std::cell::OnceCell;
use std::path::Path;

use salve_patch::{apply_hunks_lazy, FileOutcome, FileReport, Format, Hunk, Splice, Status};

use super::load::{load_text, Loaded, SharedText};
use super::plan::FilePlan;
use super::repository::Repository;
use super::stop::{refuse, Stop};
use super::Error;
use crate::baseline::Baseline;
use crate::paths::{case_twins, guard, resolve, Guarded, Reach, Resolution, TreePath};
use crate::transaction::{Content, Expect, Fingerprint, Op};
use crate::tree::list_files;

/// What the per-file step needs from the apply as a whole.
pub(crate) struct Ctx<'a, 'scope, 'env> {
    pub root: &'a Path,
    /// Asked only when needed: finding it may still be under way.
    pub repository: &'a Repository<'scope, 'env>,
    pub max_file_size: u64,
    /// Refuse files the edit leaves unparsable (`syntax`).
    pub syntax_check: bool,
    /// Write whole files that keep one stretch of the old file and drop the rest.
    pub allow_shrink: bool,
    pub files: OnceCell<Vec<TreePath>>,
    /// The reply's syntax lines, for the check that none is written; `None` when the edits
    /// came as a JSON value or already built (their strings are data).
    pub reply_syntax: Option<salve_patch::ReplySyntax>,
}

impl Ctx<'_, '_, '_> {
    pub(super) fn files(&self) -> &[TreePath] {
        self.files
            .get_or_init(|| list_files(self.root, self.repository.git().is_some()))
    }

    pub(super) fn baseline(&self) -> Option<&Baseline> {
        self.repository.baseline()
    }
}

/// A file read for editing.
pub(super) struct Current {
    /// Shared with the write, which keeps the unchanged bytes from here.
    pub text: SharedText,
    pub mode: u32,
    pub expect: Expect,
}

/// Resolve a file that must exist, recording a changed path in the report.
pub(super) fn existing(
    ctx: &Ctx<'_, '_, '_>,
    plan: &FilePlan,
    reach: Reach,
    report: &mut FileReport,
) -> Result<Guarded, Stop> {
    match resolve(ctx.root, &plan.target.path, reach, || ctx.files()) {
        Resolution::Exact => Ok(plan.target.clone()),
        Resolution::Moved(found) => {
            let g = guard(ctx.root, found.as_str()).or_else(|e| {
                refuse(
                    Status::PathRejected,
                    format!(
                        "{} resolved to {found}, which is not allowed: {e}",
                        plan.raw
                    ),
                )
            })?;
            report.requested_path = Some(plan.raw.clone());
            report.path = found.to_string();
            Ok(g)
        }
        Resolution::Ambiguous(list) => refuse(
            Status::Ambiguous,
            format!(
                "{} does not exist, and {} files could be meant: {}",
                plan.target.path,
                list.len(),
                join(&list)
            ),
        ),
        Resolution::Missing => {
            let twins = case_twins(ctx.files(), &plan.target.path);
            let why = if twins.is_empty() {
                "no file in the tree has that name".to_owned()
            } else {
                format!("{} differs from it in letter case only", join(&twins))
            };
            refuse(
                Status::NotFound,
                format!("{} does not exist, and {why}", plan.target.path),
            )
        }
    }
}

pub(super) fn join(list: &[TreePath]) -> String {
    list.iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Read a file as text, refusing binaries and non-files, failing on oversize files.
pub(super) fn read(ctx: &Ctx<'_, '_, '_>, target: &Guarded) -> Result<Current, Stop> {
    let shown = target.path.as_str();
    let meta = std::fs::metadata(&target.real).map_err(|e| Error::Read {
        path: shown.to_owned(),
        source: e,
    })?;
    if !meta.is_file() {
        return refuse(
            Status::Conflict,
            format!("{shown} is not a regular file (a directory or a special file)"),
        );
    }
    if meta.len() > ctx.max_file_size {
        return Err(Stop::Fatal(Error::FileTooLarge {
            path: shown.to_owned(),
            size: meta.len(),
            limit: ctx.max_file_size,
        }));
    }
    let text = match load_text(&target.real, meta.len()) {
        Ok(Loaded::Text(text)) => text,
        Ok(Loaded::Binary) => {
            return refuse(
                Status::Binary,
                format!("{shown} is a binary file (it contains NUL bytes); salve only edits text"),
            )
        }
        Ok(Loaded::NotUtf8) => {
            return refuse(
                Status::Encoding,
                format!("{shown} is not UTF-8 text; salve only edits UTF-8 text files"),
            )
        }
        Err(e) => {
            return Err(Stop::Fatal(Error::Read {
                path: shown.to_owned(),
                source: e,
            }))
        }
    };
    Ok(Current {
        text,
        mode: mode_of(&meta),
        expect: Expect::Unchanged(Fingerprint::of(&meta)),
    })
}

#[cfg(unix)]
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0o644
}

/// The permission bits after applying a git mode from the reply. Git records only the executable
/// bit, so only that changes: added where the file is readable, or removed.
pub(super) fn next_mode(current: u32, git_mode: Option<u32>) -> u32 {
    match git_mode {
        Some(m) if m & 0o111 != 0 => current | ((current & 0o444) >> 2),
        Some(m) if m & 0o170000 == 0o100000 => current & !0o111,
        _ => current,
    }
}

/// Permission bits for a new file: `None` lets the umask decide; executable files get 0755.
pub(super) fn new_mode(git_mode: Option<u32>) -> Option<u32> {
    git_mode.filter(|m| m & 0o111 != 0).map(|_| 0o755)
}

pub(super) fn run_hunks(
    ctx: &Ctx<'_, '_, '_>,
    target: &Guarded,
    cur: &Current,
    hunks: &[Hunk],
    git_mode: Option<u32>,
    format: Format,
) -> FileOutcome<Splice> {
    if hunks.is_empty() {
        // A header-only edit: a mode change, or nothing at all.
        let changed = next_mode(cur.mode, git_mode) != cur.mode;
        return FileOutcome {
            new_text: None,
            status: if changed {
                Status::Applied
            } else {
                Status::AlreadyApplied
            },
            hunks: Vec::new(),
            added: 0,
            removed: 0,
        };
    }
    // A notebook holds cells' code as JSON strings; a reply quoting the code as plain text is
    // placed in the cell and written back as JSON (None: the hunks edit the JSON text itself).
    if is_notebook(target.real_rel.as_str()) {
        if let Some(out) = salve_patch::apply_notebook(&cur.text, hunks) {
            return out;
        }
    }
    // Reading the baseline runs git; only a hunk that needs the 3-way rung pays for it.
    let out = apply_hunks_lazy(&cur.text, hunks, || {
        ctx.baseline()
            .and_then(|b| b.differing_text(&target.real_rel, &cur.text))
    });
    // Blocks of the formats whose tools apply them in order may build on each other: one that
    // found no place in the original is placed against the result of those before it.
    let in_order = matches!(
        format,
        Format::SearchReplace | Format::OldNewJson | Format::ToolJson | Format::ToolXml
    );
    if in_order && out.hunks.iter().any(|h| h.status == Status::NotFound) {
        if let Some(chained) = salve_patch::apply_in_order(&cur.text, hunks) {
            return chained;
        }
    }
    out
}

/// True for a Jupyter notebook's path (`.ipynb`, in any case).
fn is_notebook(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ipynb"))
}

/// Turn an applier outcome into the report and, on success, a write (after the syntax check).
pub(super) fn finish(
    ctx: &Ctx<'_, '_, '_>,
    report: &mut FileReport,
    out: FileOutcome<Splice>,
    cur: &Current,
    target: &Guarded,
    git_mode: Option<u32>,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    report.hunks = out.hunks;
    report.added = out.added;
    report.removed = out.removed;
    report.status = out.status;
    if !out.status.is_success() {
        // Where each candidate sits (scope, numbered lines), so the edit can be corrected.
        salve_patch::describe_candidates(&mut report.hunks, &cur.text, target.real_rel.as_str());
        // The hunk reports say what failed and where; a file message would repeat them.
        return Ok(());
    }
    let mode = next_mode(cur.mode, git_mode);
    if let (true, Some(splice)) = (ctx.syntax_check, &out.new_text) {
        super::syntax::judge(target.path.as_str(), &cur.text, splice, report)?;
    }
    let content = match out.new_text {
        Some(splice) => Content::Spliced {
            original: cur.text.clone(),
            splice,
        },
        None if mode != cur.mode => Content::Bytes(cur.text.as_bytes().to_vec()),
        None => {
            report.status = Status::AlreadyApplied;
            return Ok(());
        }
    };
    if report.status == Status::AlreadyApplied {
        report.status = Status::Applied;
    }
    ops.push(Op::Write {
        path: target.real.clone(),
        content,
        mode: Some(mode),
        expect: cur.expect,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_git_semantics() {
        assert_eq!(next_mode(0o644, Some(0o100755)), 0o755);
        assert_eq!(next_mode(0o600, Some(0o100755)), 0o700);
        assert_eq!(next_mode(0o755, Some(0o100644)), 0o644);
        assert_eq!(next_mode(0o640, None), 0o640);
        assert_eq!(new_mode(Some(0o100755)), Some(0o755));
        assert_eq!(new_mode(Some(0o100644)), None);
    }
}
