//! `apply`: land a model's reply on a directory, all files or none.
//!
//! The steps, in order:
//! 1. Find the repository and the baseline commit (`--base`, default `HEAD`); an unknown
//!    revision is an [`Error`] before anything else happens.
//! 2. Read the edits from the [`Input`]: a reply's text ([`salve_patch::extract`]), one JSON
//!    value such as a tool call's arguments ([`salve_patch::extract_value`]), or edits already
//!    built. This is the only place the three differ. `reverse` turns each edit around.
//! 3. Guard every path the reply names. One rejected path refuses the whole reply, even under
//!    `partial`: a reply that reaches for `.git/hooks` or `../` is not trusted with anything.
//! 4. Gather the edits per file (`plan`), then place each file in memory (`file`): resolve
//!    the path, read the text, fetch the baseline blob when it differs, run the applier, and
//!    refuse a file the edit leaves unparsable (`syntax`).
//! 5. Decide: any refusal (or a parse issue that names no file) writes nothing, unless
//!    `partial`, which writes the files that placed. `check` writes nothing in any case.
//! 6. Write through a [`Transaction`]: every file or none, after the checkpoint.
//!
//! The run is recorded ([`crate::record::Recorder`]) beside all of this, started on another
//! thread and finished with the outcome or the error.

mod change;
mod control;
mod counts;
mod diff;
mod edit_syntax;
mod endings;
mod error;
mod file;
mod input;
mod load;
mod plan;
mod printed;
mod repository;
mod step;
mod stop;
mod syntax;
mod whole_target;

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use salve_patch::{Extraction, FileEdit, IssueKind, ParseIssue};

use salve_patch::{Outcome as ReportOutcome, Report, Status};

pub use error::Error;
pub use input::Input;
pub use printed::Printed;
use serde::Serialize;

use crate::paths::canonical_root;
use crate::record::{Applied, Recorder};
use crate::transaction::{Transaction, TEMP_PREFIX};
use file::{place, Placed};
use plan::{group, guard_all, Guard};
use repository::Repository;
use salve_concurrent::both;
use step::Ctx;

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
    /// Use the baseline commit: the 3-way rung, and whole files merged as changes from it.
    /// Off for a caller whose edits were written against the files as they are now (an agent
    /// over MCP read the work tree, not `HEAD`): every edit is then placed on the work tree.
    pub three_way: bool,
    /// Files larger than this many bytes stop the apply with [`Error::FileTooLarge`].
    pub max_file_size: u64,
    /// In a git repository, take a checkpoint (logged for undo) before writing.
    pub checkpoint: bool,
    /// The operation named in the undo log for that checkpoint (`apply`, `ask`, `fix`).
    pub operation: String,
    /// For an undo that reverts an earlier change: the checkpoint logged before that change,
    /// logged with this one so later undos know it was taken back.
    pub undoes: Option<String>,
    /// Record the run (the reply, the report, the diff that landed, the decisions) where a
    /// record is kept. The unified diff is then also in [`Outcome::diff`].
    pub record: bool,
    /// The command line, for the record; empty records `salve <operation>`.
    pub command: Vec<String>,
    /// Render the unified diff of the change into [`Outcome::diff`] even when the run is not
    /// recorded (to show what a check would write).
    pub show_diff: bool,
    /// Refuse a file that parsed cleanly before and would not after the edit (status
    /// `syntax`); see `salve_syntax` for the languages and rules. On by default.
    pub syntax_check: bool,
    /// A stop asked for this call (a server's cancelled request), besides the process's own.
    pub cancel: crate::interrupt::Cancel,
    /// Write a whole file whose new content is one stretch of the old one (its beginning, its
    /// end or a middle part) with the rest left out. By default such content is a reply cut
    /// short and is refused with status `truncated`; this confirms the deletion is meant.
    pub allow_shrink: bool,
}

impl Options {
    /// Apply to `dir` with the defaults: all or nothing, checkpointed and recorded.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Options {
            dir: dir.into(),
            check: false,
            partial: false,
            base: None,
            reverse: false,
            three_way: true,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            checkpoint: true,
            operation: "apply".to_owned(),
            undoes: None,
            record: true,
            command: Vec::new(),
            show_diff: false,
            syntax_check: true,
            cancel: crate::interrupt::Cancel::default(),
            allow_shrink: false,
        }
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::new(".")
    }
}

/// What an apply did.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// Every file and hunk: where it landed, or why not.
    pub report: Report,
    /// The files written, created or deleted, relative to the work tree. Empty under `check`
    /// and when refused.
    pub written: Vec<PathBuf>,
    /// The baseline commit used for 3-way placement, when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// The checkpoint taken before writing, when one was: undo reverts the apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<String>,
    /// Why files were written without a checkpoint that was asked for, so nobody counts on an
    /// undo that cannot happen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_checkpoint: Option<NoCheckpoint>,
    /// With [`Options::record`] or [`Options::show_diff`]: the unified diff of what was
    /// written, or would be under `check`. Empty when refused or when nothing changes.
    #[serde(skip)]
    pub diff: String,
    /// The run in the record, when one was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Why the run could not be recorded (the apply itself is not affected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_error: Option<String>,
}

/// Why an apply that wrote files took no checkpoint, though one was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoCheckpoint {
    /// The directory is not in a git repository, where checkpoints live.
    NotARepository,
}

impl Outcome {
    fn refused(report: Report, baseline: Option<String>) -> Outcome {
        Outcome {
            report,
            written: Vec::new(),
            baseline,
            checkpoint: None,
            no_checkpoint: None,
            diff: String::new(),
            run: None,
            record_error: None,
        }
    }
}

/// Candidates less similar than this to what the reply quoted are noise to a reader (a model
/// correcting its edit, a person): they are left out of reports.
pub const MIN_CANDIDATE_SIMILARITY: f64 = 0.3;

/// Drop candidates below [`MIN_CANDIDATE_SIMILARITY`] from every hunk of `report`, then bound
/// what is left ([`Report::limit_details`]): the CLI, the MCP result and a repair prompt all
/// show this report, and none can use megabytes of it.
fn drop_noise(report: &mut Report) {
    for file in &mut report.files {
        for hunk in &mut file.hunks {
            hunk.candidates
                .retain(|c| c.score >= MIN_CANDIDATE_SIMILARITY);
        }
    }
    report.limit_details();
}

/// Apply `input` (a reply's text, a JSON value, or edits already built) to `options.dir`, and
/// record the run. Refusals are reported in the outcome; only problems that stop the apply from
/// running or from finishing its writes are errors.
pub fn apply<'a>(input: impl Into<Input<'a>>, options: &Options) -> Result<Outcome, Error> {
    let input = input.into();
    // Ctrl-C from here on waits for a safe point: before the writes (nothing written, the run
    // recorded `interrupted`) or after them (written, recorded and undoable). Exiting at once
    // could leave files written with the run unfinished, or a run that says nothing happened.
    let _guard = (!options.check).then(crate::interrupt::guard);
    if !options.record {
        return place_and_write(input, options).map(|mut o| {
            drop_noise(&mut o.report);
            o
        });
    }
    // Opening the record costs about as much as a small apply and does not depend on it: the
    // run is started on another thread meanwhile.
    let recorded_text = input.text_for_record();
    let (started, result) = both(
        || Recorder::start_with_reply(&options.dir, &new_run(options), &recorded_text),
        || place_and_write(input, options),
    );
    let recorded = started.and_then(|r| match (r, &result) {
        (None, _) => Ok(None),
        (Some(r), Ok(o)) => finish_record(r, o).map(Some),
        (Some(r), Err(e)) if e.is_interrupted() => r.interrupted(&e.to_string()).map(Some),
        (Some(r), Err(e)) => r.fail(&e.to_string()).map(Some),
    });
    let result = result.map(|mut o| {
        drop_noise(&mut o.report);
        o
    });
    result.map(|mut outcome| {
        match recorded {
            Ok(run) => outcome.run = run,
            Err(e) => {
                let hint = e.hint().map(|h| format!(" ({h})")).unwrap_or_default();
                outcome.record_error = Some(format!("{e}{hint}"));
            }
        }
        outcome
    })
}

/// The run to record. A file size limit other than the default is kept with it, so that
/// `salve undo` reads the files this apply wrote under the same limit.
fn new_run(options: &Options) -> salve_store::NewRun {
    let mut new = salve_store::NewRun::new(salve_store::RunKind::Apply, command_line(options));
    if options.max_file_size != DEFAULT_MAX_FILE_SIZE {
        new.budgets = Some(serde_json::json!({ MAX_FILE_SIZE_KEY: options.max_file_size }));
    }
    new
}

/// Where a run's budgets keep the file size limit it ran with.
pub(crate) const MAX_FILE_SIZE_KEY: &str = "max_file_size";

fn command_line(options: &Options) -> Vec<String> {
    if options.command.is_empty() {
        vec!["salve".to_owned(), options.operation.clone()]
    } else {
        options.command.clone()
    }
}

fn finish_record(recorder: Recorder, outcome: &Outcome) -> Result<String, salve_store::StoreError> {
    recorder.finish_applied(
        &Applied {
            report: &outcome.report,
            diff: &outcome.diff,
            baseline: outcome.baseline.as_deref(),
            suffix: "",
            rationale: None,
        },
        outcome.checkpoint.as_deref(),
    )
}

/// Steps 1 to 6 of the module docs.
fn place_and_write(input: Input<'_>, options: &Options) -> Result<Outcome, Error> {
    let root = canonical_root(&options.dir).map_err(|source| Error::Dir {
        path: options.dir.clone(),
        source,
    })?;
    // One writer at a time, from before the files are read until they are written.
    let lock = if options.check {
        None
    } else {
        Some(crate::lock::acquire(&root, crate::lock::DEFAULT_WAIT)?)
    };
    let waited = lock.as_ref().and_then(|l| l.waited);
    let checkpoint_options = checkpoint_options(options);
    std::thread::scope(|scope| {
        // 1. Finding the repository and the baseline runs git in child processes: it goes on
        //    while the reply is read and the files are placed. Git's errors still come first.
        let repository = Repository::start(scope, &root, options);
        // The reply's syntax lines, for the check on what is written (reversed, an edit writes
        // what the reply removed: the old file's text).
        let reply_syntax = input.syntax().filter(|_| !options.reverse);
        // 2, 3 and the grouping of 4.
        let Prepared {
            mut report,
            issues,
            plans,
            unmatched,
        } = match prepare(input.read(), options, &root) {
            Ready::Refused(report) => {
                let (_, baseline) = repository.finish()?;
                let baseline = baseline.map(|b| b.commit().to_owned());
                return Ok(Outcome::refused(report, baseline));
            }
            Ready::Plans(prepared) => prepared,
        };
        // 4. Place every file. The checkpoint's snapshot (hashing every changed file) is the
        //    slowest step of a default apply: it is taken meanwhile, and only made a checkpoint
        //    if something is written.
        let writing_repo = (!options.check && !plans.is_empty())
            .then(|| repository.git().map(|git| git.repo.clone()))
            .flatten();
        let snapshot_repo = writing_repo.as_ref().filter(|_| options.checkpoint);
        // Every file the reply may overwrite or delete is captured, even one the checkpoint
        // would skip (a large or ignored file): undo must be able to bring it back.
        let checkpoint_options = match snapshot_repo {
            Some(repo) => salve_git::checkpoint::create::Options {
                force_paths: plans
                    .iter()
                    .filter(|p| p.target.real.is_file())
                    .filter_map(|p| p.target.real.strip_prefix(&repo.root).ok())
                    .map(PathBuf::from)
                    .collect(),
                ..checkpoint_options.clone()
            },
            None => checkpoint_options.clone(),
        };
        let (snapshot, placed) = both(
            || {
                // Killed applies' temporary files anywhere in the tree go, so they are not
                // clutter for long. The checkpoint leaves them out by name, and its listing of
                // untracked files names them: no second listing is needed.
                let taken = snapshot_repo
                    .map(|repo| salve_git::checkpoint::create::snapshot(repo, &checkpoint_options));
                match (&writing_repo, &taken) {
                    (Some(repo), Some(Ok(snapshot))) => {
                        let found = snapshot.skipped_by_name().iter().map(|p| repo.root.join(p));
                        crate::transaction::sweep_files(found);
                    }
                    (Some(repo), _) => {
                        repository::sweep_untracked_leftovers(repo);
                    }
                    (None, _) => {}
                }
                taken
            },
            || place_all(&root, &repository, options, plans, reply_syntax),
        );
        let (git, baseline) = repository.finish()?;
        let mut placed = placed?;
        if let Some(waited) = waited {
            report.notes.push(format!(
                "waited {:.1}s for another salve command writing in this work tree; the files \
                 were read after it finished",
                waited.as_secs_f64()
            ));
        }
        let baseline_id = baseline.as_ref().map(|b| b.commit().to_owned());
        report
            .issues
            .extend(placed.iter().filter_map(|p| p.issue.clone()));

        // 5. Decide. A parse issue naming no path, or naming a file the reply has no edit for,
        //    is a refusal that no file report carries.
        let whole_reply_issue = issues.iter().any(|i| i.path.is_none());
        let refusals = placed.iter().filter(|p| !p.ok()).count() + unmatched.len();
        let write_any = !whole_reply_issue && (refusals == 0 || options.partial);
        if !write_any {
            skip_placed(&mut placed, whole_reply_issue);
            report.files = placed.into_iter().map(|p| p.report).collect();
            return Ok(Outcome::refused(report, baseline_id));
        }
        // Read before the write: the diff needs the text each file had.
        let diff = if options.record || options.show_diff {
            diff::render(&root, &placed)
        } else {
            String::new()
        };
        let counted = !diff.is_empty();

        // 6. Write, after the checkpoint.
        let git_repo = git.as_ref().map(|g| &g.repo);
        let (written, checkpoint) = write(
            &root,
            &mut placed,
            options,
            git_repo,
            snapshot,
            &checkpoint_options,
        )?;
        let no_checkpoint =
            (checkpoint.is_none() && options.checkpoint && git.is_none() && !written.is_empty())
                .then_some(NoCheckpoint::NotARepository);
        if !written.is_empty() && options.cancel.requested() {
            report.notes.push(
                "stopped by the user after the files were written: the change is in place"
                    .to_owned(),
            );
        }
        report.outcome = verdict(&placed, refusals);
        report.files = placed.into_iter().map(|p| p.report).collect();
        if counted {
            counts::recount(&mut report, &diff);
        }
        Ok(Outcome {
            report,
            written,
            baseline: baseline_id,
            checkpoint,
            no_checkpoint,
            diff,
            run: None,
            record_error: None,
        })
    })
}

fn checkpoint_options(options: &Options) -> salve_git::checkpoint::create::Options {
    salve_git::checkpoint::create::Options {
        message: Some(format!("before salve {}", options.operation)),
        operation: Some(options.operation.clone()),
        undoes: options.undoes.clone(),
        // Taken while files are placed, the snapshot may run before a killed earlier apply's
        // temporary files are swept: it must not capture them for undo to bring back.
        skip_name_prefixes: vec![TEMP_PREFIX.to_owned()],
        ..Default::default()
    }
}

/// Step 4: place each file's plan in memory.
fn place_all(
    root: &Path,
    repository: &Repository<'_, '_>,
    options: &Options,
    plans: Vec<plan::FilePlan>,
    reply_syntax: Option<salve_patch::ReplySyntax>,
) -> Result<Vec<Placed>, Error> {
    let ctx = Ctx {
        reply_syntax,
        root,
        repository,
        max_file_size: options.max_file_size,
        syntax_check: options.syntax_check,
        allow_shrink: options.allow_shrink,
        files: OnceCell::new(),
    };
    plans.into_iter().map(|plan| place(&ctx, plan)).collect()
}

type SnapshotResult =
    Option<Result<salve_git::checkpoint::create::Snapshot, salve_git::checkpoint::create::Error>>;

/// Step 6: take the checkpoint (from the snapshot taken while placing) and write every file
/// that placed through one transaction. Returns the paths written and the checkpoint id.
fn write(
    root: &Path,
    placed: &mut [Placed],
    options: &Options,
    repo: Option<&salve_git::Repo>,
    snapshot: SnapshotResult,
    checkpoint_options: &salve_git::checkpoint::create::Options,
) -> Result<(Vec<PathBuf>, Option<String>), Error> {
    // The ops move into the transaction: a copy of every new file text costs as much as
    // writing it, and only the reports are needed past this point.
    let mut tx = Transaction::within(root).with_cancel(options.cancel.clone());
    for p in placed.iter_mut().filter(|p| p.ok()) {
        for op in p.ops.drain(..) {
            tx.push(op);
        }
    }
    if options.check || tx.is_empty() {
        return Ok((Vec::new(), None));
    }
    // A killed earlier apply may have left temp files; clear them before the checkpoint is
    // published, as the write would.
    tx.sweep_leftovers();
    // Stopped before writing: no checkpoint either, so undo has nothing of this apply to revert.
    if options.cancel.requested() {
        return Err(Error::Write(
            crate::transaction::interrupted_before_writing(root),
        ));
    }
    let mut checkpoint = None;
    if let (true, Some(repo)) = (options.checkpoint, repo) {
        let snapshot = match snapshot {
            Some(taken) => taken?,
            None => salve_git::checkpoint::create::snapshot(repo, checkpoint_options)?,
        };
        // Undo must be able to bring back every file it overwrites (a sparse checkout's file
        // git would not add, say): otherwise refuse before writing.
        let targets = &checkpoint_options.force_paths;
        let missing = salve_git::checkpoint::create::not_held(repo, &snapshot, targets)?;
        if !missing.is_empty() {
            let shown = missing.iter().map(|p| p.to_string_lossy().into_owned());
            return Err(Error::NotCheckpointable(shown.collect()));
        }
        checkpoint = Some(snapshot.publish(repo, checkpoint_options)?.id);
    }
    let written = tx
        .commit()?
        .into_iter()
        .map(|p| p.strip_prefix(root).map(PathBuf::from).unwrap_or(p))
        .collect();
    Ok((written, checkpoint))
}

/// The report's outcome once the files are written.
fn verdict(placed: &[Placed], refusals: usize) -> ReportOutcome {
    let successes = placed.iter().filter(|p| p.ok()).count();
    if refusals > 0 {
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
    }
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
fn prepare(extraction: Extraction, options: &Options, root: &Path) -> Ready {
    let mut edits: Vec<FileEdit> = if options.reverse {
        extraction.edits.iter().map(FileEdit::reversed).collect()
    } else {
        extraction.edits
    };
    let mut issues = extraction.issues;
    if !options.reverse {
        for bare in extraction.bare_named {
            // Beside other edits of the file, the block may be the file quoted: not taken.
            let alone = !edits.iter().any(|e| e.path == bare.edit.path);
            let sure = if bare.loose {
                whole_target::loose_path_is_sure(root, &bare.edit, &edits)
            } else {
                whole_target::bare_name_is_sure(root, &bare.edit)
            };
            if alone && sure {
                issues.retain(|i| *i != bare.issue);
                edits.push(bare.edit);
            }
        }
    }
    if !edits.is_empty() {
        // A block the work tree confirmed is an edit after all.
        issues.retain(|i| i.kind != IssueKind::NoEdit);
    }
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
        details_omitted: 0,
    };
    let guarded = match guard_all(root, edits, &issues) {
        Guard::Ok(guarded) => guarded,
        Guard::Rejected(files, extra) => {
            report.files = files;
            report.issues.extend(extra);
            return Ready::Refused(report);
        }
    };
    let (mut plans, unmatched) = group(root, guarded, &issues);
    for plan in &mut plans {
        plan.rest_unchanged = extraction.rest_unchanged.contains(&plan.raw);
    }
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
        "placed, but not written: another file was refused and salve writes all files or none"
    };
    for p in placed
        .iter_mut()
        .filter(|p| p.report.status == Status::Applied)
    {
        p.report.status = Status::Skipped;
        p.report.message = Some(why.to_owned());
    }
}
