//! The repository around the work tree and the baseline commit, found on another thread while
//! the reply is read and the files are placed, and waited for only when something needs it.
//!
//! Finding them runs git in child processes; most applies never need the answer before they
//! write (the baseline is read only for the 3-way rung, the file list only to resolve a wrong
//! path). Git's errors still come first: [`Repository::finish`] is called before any outcome or
//! error is returned.

use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};
use std::thread::{Scope, ScopedJoinHandle};

use super::{Error, Options};
use crate::baseline::{Baseline, GitContext};

/// The repository, when the work tree is in one, and the baseline commit, when there is one.
pub(crate) type Found = (Option<GitContext>, Option<Baseline>);

type Lookup<'env> = Box<dyn FnOnce() -> Result<Found, Error> + 'env>;

enum Pending<'scope, 'env> {
    Thread(ScopedJoinHandle<'scope, Result<Found, Error>>),
    /// No thread could be started: looked up here on first use.
    Here(Lookup<'env>),
}

pub(crate) struct Repository<'scope, 'env> {
    pending: RefCell<Option<Pending<'scope, 'env>>>,
    found: OnceCell<Result<Found, Error>>,
}

impl<'scope, 'env> Repository<'scope, 'env> {
    /// Start looking for the repository around `root` (and `options.base` in it).
    pub(crate) fn start(
        scope: &'scope Scope<'scope, 'env>,
        root: &'env Path,
        options: &'env Options,
    ) -> Self {
        let find = move || {
            let (git, baseline) =
                crate::baseline::Baseline::discover(root, &options.dir, options.base.as_deref())?;
            Ok((git, baseline.filter(|_| options.three_way)))
        };
        let pending = match std::thread::Builder::new().spawn_scoped(scope, find) {
            Ok(job) => Pending::Thread(job),
            Err(_) => Pending::Here(Box::new(find)),
        };
        Repository {
            pending: RefCell::new(Some(pending)),
            found: OnceCell::new(),
        }
    }

    fn get(&self) -> &Result<Found, Error> {
        self.found
            .get_or_init(|| match self.pending.borrow_mut().take() {
                Some(Pending::Thread(job)) => salve_concurrent::join(job),
                Some(Pending::Here(find)) => find(),
                // `found` is set whenever `pending` is emptied.
                None => Ok((None, None)),
            })
    }

    /// The repository, waiting for it; `None` outside git or when finding it failed (the
    /// failure comes out of [`Repository::finish`]).
    pub(crate) fn git(&self) -> Option<&GitContext> {
        self.get().as_ref().ok().and_then(|(git, _)| git.as_ref())
    }

    pub(crate) fn baseline(&self) -> Option<&Baseline> {
        self.get().as_ref().ok().and_then(|(_, b)| b.as_ref())
    }

    /// What was found, or why nothing could be.
    pub(crate) fn finish(self) -> Result<Found, Error> {
        self.get();
        self.found.into_inner().unwrap_or(Ok((None, None)))
    }
}

/// Remove the temporary files of killed salve writes that git would list anywhere in the work
/// tree (untracked and not ignored); returns the paths removed. The listing is salve-git's
/// (in process with git's answer where it models git's rules, else one `git ls-files`). A
/// leftover in an ignored directory goes when that directory is next written, or at
/// `salve gc`. A failure only leaves the clutter where it is.
pub(crate) fn sweep_untracked_leftovers(repo: &salve_git::Repo) -> Vec<PathBuf> {
    let Ok(listed) = salve_git::untracked::files_named(repo, crate::transaction::TEMP_PREFIX)
    else {
        return Vec::new();
    };
    let paths = listed.iter().map(|p| repo.root.join(p)).collect::<Vec<_>>();
    crate::transaction::sweep_files(paths)
}
