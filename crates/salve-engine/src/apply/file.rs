//! Placing one file's change in memory: resolve the path, read the file, fetch its baseline,
//! run the pure applier, and produce the report plus the writes that would make it so.
//! Nothing here touches the disk except to read.

use std::cell::OnceCell;
use std::collections::HashSet;
use std::path::Path;

use salve_patch::apply::{apply_hunks, create_text, replace_whole_3way, FileOutcome};
use salve_patch::edit::{Hunk, IssueKind, ParseIssue};
use salve_patch::parse::extract;
use salve_patch::report::{FileReport, Status};

use super::plan::{Change, FilePlan};
use super::Error;
use crate::baseline::Baseline;
use crate::paths::{guard, resolve, Guarded, Reach, Resolution, TreePath};
use crate::transaction::{Expect, Fingerprint, Op};
use crate::tree::list_files;

/// What the per-file step needs from the apply as a whole.
pub(crate) struct Ctx<'a> {
    pub root: &'a Path,
    pub baseline: Option<&'a Baseline>,
    pub in_git: bool,
    pub max_file_size: u64,
    pub files: OnceCell<Vec<TreePath>>,
}

impl Ctx<'_> {
    fn files(&self) -> &[TreePath] {
        self.files
            .get_or_init(|| list_files(self.root, self.in_git))
    }
}

/// One file, placed.
#[derive(Debug)]
pub(crate) struct Placed {
    pub report: FileReport,
    pub ops: Vec<Op>,
    /// A parse issue the placement settled: placeholders in a whole file that were filled in
    /// from the file itself.
    pub settled: Option<ParseIssue>,
}

impl Placed {
    pub fn ok(&self) -> bool {
        self.report.status.is_success()
    }
}

/// A file read for editing.
struct Current {
    text: String,
    mode: u32,
    expect: Expect,
}

/// Why a file cannot be edited: a refusal for this file, or an error that stops everything.
enum Stop {
    Refuse(Status, String),
    Fatal(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Fatal(e)
    }
}

fn refuse<T>(status: Status, message: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Refuse(status, message.into()))
}

pub(crate) fn place(ctx: &Ctx<'_>, plan: FilePlan) -> Result<Placed, Error> {
    let mut report = FileReport {
        path: plan.target.path.to_string(),
        requested_path: None,
        new_path: match &plan.change {
            Change::Rename { to, .. } => Some(to.path.to_string()),
            _ => None,
        },
        change: plan.kind,
        format: plan.format,
        status: Status::Applied,
        hunks: Vec::new(),
        added: 0,
        removed: 0,
        message: None,
    };
    // Placeholders in a whole file are for the applier to fill from the file, strictly (each
    // one between neighbours that place uniquely); only what it cannot fill is refused.
    let fill_placeholders = plan.issue.as_ref().is_some_and(|i| {
        i.kind == IssueKind::Lazy && matches!(plan.change, Change::Replace { .. })
    });
    if let Some(issue) = plan.issue.as_ref().filter(|_| !fill_placeholders) {
        report.status = match issue.kind {
            IssueKind::Truncated => Status::Truncated,
            IssueKind::Lazy | IssueKind::Malformed | IssueKind::NoEdit => Status::Malformed,
        };
        report.message = Some(issue.message.clone());
        return Ok(Placed {
            report,
            ops: Vec::new(),
            settled: None,
        });
    }
    let mut ops = Vec::new();
    match place_change(ctx, &plan, &mut report, &mut ops) {
        Ok(()) => {}
        Err(Stop::Refuse(status, message)) => {
            report.status = status;
            report.message = Some(message);
            ops.clear();
        }
        Err(Stop::Fatal(e)) => return Err(e),
    }
    let settled = plan
        .issue
        .filter(|_| fill_placeholders && report.status.is_success());
    Ok(Placed {
        report,
        ops,
        settled,
    })
}

fn place_change(
    ctx: &Ctx<'_>,
    plan: &FilePlan,
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    match &plan.change {
        Change::Conflicting(message) => refuse(Status::Malformed, message.clone()),
        Change::Modify(hunks) => {
            let target = existing(ctx, plan, Reach::Name, report)?;
            let cur = read(ctx, &target)?;
            let out = run_hunks(ctx, &target, &cur, hunks, plan.mode);
            finish(report, out, &cur, &target, plan.mode, ops)
        }
        Change::Rename { to, hunks } => rename(ctx, plan, to, hunks, report, ops),
        Change::Create {
            content,
            final_newline,
        } => create(ctx, plan, content, *final_newline, report, ops),
        Change::Replace {
            content,
            final_newline,
        } => replace(ctx, plan, content, *final_newline, report, ops),
        Change::Delete { expected } => delete(ctx, plan, expected.as_deref(), report, ops),
    }
}

/// Resolve a file that must exist, recording a changed path in the report.
fn existing(
    ctx: &Ctx<'_>,
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
        Resolution::Missing => refuse(
            Status::NotFound,
            format!(
                "{} does not exist, and no file in the tree has that name",
                plan.target.path
            ),
        ),
    }
}

fn join(list: &[TreePath]) -> String {
    list.iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Read a file as text, refusing binaries and non-files, failing on oversize files.
fn read(ctx: &Ctx<'_>, target: &Guarded) -> Result<Current, Stop> {
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
    let bytes = std::fs::read(&target.real).map_err(|e| Error::Read {
        path: shown.to_owned(),
        source: e,
    })?;
    if bytes.contains(&0) {
        return refuse(
            Status::Conflict,
            format!("{shown} is a binary file (it contains NUL bytes); salve only edits text"),
        );
    }
    let text = String::from_utf8(bytes).or_else(|_| {
        refuse(
            Status::Conflict,
            format!("{shown} is not UTF-8 text; salve only edits UTF-8 text files"),
        )
    })?;
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
fn next_mode(current: u32, git_mode: Option<u32>) -> u32 {
    match git_mode {
        Some(m) if m & 0o111 != 0 => current | ((current & 0o444) >> 2),
        Some(m) if m & 0o170000 == 0o100000 => current & !0o111,
        _ => current,
    }
}

/// Permission bits for a new file: `None` lets the umask decide; executable files get 0755.
fn new_mode(git_mode: Option<u32>) -> Option<u32> {
    git_mode.filter(|m| m & 0o111 != 0).map(|_| 0o755)
}

fn run_hunks(
    ctx: &Ctx<'_>,
    target: &Guarded,
    cur: &Current,
    hunks: &[Hunk],
    git_mode: Option<u32>,
) -> FileOutcome {
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
    let baseline = ctx
        .baseline
        .and_then(|b| b.differing_text(&target.real_rel, &cur.text));
    apply_hunks(&cur.text, hunks, baseline.as_deref())
}

/// Turn an applier outcome into the report and, on success, a write.
fn finish(
    report: &mut FileReport,
    out: FileOutcome,
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
        // The hunk reports say what failed and where; a file message would repeat them.
        return Ok(());
    }
    let text = out.new_text.unwrap_or_else(|| cur.text.clone());
    let mode = next_mode(cur.mode, git_mode);
    if text != cur.text || mode != cur.mode {
        if report.status == Status::AlreadyApplied {
            report.status = Status::Applied;
        }
        ops.push(Op::Write {
            path: target.real.clone(),
            content: text.into_bytes(),
            mode: Some(mode),
            expect: cur.expect,
        });
    } else {
        report.status = Status::AlreadyApplied;
    }
    Ok(())
}

fn rename(
    ctx: &Ctx<'_>,
    plan: &FilePlan,
    to: &Guarded,
    hunks: &[Hunk],
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    let source_exists = plan.target.real.is_file();
    let target_exists = std::fs::symlink_metadata(&to.real).is_ok();
    if !source_exists && target_exists {
        // Already moved: only the content edits may be left to do.
        report.path = to.path.to_string();
        let cur = read(ctx, to)?;
        let out = run_hunks(ctx, to, &cur, hunks, plan.mode);
        finish(report, out, &cur, to, plan.mode, ops)?;
        if report.status == Status::AlreadyApplied {
            report.message = Some(format!(
                "{} was already renamed to {}",
                plan.target.path, to.path
            ));
        }
        return Ok(());
    }
    if target_exists && to.real != plan.target.real {
        return refuse(
            Status::Conflict,
            format!("cannot rename to {}: a file already exists there", to.path),
        );
    }
    let source = existing(ctx, plan, Reach::Name, report)?;
    let cur = read(ctx, &source)?;
    let out = run_hunks(ctx, &source, &cur, hunks, plan.mode);
    let mut writes = Vec::new();
    finish(report, out, &cur, &source, plan.mode, &mut writes)?;
    if !report.status.is_success() {
        return Ok(());
    }
    let text = match writes.pop() {
        Some(Op::Write { content, .. }) => content,
        _ => cur.text.into_bytes(),
    };
    report.status = Status::Applied;
    ops.push(Op::Write {
        path: to.real.clone(),
        content: text,
        mode: Some(next_mode(cur.mode, plan.mode)),
        expect: Expect::Absent,
    });
    ops.push(Op::Delete {
        path: source.real.clone(),
        expect: cur.expect,
    });
    Ok(())
}

fn line_count(text: &str) -> usize {
    text.lines().count()
}

fn same_text(a: &str, b: &str) -> bool {
    a == b || a.replace("\r\n", "\n") == b.replace("\r\n", "\n")
}

fn refuse_special_mode(git_mode: Option<u32>) -> Result<(), Stop> {
    match git_mode.map(|m| m & 0o170000) {
        Some(0o120000) => refuse(
            Status::Malformed,
            "salve does not create symlinks from a reply",
        ),
        Some(0o160000) => refuse(Status::Malformed, "salve does not create submodules"),
        _ => Ok(()),
    }
}

fn create(
    ctx: &Ctx<'_>,
    plan: &FilePlan,
    content: &str,
    final_newline: bool,
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    refuse_special_mode(plan.mode)?;
    let text = create_text(content, final_newline);
    if std::fs::symlink_metadata(&plan.target.real).is_ok() {
        let cur = read(ctx, &plan.target)?;
        if same_text(&cur.text, &text) {
            report.status = Status::AlreadyApplied;
            return Ok(());
        }
        return refuse(
            Status::Conflict,
            format!(
                "{} already exists with different content; the reply creates it as a new file",
                plan.target.path
            ),
        );
    }
    report.added = line_count(&text);
    ops.push(Op::Write {
        path: plan.target.real.clone(),
        content: text.into_bytes(),
        mode: new_mode(plan.mode),
        expect: Expect::Absent,
    });
    Ok(())
}

fn replace(
    ctx: &Ctx<'_>,
    plan: &FilePlan,
    content: &str,
    final_newline: bool,
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    refuse_special_mode(plan.mode)?;
    // A whole file for a path that does not exist is a new file, unless its directory does not
    // exist either and one existing file ends with the whole path (a wrong leading directory).
    let target = if plan.target.real.exists() {
        plan.target.clone()
    } else {
        let parent_exists = plan.target.real.parent().is_some_and(Path::is_dir);
        let moved = if parent_exists {
            None
        } else {
            match resolve(ctx.root, &plan.target.path, Reach::Suffix, || ctx.files()) {
                Resolution::Moved(_) | Resolution::Exact => {
                    Some(existing(ctx, plan, Reach::Suffix, report)?)
                }
                _ => None,
            }
        };
        match moved {
            Some(g) => g,
            None => {
                if let Some(issue) = &plan.issue {
                    // A new file has nothing to fill placeholders from.
                    return refuse(Status::Malformed, issue.message.clone());
                }
                let text = create_text(content, final_newline);
                report.added = line_count(&text);
                ops.push(Op::Write {
                    path: plan.target.real.clone(),
                    content: text.into_bytes(),
                    mode: new_mode(plan.mode),
                    expect: Expect::Absent,
                });
                return Ok(());
            }
        }
    };
    let cur = read(ctx, &target)?;
    // Written against an older version, a whole file would undo the work tree's own changes;
    // with the baseline it is merged instead.
    let baseline = ctx
        .baseline
        .and_then(|b| b.differing_text(&target.real_rel, &cur.text));
    let out = replace_whole_3way(&cur.text, content, final_newline, baseline.as_deref());
    if let (Some(issue), Some(new_text)) = (&plan.issue, &out.new_text) {
        if leaves_placeholder(&target.path, &cur.text, new_text) {
            return refuse(
                Status::Malformed,
                format!(
                    "{} (it could not be filled in from the file)",
                    issue.message
                ),
            );
        }
    }
    finish(report, out, &cur, &target, plan.mode, ops)
}

fn delete(
    ctx: &Ctx<'_>,
    plan: &FilePlan,
    expected: Option<&str>,
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    let exact = std::fs::symlink_metadata(&plan.target.real).is_ok();
    let target = if exact {
        plan.target.clone()
    } else {
        match resolve(ctx.root, &plan.target.path, Reach::Name, || ctx.files()) {
            Resolution::Moved(found) if expected.is_some() => {
                // Delete a file found only by name only when it holds what the reply says.
                let g = existing(ctx, plan, Reach::Name, report)?;
                let cur = read(ctx, &g)?;
                if expected.is_some_and(|e| same_content(e, &cur.text)) {
                    g
                } else {
                    return refuse(
                        Status::NotFound,
                        format!(
                            "{} does not exist; {found} has the same name but not the content the reply deletes",
                            plan.target.path
                        ),
                    );
                }
            }
            Resolution::Ambiguous(list) => {
                return refuse(
                    Status::Ambiguous,
                    format!(
                        "{} does not exist, and several files could be meant: {}",
                        plan.target.path,
                        join(&list)
                    ),
                )
            }
            _ => return missing_delete(ctx, plan, expected, report),
        }
    };
    let cur = read(ctx, &target)?;
    if let Some(expected) = expected {
        if !same_content(expected, &cur.text) {
            return refuse(
                Status::Conflict,
                format!(
                    "{} differs from the content the reply deletes; refusing to delete changes it did not see",
                    target.path
                ),
            );
        }
    }
    report.removed = line_count(&cur.text);
    ops.push(Op::Delete {
        path: target.real.clone(),
        expect: cur.expect,
    });
    Ok(())
}

/// A deletion of a file that is not there: done already if the file existed at the baseline, or
/// if the reply said what it held (nothing of that name is left); otherwise there is nothing the
/// reply can mean.
fn missing_delete(
    ctx: &Ctx<'_>,
    plan: &FilePlan,
    expected: Option<&str>,
    report: &mut FileReport,
) -> Result<(), Stop> {
    let at_base = ctx
        .baseline
        .is_some_and(|b| b.text(&plan.target.real_rel).is_some());
    if at_base || expected.is_some() {
        report.status = Status::AlreadyApplied;
        report.message = Some(format!("{} is already gone", plan.target.path));
        return Ok(());
    }
    refuse(
        Status::NotFound,
        format!(
            "{} does not exist; there is nothing to delete",
            plan.target.path
        ),
    )
}

/// Whether filling a whole file's placeholders left one standing: a line the result adds that
/// the parser itself would call a placeholder. The parser is asked (on just the added lines)
/// because it is the authority on what a placeholder looks like.
fn leaves_placeholder(path: &TreePath, old: &str, new: &str) -> bool {
    let old_lines: HashSet<&str> = old.lines().map(str::trim_end).collect();
    let fresh: Vec<&str> = new
        .lines()
        .filter(|l| !old_lines.contains(l.trim_end()))
        .collect();
    if fresh.is_empty() {
        return false;
    }
    let probe = format!("{path}\n```\n{}\n```\n", fresh.join("\n"));
    extract(&probe)
        .issues
        .iter()
        .any(|i| i.kind == IssueKind::Lazy)
}

/// Equal up to line endings and trailing whitespace, which a reply's copy of a file rarely
/// keeps exactly.
fn same_content(expected: &str, actual: &str) -> bool {
    let norm = |s: &str| -> Vec<String> {
        let mut lines: Vec<String> = s.lines().map(|l| l.trim_end().to_owned()).collect();
        while lines.last().is_some_and(String::is_empty) {
            lines.pop();
        }
        lines
    };
    norm(expected) == norm(actual)
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

    #[test]
    fn delete_content_comparison_ignores_line_endings_and_trailing_space() {
        assert!(same_content("a\nb\n", "a  \r\nb\r\n"));
        assert!(same_content("a\nb", "a\nb\n\n"));
        assert!(!same_content("a\nb\n", "a\nc\n"));
    }
}
