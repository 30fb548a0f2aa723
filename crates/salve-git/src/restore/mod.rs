//! Bring a checkpoint back: its files, its staged state, undoably.
//!
//! 1. Refuse while a merge, rebase, cherry-pick, revert or `am` is under way, or while the index
//!    has conflicts: those states live in files a restore cannot reason about.
//! 2. Checkpoint the current state, so the restore itself can be undone.
//! 3. Plan from the difference between that snapshot and the target (see `plan`); stop before
//!    touching anything if something on disk is in the way.
//! 4. Delete the paths the current snapshot has and the target lacks, then write the target's
//!    changed files with `checkout-index` (so line-ending conversion, exec bits and symlinks are
//!    git's own), from a temporary index that holds only those entries.
//! 5. Put the staged state back: rewrite only the index entries that differ from the target's
//!    index tree, keeping the stat data of the others.
//!
//! HEAD and branches are never moved; a restore across a commit says so in its outcome.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::checkpoint::{self, Checkpoint, FindError};
use crate::cmd::{split_nul, GitError};
use crate::lock::{wait_until_unlocked, with_index_lock, DEFAULT_LOCK_WAIT};
use crate::oplog;
use crate::path::nul_list;
use crate::repo::Repo;
use crate::tempindex::TempIndex;

mod plan;

pub use plan::{Conflict, ConflictKind};

#[derive(Clone, Debug)]
pub struct Options {
    /// Limits for the checkpoint taken first.
    pub limits: checkpoint::create::Limits,
    /// How the restore is logged for undo (`restore`, `undo`).
    pub operation: String,
    /// How long to wait for another git process's `index.lock`.
    pub lock_wait: Duration,
    /// An uncaptured file the restore would overwrite is captured first up to this size
    /// (`None`: the checkpoint's own file limit); a larger one blocks the restore.
    pub max_capture_bytes: Option<u64>,
    /// Ignored files the restore must bring to the target's state too (those an undone change
    /// wrote): captured first, and deleted when the target holds none.
    pub ignored_paths: Vec<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limits: checkpoint::create::Limits::default(),
            operation: "restore".to_owned(),
            lock_wait: DEFAULT_LOCK_WAIT,
            max_capture_bytes: None,
            ignored_paths: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Outcome {
    /// The checkpoint brought back.
    pub target: Checkpoint,
    /// The checkpoint of the state just before the restore (restore it to undo).
    pub before: checkpoint::create::Outcome,
    /// Paths written, relative to the work tree root.
    pub written: Vec<PathBuf>,
    /// Paths deleted.
    pub deleted: Vec<PathBuf>,
    /// Ignored or otherwise uncaptured files that were overwritten after being saved in `before`.
    pub captured: Vec<PathBuf>,
    /// False when the target recorded no staged state (its index was conflicted).
    pub index_restored: bool,
    /// HEAD now differs from the HEAD the target was taken on (HEAD is never moved).
    pub head_differs: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error(transparent)]
    Find(#[from] FindError),
    #[error("could not checkpoint the current state first: {0}")]
    Checkpoint(#[from] checkpoint::create::Error),
    #[error("a {0} is in progress; finish or abort it before restoring")]
    InProgress(&'static str),
    #[error("the index has unresolved conflicts; resolve them before restoring")]
    Unmerged,
    #[error(
        "nothing was changed: restoring would overwrite or remove files that no checkpoint \
         holds:\n  {}",
        .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  ")
    )]
    Blocked(Vec<Conflict>),
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Restore the checkpoint `spec` names (an id or unique prefix); see the module docs.
pub fn restore(repo: &Repo, spec: &str, options: &Options) -> Result<Outcome, Error> {
    let target = checkpoint::find(repo, spec)?;
    restore_checkpoint(repo, &target, options)
}

/// Restore an already resolved checkpoint (for example one the operation log names).
pub fn restore_checkpoint(
    repo: &Repo,
    target: &Checkpoint,
    options: &Options,
) -> Result<Outcome, Error> {
    if let Some(what) = repo.operation_in_progress()? {
        return Err(Error::InProgress(what));
    }
    if repo.has_unmerged_entries()? {
        return Err(Error::Unmerged);
    }
    let target_tree = target.tree.clone();
    // Ignored files the target holds are in salve's private store; the ones on disk now are
    // captured first, so the restore can be undone.
    let kept = checkpoint::private::load(repo, &target.commit)?;
    let kept_paths: Vec<PathBuf> = kept
        .iter()
        .map(|k| &k.path)
        .chain(&options.ignored_paths)
        .filter(|p| repo.root.join(p).is_file())
        .cloned()
        .collect();
    let (before, plan, captured) = checkpoint_and_plan(repo, target, options, &kept_paths)?;

    if target.index.is_some() {
        if let Err(e) = wait_until_unlocked(&repo.index_path()?, options.lock_wait) {
            discard(repo, &before.id);
            return Err(e.into());
        }
    }
    let mut deletes = plan.deletes.clone();
    deletes.extend(ignored_deletes(
        repo,
        options,
        (&kept, &target_tree),
        &before,
    )?);
    let deleted = delete_paths(&repo.root, &deletes)?;
    delete_paths(&repo.root, &plan.replaces)?;
    for dir in &plan.clear_dirs {
        remove_empty_tree(&repo.root.join(dir)).map_err(|source| Error::Io {
            path: dir.clone(),
            source,
        })?;
    }
    let raw_paths = checkpoint::raw::load_list(repo, &target.commit)?;
    write_paths(repo, &plan.writes, &raw_paths)?;
    let mut written: Vec<PathBuf> = plan.writes.into_iter().map(|c| c.path).collect();
    written.extend(put_back_all(&repo.root, &kept)?);

    let index_restored = match &target.index {
        Some(index) => {
            let index_tree = repo.tree_of(index)?;
            restore_index(repo, &index_tree, options.lock_wait)?;
            true
        }
        None => false,
    };
    oplog::record(
        repo,
        &options.operation,
        &before.commit,
        Some(&target.commit),
    )?;
    let head_differs = before.head.commit != target.head;
    Ok(Outcome {
        target: target.clone(),
        before,
        written,
        deleted,
        captured,
        index_restored,
        head_differs,
    })
}

/// Checkpoint the present (capturing `kept_paths` and, on a second pass, any file the plan
/// would overwrite that the first snapshot lacked), and plan the restore from it. Blocked when
/// something on disk is in the way; the checkpoint is dropped then.
fn checkpoint_and_plan(
    repo: &Repo,
    target: &Checkpoint,
    options: &Options,
    kept_paths: &[PathBuf],
) -> Result<(checkpoint::create::Outcome, plan::Plan, Vec<PathBuf>), Error> {
    let target_tree = target.tree.as_str();
    let mut create = checkpoint::create::Options {
        message: Some(format!("before {} {}", options.operation, target.id)),
        limits: options.limits.clone(),
        force_paths: kept_paths.to_vec(),
        ..Default::default()
    };
    let mut before = checkpoint::create(repo, &create)?;
    let capture_limit = options
        .max_capture_bytes
        .unwrap_or(options.limits.max_file_bytes);
    let mut plan = plan::plan(
        &repo.root,
        plan::changes(repo, &before.tree, target_tree)?,
        capture_limit,
    );
    let mut captured = Vec::new();
    if plan.conflicts.is_empty() && !plan.capture.is_empty() {
        // Save the files about to be overwritten, then plan again from that fuller snapshot.
        create.force_paths = kept_paths.iter().chain(&plan.capture).cloned().collect();
        let fuller = checkpoint::create(repo, &create)?;
        discard(repo, &before.id);
        before = fuller;
        captured = std::mem::take(&mut plan.capture);
        plan = plan::plan(
            &repo.root,
            plan::changes(repo, &before.tree, target_tree)?,
            capture_limit,
        );
        // Ignored ones were kept in salve's private store, not in the tree: captured all the same.
        plan.capture.retain(|p| !captured.contains(p));
    }
    if !plan.conflicts.is_empty() || !plan.capture.is_empty() {
        discard(repo, &before.id);
        let mut conflicts = plan.conflicts;
        conflicts.extend(plan.capture.into_iter().map(|path| Conflict {
            path,
            kind: ConflictKind::NotCapturable,
        }));
        return Err(Error::Blocked(conflicts));
    }

    Ok((before, plan, captured))
}

/// The ignored files asked for ([`Options::ignored_paths`]) that the target holds neither in
/// its tree nor in the private store (`kept`), and that `before` captured: deleted, undoably.
fn ignored_deletes(
    repo: &Repo,
    options: &Options,
    (kept, target_tree): (&[checkpoint::private::Kept], &str),
    before: &checkpoint::create::Outcome,
) -> Result<Vec<PathBuf>, Error> {
    if options.ignored_paths.is_empty() {
        return Ok(Vec::new());
    }
    let captured = checkpoint::private::load(repo, &before.commit)?;
    let mut deletes = Vec::new();
    for path in &options.ignored_paths {
        let held =
            kept.iter().any(|k| &k.path == path) || tree_entry(repo, target_tree, path)?.is_some();
        if !held && captured.iter().any(|k| &k.path == path) {
            deletes.push(path.clone());
        }
    }
    Ok(deletes)
}

/// Write back the ignored files the target keeps; the paths whose bytes changed.
fn put_back_all(root: &Path, kept: &[checkpoint::private::Kept]) -> Result<Vec<PathBuf>, Error> {
    let mut written = Vec::new();
    for file in kept {
        if checkpoint::private::put_back(root, file)? {
            written.push(file.path.clone());
        }
    }
    Ok(written)
}

/// Drop a checkpoint this restore took but no longer needs; failing to is harmless.
fn discard(repo: &Repo, id: &str) {
    let _ = checkpoint::drop(repo, &checkpoint::drop::Selection::Id(id.to_owned()));
}

fn delete_paths(root: &Path, paths: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut deleted = Vec::new();
    for path in paths {
        let full = root.join(path);
        match std::fs::symlink_metadata(&full) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            // The snapshot saw a file here; a directory now means the tree changed under us.
            Ok(meta) if meta.is_dir() => continue,
            _ => {}
        }
        match std::fs::remove_file(&full) {
            Ok(()) => deleted.push(path.clone()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(Error::Io {
                    path: path.clone(),
                    source,
                })
            }
        }
        // Directories emptied by the delete go too, as git does; a non-empty one stops the walk.
        let mut dir = full.parent();
        while let Some(d) = dir {
            if d == root || std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }
    Ok(deleted)
}

/// Remove a directory that holds only (possibly nested) empty directories.
fn remove_empty_tree(dir: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
        Ok(meta) if !meta.is_dir() => return Ok(()),
        Ok(_) => {}
    }
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            remove_empty_tree(&entry.path())?;
        }
    }
    std::fs::remove_dir(dir)
}

/// Write `changes` (target side) into the work tree through git's own checkout.
fn write_paths(
    repo: &Repo,
    changes: &[plan::Change],
    raw_paths: &[PathBuf],
) -> Result<(), GitError> {
    if changes.is_empty() {
        return Ok(());
    }
    // Files the checkpoint holds as their bytes on disk are written as they are (see `raw`);
    // git checks out the others, which give back those bytes.
    let (raw, changes): (Vec<&plan::Change>, Vec<&plan::Change>) =
        changes.iter().partition(|c| raw_paths.contains(&c.path));
    let blobs: Vec<checkpoint::raw::Blob<'_>> = raw
        .iter()
        .map(|c| checkpoint::raw::Blob {
            path: &c.path,
            mode: c.new_mode,
            oid: &c.new_oid,
        })
        .collect();
    checkpoint::raw::write(repo, &blobs)?;
    if changes.is_empty() {
        return Ok(());
    }
    // A filter program that is missing (git-lfs) must not stop the checkout: the blobs are
    // what was on disk.
    let config = if checkpoint::raw::may_convert(repo)? {
        checkpoint::raw::filters_off(repo)?
    } else {
        Vec::new()
    };
    let temp = TempIndex::empty(repo)?;
    let mut info = Vec::new();
    for change in changes {
        info.extend_from_slice(format!("{:o} {}\t", change.new_mode, change.new_oid).as_bytes());
        info.extend_from_slice(&nul_list([change.path.as_path()]));
    }
    temp.git()
        .args(["update-index", "-z", "--index-info"])
        .stdin(info)
        .run_bytes()?;
    temp.git()
        .args(&config)
        .args(["checkout-index", "-f", "-a"])
        .run_bytes()?;
    Ok(())
}

/// Make the user's index hold exactly `tree`. Only the entries that differ are rewritten
/// (`diff-index --cached` against the tree, then `update-index --index-info`), so the stat data
/// of every other entry is kept and git does not have to re-hash the tree afterwards.
fn restore_index(repo: &Repo, tree: &str, wait: Duration) -> Result<(), GitError> {
    let index = repo.index_path()?;
    with_index_lock(&index, wait, || {
        let diff = repo
            .git()
            .args(["diff-index", "--cached", "-z", "--no-renames", tree])
            .run_bytes()?;
        let info = index_info_towards_tree(&diff);
        if info.is_empty() {
            return Ok(Vec::new());
        }
        repo.git()
            .args(["update-index", "-z", "--index-info"])
            .stdin(info)
            .run_bytes()
    })?;
    Ok(())
}

/// `update-index --index-info` input that turns the index into the tree, from
/// `diff-index --cached <tree>` output, whose source side is the tree. An entry the tree lacks
/// gets mode 0, which removes it.
fn index_info_towards_tree(diff: &[u8]) -> Vec<u8> {
    let mut info = Vec::new();
    let mut records = split_nul(diff);
    while let Some(header) = records.next() {
        let Some(path) = records.next() else { break };
        let header = String::from_utf8_lossy(header);
        let mut fields = header.trim_start_matches(':').split(' ');
        let (Some(mode), Some(_), Some(oid)) = (fields.next(), fields.next(), fields.next()) else {
            continue;
        };
        info.extend_from_slice(format!("{mode} {oid}\t").as_bytes());
        info.extend_from_slice(path);
        info.push(0);
    }
    info
}

/// A file a restore was meant to bring back that still differs from the checkpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRestored {
    /// Relative to the work tree root.
    pub path: PathBuf,
    /// Why, in a few words.
    pub why: String,
}

/// The paths among `paths` whose bytes on disk are not what checkpoint `target` holds (a file
/// it lacks that is still there counts): what an undo that restored `target` failed to bring
/// back. Each with the reason, where one is known (a nested repository, a sparse checkout).
pub fn not_restored(
    repo: &Repo,
    target: &Checkpoint,
    paths: &[PathBuf],
) -> Result<Vec<NotRestored>, Error> {
    let kept = checkpoint::private::load(repo, &target.commit)?;
    let mut missing = Vec::new();
    for path in paths {
        let on_disk = repo.root.join(path);
        let exists = std::fs::symlink_metadata(&on_disk).is_ok();
        let expected = match kept.iter().find(|k| &k.path == path) {
            Some(k) => Some(checkpoint::private::blob_id(repo, &k.bytes)?),
            None => tree_entry(repo, &target.tree, path)?,
        };
        let matches = match (&expected, exists) {
            (None, false) => true,
            (Some(oid), true) => disk_blobs(repo, path)?.contains(oid),
            _ => false,
        };
        if !matches {
            missing.push(NotRestored {
                path: path.clone(),
                why: why_not(repo, path, expected.is_some(), exists),
            });
        }
    }
    Ok(missing)
}

fn why_not(repo: &Repo, path: &Path, expected: bool, exists: bool) -> String {
    let mut prefix = PathBuf::new();
    let parents: Vec<_> = path.components().collect();
    for part in parents.iter().take(parents.len().saturating_sub(1)) {
        prefix.push(part);
        if crate::repo::is_nested_repository(&repo.root.join(&prefix)) {
            return format!("it is inside the repository {}", prefix.display());
        }
    }
    let sparse = repo
        .git()
        .args(["config", "--bool", "core.sparseCheckout"])
        .run()
        .is_ok_and(|v| v == "true");
    let state = match (expected, exists) {
        (false, true) => "it is still there, though the checkpoint lacks it",
        (true, false) => "it is missing, though the checkpoint holds it",
        _ => "its content still differs from the checkpoint's",
    };
    if sparse {
        format!("{state} (a sparse checkout: the path may be outside its cone)")
    } else {
        state.to_owned()
    }
}

/// The blob id `path` has in `tree`, or `None`.
fn tree_entry(repo: &Repo, tree: &str, path: &Path) -> Result<Option<String>, GitError> {
    let out = repo
        .git()
        .args(["ls-tree", "-z", "--full-tree", tree, "--"])
        .arg(path)
        .run_bytes()?;
    let record = split_nul(&out).next().unwrap_or_default();
    let header = record.split(|b| *b == b'\t').next().unwrap_or_default();
    Ok(String::from_utf8_lossy(header)
        .split(' ')
        .nth(2)
        .map(str::to_owned))
}

/// The blob ids the file at `path` has as a checkpoint may store it: its bytes as they are,
/// and git's conversion of them.
fn disk_blobs(repo: &Repo, path: &Path) -> Result<Vec<String>, GitError> {
    let full = repo.root.join(path);
    if std::fs::symlink_metadata(&full).is_ok_and(|m| m.file_type().is_symlink()) {
        let target = std::fs::read_link(&full)
            .map_err(|e| GitError::io(format!("reading {}", full.display()), e))?;
        let id = checkpoint::private::blob_id(repo, &crate::path::path_to_bytes(&target))?;
        return Ok(vec![id]);
    }
    let raw = repo
        .git()
        .args(["hash-object", "--no-filters", "--"])
        .arg(path)
        .run()?;
    // git's conversion may need a filter program that is missing: the raw id must do then.
    let converted = repo.git().args(["hash-object", "--"]).arg(path).run().ok();
    Ok(std::iter::once(raw).chain(converted).collect())
}
