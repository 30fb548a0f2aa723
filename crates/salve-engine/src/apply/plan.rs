//! From extracted edits to one plan per file: guard every path, then gather the edits that
//! target the same file into one change, so all of a file's hunks are placed against its
//! original text together (several SEARCH/REPLACE blocks or JSON objects for one path are one
//! edit as far as the file is concerned).

use std::path::{Path, PathBuf};

use salve_patch::{ChangeKind, FileChange, FileEdit, FileReport, Format, Hunk, ParseIssue, Status};

use crate::paths::{guard, Guarded, Rejection};

/// The single change to make to one file.
#[derive(Clone, Debug)]
pub(crate) enum Change {
    Modify(Vec<Hunk>),
    Rename {
        to: Guarded,
        hunks: Vec<Hunk>,
    },
    Create {
        content: String,
        final_newline: bool,
    },
    Replace {
        content: String,
        final_newline: bool,
    },
    Delete {
        expected: Option<String>,
    },
    /// The reply asks for incompatible things (say, create and delete); the message says which.
    Conflicting(String),
}

/// Everything the reply says about one file.
#[derive(Clone, Debug)]
pub(crate) struct FilePlan {
    /// The path as the reply wrote it (first mention).
    pub raw: String,
    pub target: Guarded,
    pub change: Change,
    pub kind: ChangeKind,
    pub format: Format,
    /// The last file mode the reply asked for.
    pub mode: Option<u32>,
    /// A parse problem reported for this path; refuses the file.
    pub issue: Option<ParseIssue>,
    /// A sentence beside the reply's whole-file block says the rest of the file is unchanged.
    pub rest_unchanged: bool,
}

/// The result of guarding: either every path is acceptable, or the reports that refuse all.
pub(crate) enum Guard {
    Ok(Vec<(FileEdit, Guarded, Option<Guarded>)>),
    Rejected(Vec<FileReport>, Vec<ParseIssue>),
}

fn change_kind(change: &FileChange) -> ChangeKind {
    match change {
        FileChange::Modify { .. } => ChangeKind::Modify,
        FileChange::Create { .. } => ChangeKind::Create,
        FileChange::Delete { .. } => ChangeKind::Delete,
        FileChange::Rename { .. } => ChangeKind::Rename,
        FileChange::Replace { .. } => ChangeKind::Replace,
    }
}

pub(crate) fn report_for(edit: &FileEdit, status: Status, message: String) -> FileReport {
    FileReport {
        path: edit.path.clone(),
        requested_path: None,
        new_path: match &edit.change {
            FileChange::Rename { to, .. } => Some(to.clone()),
            _ => None,
        },
        change: change_kind(&edit.change),
        format: edit.format,
        status,
        hunks: Vec::new(),
        added: 0,
        removed: 0,
        message: Some(message),
    }
}

/// Guard every path the reply names (edit paths, rename targets, paths of parse issues) before
/// anything is read.
pub(crate) fn guard_all(root: &Path, edits: Vec<FileEdit>, issues: &[ParseIssue]) -> Guard {
    let mut guarded = Vec::with_capacity(edits.len());
    let mut rejections: Vec<Option<String>> = Vec::with_capacity(edits.len());
    let mut any = false;
    for edit in &edits {
        let source = guard(root, &edit.path);
        let target = match &edit.change {
            FileChange::Rename { to, .. } => Some(guard(root, to)),
            _ => None,
        };
        let problem = match (&source, &target) {
            (Err(e), _) => Some(describe(&edit.path, e)),
            (_, Some(Err(e))) => Some(describe(rename_target(edit), e)),
            _ => None,
        };
        any |= problem.is_some();
        rejections.push(problem);
        if let (Ok(s), t) = (source, target) {
            guarded.push((s, t.and_then(Result::ok)));
        }
    }
    let mut extra_issues = Vec::new();
    for issue in issues {
        if let Some(path) = &issue.path {
            if let Err(e) = guard(root, path) {
                any = true;
                extra_issues.push(ParseIssue {
                    kind: issue.kind,
                    path: Some(path.clone()),
                    message: describe(path, &e),
                });
            }
        }
    }
    if !any {
        let ok = edits
            .into_iter()
            .zip(guarded)
            .map(|(edit, (source, target))| (edit, source, target))
            .collect();
        return Guard::Ok(ok);
    }
    let reports = edits
        .iter()
        .zip(rejections)
        .map(|(edit, problem)| match problem {
            Some(message) => report_for(edit, Status::PathRejected, message),
            None => report_for(
                edit,
                Status::Skipped,
                "not attempted: the reply names a path that is not allowed, so none of it is trusted"
                    .to_owned(),
            ),
        })
        .collect();
    Guard::Rejected(reports, extra_issues)
}

fn rename_target(edit: &FileEdit) -> &str {
    match &edit.change {
        FileChange::Rename { to, .. } => to,
        _ => &edit.path,
    }
}

fn describe(path: &str, rejection: &Rejection) -> String {
    format!("path `{}` rejected: {rejection}", path.escape_debug())
}

/// Gather the guarded edits into one plan per file, in order of first mention. Issues with a
/// path are attached to that file's plan; those naming no edited file are returned.
pub(crate) fn group(
    root: &Path,
    edits: Vec<(FileEdit, Guarded, Option<Guarded>)>,
    issues: &[ParseIssue],
) -> (Vec<FilePlan>, Vec<ParseIssue>) {
    let mut plans: Vec<(PathBuf, FilePlan)> = Vec::new();
    // A repeated identical edit is a model repeating itself, not a second change.
    let repeated: Vec<bool> = if edits.len() < 2 {
        // Nothing to repeat: hashing a lone edit whole (every line of a large diff) is skipped.
        vec![false; edits.len()]
    } else {
        let mut seen = std::collections::HashSet::new();
        edits
            .iter()
            .map(|(edit, _, _)| !seen.insert(edit))
            .collect()
    };
    for ((edit, source, target), repeated) in edits.into_iter().zip(repeated) {
        if repeated {
            continue;
        }
        let key = fold_key(&plans, &edit, &source);
        let raw = edit.path.clone();
        let (kind, format, mode) = (change_kind(&edit.change), edit.format, edit.mode);
        let incoming = to_change(edit.change, target);
        match plans.iter_mut().find(|(k, _)| *k == key) {
            Some((_, plan)) => {
                plan.change = merge(
                    std::mem::replace(&mut plan.change, Change::Modify(Vec::new())),
                    incoming,
                    &plan.raw,
                );
                if mode.is_some() {
                    plan.mode = mode;
                }
                if let Change::Rename { .. } = plan.change {
                    plan.kind = ChangeKind::Rename;
                }
            }
            None => plans.push((
                key,
                FilePlan {
                    raw,
                    target: source,
                    change: incoming,
                    kind,
                    format,
                    mode,
                    issue: None,
                    rest_unchanged: false,
                },
            )),
        }
    }
    let mut unmatched = Vec::new();
    for issue in issues {
        let Some(path) = &issue.path else { continue };
        let Ok(g) = guard(root, path) else { continue };
        match plans
            .iter_mut()
            .find(|(k, p)| *k == g.real || p.target.path == g.path)
        {
            Some((_, plan)) => {
                plan.issue.get_or_insert_with(|| issue.clone());
            }
            None => unmatched.push(issue.clone()),
        }
    }
    (plans.into_iter().map(|(_, p)| p).collect(), unmatched)
}

/// The file an edit belongs to. A modification of a path that some earlier rename in the reply
/// moves a file to (and that does not exist yet) belongs to that rename.
fn fold_key(plans: &[(PathBuf, FilePlan)], edit: &FileEdit, source: &Guarded) -> PathBuf {
    if matches!(edit.change, FileChange::Modify { .. }) && !source.real.exists() {
        for (key, plan) in plans {
            if let Change::Rename { to, .. } = &plan.change {
                if to.real == source.real {
                    return key.clone();
                }
            }
        }
    }
    source.real.clone()
}

fn to_change(change: FileChange, target: Option<Guarded>) -> Change {
    match (change, target) {
        (FileChange::Modify { hunks }, _) => Change::Modify(hunks),
        (FileChange::Rename { hunks, .. }, Some(to)) => Change::Rename { to, hunks },
        (FileChange::Rename { .. }, None) => {
            Change::Conflicting("the rename has no usable destination".to_owned())
        }
        (
            FileChange::Create {
                content,
                final_newline,
            },
            _,
        ) => Change::Create {
            content,
            final_newline,
        },
        (
            FileChange::Replace {
                content,
                final_newline,
            },
            _,
        ) => Change::Replace {
            content,
            final_newline,
        },
        (FileChange::Delete { expected }, _) => Change::Delete { expected },
    }
}

fn merge(existing: Change, incoming: Change, raw: &str) -> Change {
    match (existing, incoming) {
        (Change::Modify(mut a), Change::Modify(b)) => {
            a.extend(b);
            Change::Modify(a)
        }
        (Change::Rename { to, mut hunks }, Change::Modify(b)) => {
            hunks.extend(b);
            Change::Rename { to, hunks }
        }
        (Change::Modify(mut a), Change::Rename { to, hunks }) => {
            a.extend(hunks);
            Change::Rename { to, hunks: a }
        }
        (c @ Change::Conflicting(_), _) => c,
        (a, b) => Change::Conflicting(format!(
            "the reply asks for incompatible changes to {raw} ({} and {}); refusing to pick one",
            name(&a),
            name(&b)
        )),
    }
}

fn name(change: &Change) -> &'static str {
    match change {
        Change::Modify(_) => "modify",
        Change::Rename { .. } => "rename",
        Change::Create { .. } => "create",
        Change::Replace { .. } => "whole-file replace",
        Change::Delete { .. } => "delete",
        Change::Conflicting(_) => "conflicting edits",
    }
}
