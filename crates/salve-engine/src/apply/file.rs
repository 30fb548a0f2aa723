//! Placing one file's change in memory: the step its change calls for, then the checks on what
//! would be written, and the report plus the writes that would make it so. Nothing here touches
//! the disk except to read.

use salve_patch::{new_file_from_insertion, ChangeKind, FileReport, IssueKind, ParseIssue, Status};

use super::change::{create, delete, rename, replace};
use super::plan::{Change, FilePlan};
use super::step::{existing, finish, read, run_hunks, Ctx};
use super::stop::{refuse, Stop};
use super::Error;
use crate::paths::Reach;
use crate::transaction::Op;

/// One file, placed.
#[derive(Debug)]
pub(crate) struct Placed {
    pub report: FileReport,
    pub ops: Vec<Op>,
    /// A problem with the reply itself found while placing: a whole-file placeholder that could
    /// not be filled in from the file makes the reply lazy, which the report's issues say.
    pub issue: Option<ParseIssue>,
}

impl Placed {
    pub fn ok(&self) -> bool {
        self.report.status.is_success()
    }
}

pub(crate) fn place(ctx: &Ctx<'_, '_, '_>, plan: FilePlan) -> Result<Placed, Error> {
    // A path through a symlink inside the tree names the file written under its own name, so
    // the report, its line counts and the record all speak of the file that changed.
    let through_link = plan.target.real_rel != plan.target.path;
    let mut report = FileReport {
        path: plan.target.real_rel.to_string(),
        requested_path: through_link.then(|| plan.target.path.to_string()),
        new_path: match &plan.change {
            Change::Rename { to, .. } => Some(to.real_rel.to_string()),
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
    // A parse issue for this file (truncated, lazy, malformed) refuses it: the reply does not
    // say what the file should hold. Gap lines in a whole file are not issues; the applier fills
    // them from the file or refuses.
    if let Some(issue) = &plan.issue {
        report.status = match issue.kind {
            IssueKind::Truncated => Status::Truncated,
            IssueKind::Lazy | IssueKind::Malformed | IssueKind::NoEdit => Status::Malformed,
            IssueKind::EditSyntax => Status::EditSyntax,
        };
        report.message = Some(issue.message.clone());
        return Ok(Placed {
            report,
            ops: Vec::new(),
            issue: None,
        });
    }
    let mut ops = Vec::new();
    let mut lazy = None;
    // The checks on what would be written come after placing, whatever placed it.
    let placed = place_change(ctx, &plan, &mut report, &mut ops)
        .and_then(|()| super::control::judge(&report.path, &ops))
        .and_then(|()| {
            super::edit_syntax::judge(ctx.reply_syntax.as_ref(), &report.path, &plan, &ops)
        });
    match placed {
        Ok(()) => {}
        Err(Stop::Refuse(status, message)) => {
            report.status = status;
            report.message = Some(message);
            if status == Status::Binary {
                // Nothing of a refused file counts as added or removed.
                report.added = 0;
                report.removed = 0;
            }
            ops.clear();
        }
        Err(Stop::Lazy(status, message)) => {
            lazy = Some(ParseIssue {
                kind: IssueKind::Lazy,
                path: Some(report.path.clone()),
                message: message.clone(),
            });
            report.status = status;
            report.message = Some(message);
            ops.clear();
        }
        Err(Stop::Fatal(e)) => return Err(e),
    }
    Ok(Placed {
        report,
        ops,
        issue: lazy,
    })
}

fn place_change(
    ctx: &Ctx<'_, '_, '_>,
    plan: &FilePlan,
    report: &mut FileReport,
    ops: &mut Vec<Op>,
) -> Result<(), Stop> {
    match &plan.change {
        Change::Conflicting(message) => refuse(Status::Malformed, message.clone()),
        Change::Modify(hunks) => {
            // `@@ -0,0 +1,N @@` under `a/x`/`b/x` headers inserts at the top of an existing file;
            // for a path that does not exist it can only mean a new file.
            if std::fs::symlink_metadata(&plan.target.real).is_err() {
                if let Some((content, final_newline)) = new_file_from_insertion(hunks) {
                    report.change = ChangeKind::Create;
                    return create(ctx, plan, &content, final_newline, report, ops);
                }
            }
            let target = existing(ctx, plan, Reach::Name, report)?;
            let cur = read(ctx, &target)?;
            let out = run_hunks(ctx, &target, &cur, hunks, plan.mode, plan.format);
            finish(ctx, report, out, &cur, &target, plan.mode, ops)
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
