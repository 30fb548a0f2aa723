//! `apply`: land a model's reply on a directory, all files or none.
//!
//! The steps, in order:
//! 1. Find the repository and the baseline commit (`--base`, default `HEAD`); an unknown
//!    revision is an [`Error`] before anything else happens.
//! 2. Extract the edits from the reply ([`salve_patch::parse::extract`]); `reverse` turns each
//!    one around.
//! 3. Guard every path the reply names. One rejected path refuses the whole reply, even under
//!    `partial`: a reply that reaches for `.git/hooks` or `../` is not trusted with anything.
//! 4. Gather the edits per file (`plan`), then place each file in memory (`file`): resolve
//!    the path, read the text, fetch the baseline blob when it differs, run the applier.
//! 5. Decide: any refusal (or a parse issue that names no file) writes nothing, unless
//!    `partial`, which writes the files that placed. `check` writes nothing in any case.
//! 6. Write through a [`Transaction`]: every file or none.

mod change;
mod diff;
mod error;
mod file;
mod load;
mod plan;
mod repository;
mod whole_target;

use std::cell::OnceCell;
use std::path::PathBuf;

use salve_patch::edit::{FileEdit, IssueKind, ParseIssue};
use salve_patch::parse;
use salve_patch::report::{Outcome as ReportOutcome, Report, Status};

pub use error::Error;

use crate::paths::canonical_root;
use crate::transaction::{Transaction, TEMP_PREFIX};
use file::{place, Ctx, Placed};
use plan::{group, guard_all, Guard};
use repository::Repository;

/// Files larger than this are not read: 64 MiB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 * 1024 * 1024;

/// How to apply.
#[derive(Clone, Debug)]
pub struct Options {
    /// The work tree: every path in the reply is relative to it and must stay inside it.
    pub dir: PathBuf,
    /// Place everything and report, but write nothing.
    pub check: bool,
    /// Write the files that placed even when others were refused (per file, never per hunk).
    pub partial: bool,
    /// The commit the model read; `None` means `HEAD` when the directory is in a repository
    /// with commits.
    pub base: Option<String>,
    /// Apply the edits backwards (undo a reply that was applied).
    pub reverse: bool,
    /// Files larger than this many bytes stop the apply with [`Error::FileTooLarge`].
    pub max_file_size: u64,
    /// In a git repository, take a checkpoint (logged for `salve undo`) before writing.
    pub checkpoint: bool,
    /// The operation named in the undo log for that checkpoint (`apply`, `ask`, `fix`).
    pub operation: String,
    /// Render the unified diff of the change into [`Outcome::diff`] (for the record).
    pub diff: bool,
}

impl Options {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Options {
            dir: dir.into(),
            check: false,
            partial: false,
            base: None,
            reverse: false,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            checkpoint: true,
            operation: "apply".to_owned(),
            diff: false,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::new(".")
    }
}

/// What an apply did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub report: Report,
    /// The files written, created or deleted, relative to the work tree. Empty under `check`
    /// and when refused.
    pub written: Vec<PathBuf>,
    /// The baseline commit used for 3-way placement, when there was one.
    pub baseline: Option<String>,
    /// The checkpoint taken before writing, when one was.
    pub checkpoint: Option<String>,
    /// With [`Options::diff`]: the unified diff of what was written, or would be under `check`.
    /// Empty when refused or when nothing changes.
    pub diff: String,
}

/// Apply `reply` to `options.dir`. Refusals are reported in the outcome; only problems that stop
/// the apply from running or from finishing its writes are errors.
pub fn apply(reply: &str, options: &Options) -> Result<Outcome, Error> {
    let root = canonical_root(&options.dir).map_err(|source| Error::Dir {
        path: options.dir.clone(),
        source,
    })?;
    let checkpoint_options = salve_git::checkpoint::create::Options {
        message: Some(format!("before salve {}", options.operation)),
        operation: Some(options.operation.clone()),
        // Taken while files are placed, the snapshot may run before a killed earlier apply's
        // temporary files are swept: it must not capture them for `salve undo` to bring back.
        skip_name_prefixes: vec![TEMP_PREFIX.to_owned()],
        ..Default::default()
    };
    std::thread::scope(|scope| {
        // Finding the repository and the baseline runs git in child processes: it goes on
        // while the reply is read and the files are placed. Git's errors still come first.
        let repository = Repository::start(scope, &root, options);
        let refused = |report: Report, baseline: Option<String>| Outcome {
            report,
            written: Vec::new(),
            baseline,
            checkpoint: None,
            diff: String::new(),
        };
        let Prepared {
            mut report,
            issues,
            plans,
            unmatched,
        } = match prepare(reply, options, &root) {
            Ready::Refused(report) => {
                let (_, baseline) = repository.finish()?;
                return Ok(refused(report, baseline.map(|b| b.commit().to_owned())));
            }
            Ready::Plans(prepared) => prepared,
        };
        // The checkpoint's snapshot (hashing every changed file) is the slowest step of a
        // default apply; it is taken on another thread while the edits are placed, and only
        // made a checkpoint if something is written.
        let wants_snapshot = options.checkpoint && !options.check && !plans.is_empty();
        let git_now = if wants_snapshot {
            repository.git()
        } else {
            None
        };
        let snapshot = match git_now {
            Some(git) => {
                let (repo, checkpoint_options) = (git.repo.clone(), &checkpoint_options);
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || {
                        salve_git::checkpoint::create::snapshot(&repo, checkpoint_options)
                    })
                    .ok()
            }
            None => None,
        };
        let ctx = Ctx {
            root: &root,
            repository: &repository,
            max_file_size: options.max_file_size,
            files: OnceCell::new(),
        };
        let mut placed = Vec::with_capacity(plans.len());
        for plan in plans {
            match place(&ctx, plan) {
                Ok(p) => placed.push(p),
                Err(e) => {
                    drop(ctx);
                    repository.finish()?;
                    return Err(e);
                }
            }
        }
        drop(ctx);
        let (git, baseline) = repository.finish()?;
        let baseline_id = baseline.as_ref().map(|b| b.commit().to_owned());
        report
            .issues
            .extend(placed.iter().filter_map(|p| p.issue.clone()));

        // A parse issue naming no path, or naming a file the reply has no edit for, is a refusal
        // that no file report carries.
        let whole_reply_issue = issues.iter().any(|i| i.path.is_none());
        let refusals = placed.iter().filter(|p| !p.ok()).count() + unmatched.len();
        let write_any = !whole_reply_issue && (refusals == 0 || options.partial);
        if !write_any {
            skip_placed(&mut placed, whole_reply_issue);
            report.files = placed.into_iter().map(|p| p.report).collect();
            return Ok(refused(report, baseline_id));
        }

        // Read before the write: the diff needs the text each file had.
        let diff = if options.diff {
            diff::render(&root, &placed)
        } else {
            String::new()
        };
        // The ops move into the transaction: a copy of every new file text costs as much as
        // writing it, and only the reports are needed past this point.
        let mut tx = Transaction::within(&root);
        for p in placed.iter_mut().filter(|p| p.ok()) {
            for op in p.ops.drain(..) {
                tx.push(op);
            }
        }
        let mut checkpoint = None;
        let written = if options.check || tx.is_empty() {
            Vec::new()
        } else {
            // A killed earlier apply may have left temp files; clear them before the checkpoint is
            // published, as the write would.
            tx.sweep_leftovers();
            if let (true, Some(git)) = (options.checkpoint, &git) {
                let snapshot = match snapshot {
                    Some(job) => job
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?,
                    None => {
                        salve_git::checkpoint::create::snapshot(&git.repo, &checkpoint_options)?
                    }
                };
                let taken = snapshot.publish(&git.repo, &checkpoint_options)?;
                report.notes.push(format!(
                    "checkpoint {} taken before writing; `salve undo` reverts this apply",
                    taken.id
                ));
                checkpoint = Some(taken.id);
            }
            tx.commit()?
                .into_iter()
                .map(|p| p.strip_prefix(&root).map(PathBuf::from).unwrap_or(p))
                .collect()
        };
        let successes = placed.iter().filter(|p| p.ok()).count();
        report.outcome = if refusals > 0 {
            if successes > 0 {
                ReportOutcome::Partial
            } else {
                ReportOutcome::Refused
            }
        } else if placed
            .iter()
            .all(|p| p.report.status == Status::AlreadyApplied)
        {
            ReportOutcome::AlreadyApplied
        } else {
            ReportOutcome::Applied
        };
        report.files = placed.into_iter().map(|p| p.report).collect();
        Ok(Outcome {
            report,
            written,
            baseline: baseline_id.clone(),
            checkpoint,
            diff,
        })
    })
}

/// The reply read into per-file plans, ready to place.
struct Prepared {
    report: Report,
    issues: Vec<ParseIssue>,
    plans: Vec<plan::FilePlan>,
    unmatched: Vec<ParseIssue>,
}

enum Ready {
    Plans(Prepared),
    /// A path was rejected: nothing of the reply is placed.
    Refused(Report),
}

/// Steps 2 to 4 up to placing: extract, turn around under `reverse`, guard every path, group
/// per file. Needs no git.
fn prepare(reply: &str, options: &Options, root: &std::path::Path) -> Ready {
    let extraction = parse::extract(reply);
    let edits: Vec<FileEdit> = if options.reverse {
        extraction.edits.iter().map(FileEdit::reversed).collect()
    } else {
        extraction.edits
    };
    let mut issues = extraction.issues;
    if edits.is_empty() && issues.is_empty() {
        issues.push(ParseIssue {
            kind: IssueKind::NoEdit,
            path: None,
            message: "no edit was found in the reply".to_owned(),
        });
    }
    let mut report = Report {
        outcome: ReportOutcome::Refused,
        check_only: options.check,
        files: Vec::new(),
        issues: issues.clone(),
        notes: extraction.notes,
    };
    let guarded = match guard_all(root, edits, &issues) {
        Guard::Ok(guarded) => guarded,
        Guard::Rejected(files, extra) => {
            report.files = files;
            report.issues.extend(extra);
            return Ready::Refused(report);
        }
    };
    let (plans, unmatched) = group(root, guarded, &issues);
    Ready::Plans(Prepared {
        report,
        issues,
        plans,
        unmatched,
    })
}

/// Mark the files that placed as skipped: all or nothing means they are not written.
fn skip_placed(placed: &mut [Placed], whole_reply_issue: bool) {
    let why = if whole_reply_issue {
        "placed, but not written: the reply as a whole has a problem (see issues)"
    } else {
        "placed, but not written: another file was refused and salve writes all files or none (--partial writes the rest)"
    };
    for p in placed
        .iter_mut()
        .filter(|p| p.report.status == Status::Applied)
    {
        p.report.status = Status::Skipped;
        p.report.message = Some(why.to_owned());
    }
}
