//! The file changes beyond a plain modification: rename, create, whole-file replace and delete.
//! Each decides from what is on disk whether the change applies, is already in place, or must
//! be refused, and queues the writes; nothing is written here.

use salve_patch::{
    is_placeholder, replace_whole_with, ChangeKind, FileReport, Format, Hunk, Splice, Status, Whole,
};

use super::plan::FilePlan;
use super::step::{existing, finish, join, new_mode, next_mode, read, run_hunks, Ctx};
use super::stop::{refuse, Stop};
use super::whole_target::{whole_target, WholeTarget};
use crate::paths::{resolve, Guarded, Reach, Resolution};
use crate::transaction::{Content, Expect, Op};

/// Move a file (applying any hunks on the way). Already moved counts as done; a destination
/// that exists is a conflict.
pub(super) fn rename(
    ctx: &Ctx<'_, '_, '_>,
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
        report.path = to.real_rel.to_string();
        let cur = read(ctx, to)?;
        let out = run_hunks(ctx, to, &cur, hunks, plan.mode, plan.format);
        finish(ctx, report, out, &cur, to, plan.mode, ops)?;
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
    let out = run_hunks(ctx, &source, &cur, hunks, plan.mode, plan.format);
    let mut writes = Vec::new();
    finish(ctx, report, out, &cur, &source, plan.mode, &mut writes)?;
    if !report.status.is_success() {
        return Ok(());
    }
    let text = match writes.pop() {
        Some(Op::Write { content, .. }) => content,
        _ => Content::Bytes(cur.text.as_bytes().to_vec()),
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

/// Create a new file. The same content already there is done; different content is a conflict.
pub(super) fn create(
    ctx: &Ctx<'_, '_, '_>,
    plan: &FilePlan,
    content: &str,
    final_newline: bool,
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    refuse_special_mode(plan.mode)?;
    let text = super::endings::new_file_text(&plan.target.real, content, final_newline);
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
    refuse_new_file_clash(ctx, plan)?;
    report.added = line_count(&text);
    ops.push(Op::Write {
        path: plan.target.real.clone(),
        content: text.into(),
        mode: new_mode(plan.mode),
        expect: Expect::Absent,
    });
    Ok(())
}

/// Replace a whole file, merged from the baseline when the file changed since; a missing file
/// is created.
/// A new file beside one whose name differs in case alone is refused: on a case-insensitive
/// file system it would overwrite that file, and elsewhere it is a second, confusable copy.
///
/// So is one git tracks outside a sparse checkout's cone: the path is free on disk, but git
/// would neither show nor commit what is written there.
fn refuse_new_file_clash(ctx: &Ctx<'_, '_, '_>, plan: &FilePlan) -> Result<(), Stop> {
    if let Some(git) = ctx.repository.git() {
        let full = format!("{}{}", git.prefix, plan.target.real_rel);
        let (tag, submodule) = index_view(&git.repo, &full);
        if let Some(repository) = submodule {
            // An uninitialized submodule is an empty directory the guard cannot tell apart.
            let rejection = crate::paths::Rejection::OtherRepository { repository };
            return refuse(
                Status::PathRejected,
                format!("path `{}` rejected: {rejection}", plan.target.path),
            );
        }
        if tag == Some(b'S') {
            return refuse(
                Status::Conflict,
                format!(
                    "{} is tracked but outside the sparse checkout (skip-worktree): git would \
                     not see what is written there; add its directory to the sparse checkout \
                     and apply again",
                    plan.target.path
                ),
            );
        }
    }
    let twins = crate::paths::case_twins(ctx.files(), &plan.target.path);
    if twins.is_empty() {
        return Ok(());
    }
    refuse(
        Status::Conflict,
        format!(
            "{} does not exist, but {} differs from it in letter case only; the reply would \
             create a second file that a case-insensitive file system cannot tell apart; name \
             the file exactly",
            plan.target.path,
            join(&twins)
        ),
    )
}

/// How the index sees the new file `full` (from the repository root): its `ls-files -t` tag,
/// and the submodule (a gitlink) it would land in, if any.
fn index_view(repo: &salve_git::Repo, full: &str) -> (Option<u8>, Option<String>) {
    let parts: Vec<&str> = full.split('/').collect();
    let ancestors = (1..parts.len()).map(|n| parts[..n].join("/"));
    let specs: Vec<String> = std::iter::once(full.to_owned())
        .chain(ancestors)
        .map(|p| format!(":(literal){p}"))
        .collect();
    let Ok(out) = repo
        .git()
        .args(["ls-files", "-s", "-t", "-z", "--"])
        .args(&specs)
        .output()
    else {
        return (None, None);
    };
    let (mut tag, mut submodule) = (None, None);
    for record in out.stdout.split(|b| *b == 0).filter(|r| r.len() > 2) {
        let Some(tab) = record.iter().position(|b| *b == b'\t') else {
            continue;
        };
        let path = String::from_utf8_lossy(&record[tab + 1..]).into_owned();
        if path == full {
            tag = record.first().copied();
        } else if record[2..].starts_with(b"160000 ") {
            submodule = Some(path);
        }
    }
    (tag, submodule)
}

pub(super) fn replace(
    ctx: &Ctx<'_, '_, '_>,
    plan: &FilePlan,
    content: &str,
    final_newline: bool,
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    refuse_special_mode(plan.mode)?;
    // A whole file for a path that does not exist is a new file, unless its content shows it is
    // the file a slightly wrong path means (see `whole_target`).
    let target = if plan.target.real.exists() {
        plan.target.clone()
    } else {
        match whole_target(ctx, plan, content, report)? {
            WholeTarget::Existing(g) => g,
            WholeTarget::New => {
                // A new file has nothing to fill a gap from.
                if let Some(l) = content
                    .lines()
                    .find(|l| is_placeholder(l, plan.target.path.as_str()))
                {
                    return Err(Stop::Lazy(
                        Status::Malformed,
                        format!(
                            "{} does not exist, so the placeholder `{}` in its new content has nothing to be filled in from; write the file out in full",
                            plan.target.path,
                            l.trim()
                        ),
                    ));
                }
                if plan.rest_unchanged {
                    // "The rest is unchanged" beside a new file: there is no rest, so the
                    // content shown is not the whole file the model meant.
                    return refuse(
                        Status::Truncated,
                        format!(
                            "{} does not exist, but the reply says the rest of it is unchanged: a new file has no rest, so the content shown is not all of it; write the file out in full",
                            plan.target.path
                        ),
                    );
                }
                refuse_new_file_clash(ctx, plan)?;
                // The report says what happened to the tree: a file appeared.
                report.change = ChangeKind::Create;
                let text = super::endings::new_file_text(&plan.target.real, content, final_newline);
                report.added = line_count(&text);
                ops.push(Op::Write {
                    path: plan.target.real.clone(),
                    content: text.into(),
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
        .baseline()
        .and_then(|b| b.differing_text(&target.real_rel, &cur.text));
    let out = replace_whole_with(
        target.path.as_str(),
        &cur.text,
        content,
        final_newline,
        baseline.as_deref(),
        Whole {
            rest_unchanged: plan.rest_unchanged,
            allow_shrink: ctx.allow_shrink,
            snippet: plan.format == Format::Snippet,
        },
    );
    // A snippet's refusal names its regions and their candidates, reported as they are.
    if matches!(out.status, Status::NotFound | Status::Ambiguous) && plan.format != Format::Snippet
    {
        // Only a gap that could not be filled in from the file refuses a whole file this way:
        // the code it stands for is lost, so the reply is lazy.
        let why = out.hunks.first().and_then(|h| h.message.clone());
        return Err(Stop::Lazy(
            out.status,
            why.unwrap_or_else(|| "a placeholder could not be filled in from the file".into()),
        ));
    }
    finish(
        ctx,
        report,
        out.map_text(Splice::whole),
        &cur,
        &target,
        plan.mode,
        ops,
    )
}

/// Delete a file, only when it holds what the reply says it deletes (when the reply says).
pub(super) fn delete(
    ctx: &Ctx<'_, '_, '_>,
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
    match expected {
        Some(expected) if !same_content(expected, &cur.text) => {
            return refuse(
                Status::Conflict,
                format!(
                    "{} differs from the content the reply deletes; refusing to delete changes it did not see",
                    target.path
                ),
            );
        }
        Some(_) => {}
        // A delete that names the file only (a Codex `*** Delete File`, a git `deleted file
        // mode` without its lines): the baseline commit must vouch that the file is what the
        // model saw, or uncommitted work would go with it.
        None => {
            let why = match ctx.baseline().map(|b| b.text(&target.real_rel)) {
                Some(Some(base)) if same_content(&base, &cur.text) => None,
                Some(Some(_)) => Some("has changes since the commit the model read"),
                Some(None) => Some("is not in the commit the model read (new or untracked)"),
                None => Some("cannot be checked: there is no baseline commit to compare it with"),
            };
            if let Some(why) = why {
                return refuse(
                    Status::Conflict,
                    format!(
                        "{} {why}; the reply deletes it without its content, so salve refuses to \
                         delete what the model may not have seen",
                        target.path
                    ),
                );
            }
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
    ctx: &Ctx<'_, '_, '_>,
    plan: &FilePlan,
    expected: Option<&str>,
    report: &mut FileReport,
) -> Result<(), Stop> {
    let at_base = ctx
        .baseline()
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

/// Equal up to line endings and trailing whitespace, which a reply's copy of a file rarely
/// keeps exactly.
fn same_content(expected: &str, actual: &str) -> bool {
    let norm = |s: &str| -> Vec<String> {
        // A byte-order mark is encoding, not content: a diff's `-` lines never show it.
        let s = s.strip_prefix('\u{feff}').unwrap_or(s);
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
    fn delete_content_comparison_ignores_line_endings_and_trailing_space() {
        assert!(same_content("a\nb\n", "a  \r\nb\r\n"));
        assert!(same_content("a\nb", "a\nb\n\n"));
        assert!(!same_content("a\nb\n", "a\nc\n"));
    }

    #[test]
    fn delete_content_comparison_ignores_a_byte_order_mark() {
        assert!(same_content("a\nb\n", "\u{feff}a\r\nb\r\n"));
        assert!(!same_content("a\nb\n", "\u{feff}a\nc\n"));
    }
}
