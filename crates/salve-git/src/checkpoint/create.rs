//! Take a checkpoint: snapshot the work tree and the staged state into the catalog.
//!
//! Both trees are what git would build: `write-tree` of the user's index (the staged state),
//! and `add -A` + `write-tree` on a copy of it (the work tree: every change and untracked,
//! non-ignored file, minus the skips the scan chose). Where git would store every file's bytes
//! unchanged they are built in process (`inproc`), reusing the index's stat cache; elsewhere
//! through a temporary index that starts as a copy of the user's, so git's stat cache spares
//! re-hashing unchanged files too. The checkpoint's commit (salve's own identity, HEAD as
//! parent, the meta as message) is written in process, and publishing adds the checkpoint to
//! the catalog. The user's index, HEAD and files are never written.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::checkpoint::meta::Meta;
use crate::checkpoint::private::{self, Kept};
use crate::checkpoint::scan::{self, Scan};
use crate::checkpoint::{catalog, inproc, raw, short_id};
use crate::cmd::GitError;
use crate::odb::{commit_content, Kind, Odb};
use crate::oplog;
use crate::path::{exclude_pathspec, literal_pathspec, nul_terminated};
use crate::repo::{has_unmerged, Head, Repo};
use crate::tempindex::TempIndex;
use salve_concurrent::both;

pub use super::options::{Limits, Options, SkipReason, Skipped, IDENTITY_EMAIL, IDENTITY_NAME};

#[derive(Clone, Debug)]
pub struct Outcome {
    /// The short id users type.
    pub id: String,
    pub commit: String,
    /// The work tree's tree.
    pub tree: String,
    /// The staged state's tree, or `None` when the index had unresolved conflicts.
    pub index_tree: Option<String>,
    pub head: Head,
    pub skipped: Vec<Skipped>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Git(#[from] GitError),
}

/// Snapshot the work tree and the staged state of `repo`; see the module docs.
pub fn create(repo: &Repo, options: &Options) -> Result<Outcome, Error> {
    snapshot(repo, options)?.publish(repo, options)
}

/// A checkpoint's objects, written but not referenced yet: nothing lists it, `salve undo`
/// does not know it, and dropping it leaves only unreachable objects for git's gc. Taking the
/// snapshot is the slow part (every changed file is hashed); a caller can take it while it
/// works out whether it will write at all, and [`Snapshot::publish`] it only then.
#[derive(Clone, Debug)]
pub struct Snapshot {
    commit: String,
    meta: Meta,
    tree: String,
    index_tree: Option<String>,
    head: Head,
    skipped: Vec<Skipped>,
    /// Ignored files it holds, kept in salve's private store on publish, never in a tree.
    ignored: Vec<Kept>,
    /// Files its tree holds as their bytes on disk rather than git's form (see `raw`).
    raw_paths: Vec<PathBuf>,
    /// Where the tree was built in process: the forced paths asked for (those ignored
    /// included), and those the tree holds. [`not_held`] then needs no git.
    held: Option<(Vec<PathBuf>, Vec<PathBuf>)>,
    /// Untracked files whose name has one of the skipped prefixes: left out of the tree.
    leftovers: Vec<PathBuf>,
    /// Its new objects, kept in memory until [`Snapshot::publish`] writes them in one pack
    /// with the catalog's (or [`Snapshot::write_objects`] does, for a caller that shows the
    /// tree to git first). A snapshot dropped unpublished leaves nothing behind.
    objects: Queued,
}

/// Objects not written yet, shared by a snapshot's clones (whichever writes them first).
#[derive(Clone, Default)]
struct Queued(Arc<Mutex<Vec<crate::pack::Object>>>);

impl Queued {
    fn take(&self) -> Vec<crate::pack::Object> {
        self.0
            .lock()
            .map(|mut q| std::mem::take(&mut *q))
            .unwrap_or_default()
    }
}

impl std::fmt::Debug for Queued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.0.lock().map_or(0, |q| q.len());
        write!(f, "Queued({count} objects)")
    }
}

/// The objects of a checkpoint of `repo` as it is now; see [`Snapshot`].
///
/// The untracked scan (in process where `crate::untracked` models git's rules, else a git
/// process) runs beside the read of HEAD. The trees are built in
/// process where that gives git's bytes (see `inproc`), else through a temporary index as the
/// module docs say.
pub fn snapshot(repo: &Repo, options: &Options) -> Result<Snapshot, Error> {
    let (head, scan) = both(|| repo.head(), || scan::untracked(repo, &options.limits));
    let head = head?;
    let scan = scan?;
    let index = crate::index::read(&repo.index_path()?);
    // Ignored files asked for go to salve's private store, not into the tree (see `private`).
    // A tracked file is never ignored: git is asked only about the others.
    let ignored_paths =
        private::ignored_among(repo, &untracked_among(index.as_ref(), &options.force_paths))?;
    let ignored = private::read(&repo.root, &ignored_paths);
    let asked = options.force_paths.clone();
    let options = &Options {
        force_paths: options
            .force_paths
            .iter()
            .filter(|p| !ignored_paths.contains(p))
            .cloned()
            .collect(),
        ..options.clone()
    };
    let mut raw_paths = Vec::new();
    let mut held = None;
    let odb = Odb::batch(repo, Vec::new())?;
    let (tree, index_tree) = match inproc::trees(repo, &odb, &scan, options, index.as_ref())? {
        Some(trees) => {
            held = Some(trees.held);
            (trees.tree, Some(trees.index_tree))
        }
        None => {
            let converts = raw::may_convert(repo)?;
            // The tree gets the bytes on disk anyway: no filter program needs to run (one
            // missing, as git-lfs may be, must not stop the checkpoint).
            let config = if converts {
                raw::filters_off(repo)?
            } else {
                Vec::new()
            };
            let (temp, index_tree) = staged(repo, &config)?;
            let mut tree = work_tree(&temp, &scan, options, (sparse(repo)?, &config))?;
            // The bytes on disk, where git would have stored a conversion of them (see `raw`).
            if converts {
                raw_paths = raw::rehash(repo, || temp.git().args(&config))?;
                if !raw_paths.is_empty() {
                    tree = temp.git().args(&config).arg("write-tree").run()?;
                }
            }
            (tree, index_tree)
        }
    };

    let meta = Meta {
        message: options.message.clone().unwrap_or_default(),
        head: head.commit.clone(),
        branch: head.branch.clone(),
        index: index_tree.clone(),
        worktree: Some(repo.root.to_string_lossy().into_owned()),
        skipped: scan.skipped.len(),
        tree: Some(tree.clone()),
        time: Some(catalog::now(repo)),
        nanos: Some(catalog::subsec_nanos()),
    };
    let leftovers = scan.named(&options.skip_name_prefixes);
    let parents: Vec<&str> = head.commit.iter().map(String::as_str).collect();
    let content = commit_content(&tree, &parents, meta.time.unwrap_or(0), &meta.render());
    let commit = odb.write(Kind::Commit, &content)?;
    Ok(Snapshot {
        objects: Queued(Arc::new(Mutex::new(odb.take_pending()))),
        commit,
        meta,
        tree,
        index_tree,
        head,
        skipped: scan.skipped,
        ignored,
        raw_paths,
        held: held.map(|held| (asked, held)),
        leftovers,
    })
}

/// Those of `paths` that `index` does not list (all of them when it could not be read).
fn untracked_among(index: Option<&crate::index::Index>, paths: &[PathBuf]) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt as _;
    let Some(index) = index else {
        return paths.to_vec();
    };
    let tracked: std::collections::HashSet<&[u8]> =
        index.entries.iter().map(|e| e.path.as_slice()).collect();
    paths
        .iter()
        .filter(|p| !tracked.contains(p.as_os_str().as_bytes()))
        .cloned()
        .collect()
}

/// The work tree's and the staged state's trees as [`snapshot`] builds them in process, or
/// `None` where it leaves them to git (see `inproc`). For comparing with git's own.
pub fn in_process_trees(repo: &Repo, options: &Options) -> Result<Option<(String, String)>, Error> {
    let scan = scan::untracked(repo, &options.limits)?;
    let index = crate::index::read(&repo.index_path()?);
    let odb = Odb::open(repo)?;
    Ok(inproc::trees(repo, &odb, &scan, options, index.as_ref())?.map(|t| (t.tree, t.index_tree)))
}

/// The temporary index (a copy of the user's) and the staged state's tree, which is `None`
/// when the index has unresolved conflicts.
fn staged(repo: &Repo, config: &[String]) -> Result<(TempIndex, Option<String>), Error> {
    let temp = TempIndex::copy_of_user_index(repo)?;
    let index_tree = match temp.git().args(config).arg("write-tree").run() {
        Ok(tree) => Some(tree),
        // Conflicted entries have no tree form; the work tree is still captured.
        Err(_) if has_unmerged(temp.git())? => None,
        Err(e) => return Err(e.into()),
    };
    Ok((temp, index_tree))
}

/// Bring every change and untracked, non-ignored file (minus the scan's skips and the
/// skipped name prefixes, plus the forced paths) into `temp`, and return its tree.
/// In a sparse checkout (`sparse`), files outside the cone are taken too: a reply may have
/// written one, and undo must see it. `config` goes before git's subcommand (`-c` pairs).
fn work_tree(
    temp: &TempIndex,
    scan: &Scan,
    options: &Options,
    (sparse, config): (bool, &[String]),
) -> Result<String, Error> {
    let sparse_flag: &[&str] = if sparse { &["--sparse"] } else { &[] };
    let mut add = temp
        .git()
        .args(config)
        .args(["add", "-A"])
        .args(sparse_flag);
    let skipped_names = options
        .skip_name_prefixes
        .iter()
        .map(|p| format!(":(exclude,glob)**/{}*", glob_escape(p)).into_bytes());
    let excludes: Vec<Vec<u8>> = scan
        .excludes
        .iter()
        .map(|p| exclude_pathspec(p))
        .chain(skipped_names)
        .collect();
    if !excludes.is_empty() {
        let specs = nul_terminated(excludes);
        add = add
            .args(["--pathspec-from-file=-", "--pathspec-file-nul"])
            .stdin(specs);
    }
    add.run_bytes()?;
    if !options.force_paths.is_empty() {
        let specs = nul_terminated(options.force_paths.iter().map(|p| literal_pathspec(p)));
        temp.git()
            .args(config)
            .args(["add", "-f", "--pathspec-from-file=-", "--pathspec-file-nul"])
            .args(sparse_flag)
            .stdin(specs)
            .run_bytes()?;
    }
    Ok(temp.git().args(config).arg("write-tree").run()?)
}

/// True in a sparse checkout where git knows `add --sparse` (2.35 and later; older ones
/// refuse files outside the cone, and the checkpoint fails with git's own message).
fn sparse(repo: &Repo) -> Result<bool, Error> {
    let out = repo
        .git()
        .args(["config", "--bool", "core.sparseCheckout"])
        .output()?;
    let on = String::from_utf8_lossy(&out.stdout).trim() == "true";
    Ok(on && crate::cmd::git_version().is_ok_and(|v| (v.0, v.1) >= (2, 35)))
}

/// The paths among `paths` (relative, existing files) that the snapshot does not hold: in
/// neither its tree nor salve's private store. Undo could not bring their bytes back.
pub fn not_held(
    repo: &Repo,
    snapshot: &Snapshot,
    paths: &[PathBuf],
) -> Result<Vec<PathBuf>, Error> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let ignored = || snapshot.ignored.iter().map(|k| &k.path);
    if let Some((asked, held)) = &snapshot.held {
        if paths.iter().all(|p| asked.contains(p)) {
            return Ok(paths
                .iter()
                .filter(|p| !held.contains(p) && !ignored().any(|i| i == *p))
                .cloned()
                .collect());
        }
    }
    snapshot.write_objects(repo)?;
    // ls-tree takes paths, not pathspecs: each names itself literally.
    let listed = repo
        .git()
        .args(["ls-tree", "-r", "-z", "--name-only", "--full-tree"])
        .arg(&snapshot.tree)
        .arg("--")
        .args(paths)
        .output()?;
    let held: Vec<PathBuf> = crate::cmd::split_nul(&listed.stdout)
        .filter(|p| !p.is_empty())
        .map(crate::path::path_from_bytes)
        .chain(snapshot.ignored.iter().map(|k| k.path.clone()))
        .collect();
    Ok(paths
        .iter()
        .filter(|p| !held.contains(p))
        .cloned()
        .collect())
}

/// `*`, `?`, `[` and `\` in a name, escaped for a glob pathspec.
fn glob_escape(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '*' | '?' | '[' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl Snapshot {
    /// The work tree's tree as the snapshot holds it. Its objects may still be in memory:
    /// call [`Snapshot::write_objects`] before handing the id to git.
    pub fn tree(&self) -> &str {
        &self.tree
    }

    /// Write the snapshot's new objects (one pack) without publishing it: git can then read
    /// its trees, and nothing names them yet (git's gc drops them if it is never published).
    pub fn write_objects(&self, repo: &Repo) -> Result<(), Error> {
        let queued = self.objects.take();
        if queued.is_empty() {
            return Ok(());
        }
        Ok(Odb::batch(repo, queued)?.flush()?)
    }

    /// The untracked, non-ignored files (relative to the root) that it left out because their
    /// name starts with one of [`Options::skip_name_prefixes`]: a caller that skips its own
    /// temporary files learns where they are without listing the tree again.
    pub fn skipped_by_name(&self) -> &[PathBuf] {
        &self.leftovers
    }

    /// Make the snapshot a checkpoint: its catalog entry, and the undo log entry when
    /// [`Options::operation`] is set.
    pub fn publish(self, repo: &Repo, options: &Options) -> Result<Outcome, Error> {
        let Snapshot {
            commit,
            meta,
            tree,
            index_tree,
            head,
            skipped,
            ignored,
            raw_paths,
            held: _,
            leftovers: _,
            objects,
        } = self;
        private::save(repo, &commit, &ignored)?;
        raw::save_list(repo, &commit, &raw_paths)?;
        let odb = Odb::batch(repo, objects.take())?;
        catalog::add(repo, &odb, &commit, &meta)?;
        if let Some(operation) = &options.operation {
            oplog::record(repo, operation, &commit, options.undoes.as_deref())?;
        }
        Ok(Outcome {
            id: short_id(&commit),
            commit,
            tree,
            index_tree,
            head,
            skipped,
        })
    }
}
