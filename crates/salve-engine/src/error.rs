//! What every operation's error says about itself, so each front end (the CLI, the MCP server,
//! the page) can treat it the same way without knowing the operation.
//!
//! Every operation has its own `Error` enum, next to its `Options` and `Outcome`; each
//! implements [`Classified`]: a [`Kind`] (who can act on it), a stable snake_case
//! [`code`](Classified::code) for machines, and a [`hint`](Classified::hint) in domain words (no
//! command-line flags: a front end adds its own spelling).
//!
//! The kinds, in the manner of jj:
//! - [`Kind::Refused`]: the job ran and declined, changing nothing (nothing to undo, a restore
//!   that would overwrite unsaved files). The CLI exits 1.
//! - [`Kind::User`]: the input is wrong (an id that names nothing, a file that cannot be read).
//! - [`Kind::Config`]: salve's configuration or git's version is wrong.
//! - [`Kind::Environment`]: the machine failed salve (I/O errors, git failing, a broken record).
//! - [`Kind::Interrupted`]: the user stopped it (Ctrl-C, SIGTERM) before it changed anything;
//!   the CLI exits 130, as a shell does for a process stopped by SIGINT.
//! - [`Kind::Internal`]: a bug in salve.

use salve_git::GitError;
use salve_store::StoreError;

/// Who can do something about an error; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The job ran and declined; nothing changed.
    Refused,
    /// Bad input: arguments, ids, files.
    User,
    /// Bad configuration, or a tool salve needs is missing or too old.
    Config,
    /// The machine or a tool failed: I/O, git, the record's database.
    Environment,
    /// Stopped by the user before anything changed.
    Interrupted,
    /// A bug in salve.
    Internal,
}

/// What every operation error tells about itself; see the module docs.
pub trait Classified: std::error::Error {
    /// Who can act on it.
    fn kind(&self) -> Kind;
    /// A stable snake_case name for machines (`nothing_to_undo`, `no_such_run`).
    fn code(&self) -> &'static str;
    /// What to do about it, in domain words, when there is something.
    fn hint(&self) -> Option<String> {
        None
    }
}

impl Classified for GitError {
    fn kind(&self) -> Kind {
        match self {
            GitError::NotFound | GitError::TooOld { .. } => Kind::Config,
            GitError::NotARepository(_) => Kind::User,
            _ => Kind::Environment,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            GitError::NotFound => "git_not_found",
            GitError::TooOld { .. } => "git_too_old",
            GitError::NotARepository(_) => "not_a_repository",
            GitError::IndexLocked(_) => "index_locked",
            GitError::Spawn(_) | GitError::Failed { .. } | GitError::NotUtf8(_) => "git_failed",
            GitError::Io { .. } => "io",
        }
    }

    fn hint(&self) -> Option<String> {
        let hint = match self {
            GitError::NotARepository(_) => "run salve inside a git work tree, or name one",
            GitError::NotFound | GitError::TooOld { .. } => "install git 2.30 or newer",
            GitError::IndexLocked(_) => "retry when the other git command has finished",
            _ => return None,
        };
        Some(hint.to_owned())
    }
}

impl Classified for StoreError {
    fn kind(&self) -> Kind {
        if self.is_user_error() {
            Kind::User
        } else {
            Kind::Environment
        }
    }

    fn code(&self) -> &'static str {
        match self {
            StoreError::SchemaTooNew { .. } => "record_too_new",
            StoreError::Sqlite { .. } => "record_database",
            StoreError::Io { .. } => "io",
            StoreError::NoRecord(_) => "no_record",
            StoreError::NoSuchRun(_) => "no_such_run",
            StoreError::AmbiguousRun { .. } => "ambiguous_run",
            StoreError::BadRunId(_) => "bad_run_id",
            StoreError::NoSuchArtifact { .. } => "no_such_artifact",
            StoreError::MissingObject(_) => "missing_object",
            StoreError::Import { .. } => "bad_import",
            StoreError::Invalid(_) => "invalid_record",
        }
    }

    fn hint(&self) -> Option<String> {
        StoreError::hint(self)
    }
}
