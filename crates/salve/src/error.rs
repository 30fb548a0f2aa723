//! Errors as the user sees them, sorted into kinds (in the manner of jj): a user error (bad
//! arguments, unreadable input, a revision that does not exist, an I/O failure in the tree), a
//! configuration or environment error (git missing, settings wrong), or an internal error (a bug
//! in salve). Each prints one `Error:` line and, where there is something to do about it, one
//! `Hint:` line, on stderr.

use std::fmt::Display;
use std::io::Write as _;

use salve_engine::apply;
use salve_git::checkpoint::FindError;
use salve_git::GitError;
use salve_store::StoreError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    User,
    Config,
    Internal,
}

#[derive(Debug)]
pub struct CliError {
    pub kind: Kind,
    pub message: String,
    pub hint: Option<String>,
}

impl CliError {
    pub fn user(message: impl Display) -> Self {
        CliError {
            kind: Kind::User,
            message: message.to_string(),
            hint: None,
        }
    }

    /// A configuration or environment problem.
    pub fn config(message: impl Display) -> Self {
        CliError {
            kind: Kind::Config,
            message: message.to_string(),
            hint: None,
        }
    }

    pub fn internal(message: impl Display) -> Self {
        CliError {
            kind: Kind::Internal,
            message: message.to_string(),
            hint: Some(BUG_HINT.to_owned()),
        }
    }

    pub fn with_hint(mut self, hint: impl Display) -> Self {
        self.hint = Some(hint.to_string());
        self
    }

    /// 2 for usage, configuration and environment errors, 101 for bugs (the same code a Rust
    /// panic exits with).
    pub fn exit_code(&self) -> u8 {
        match self.kind {
            Kind::User | Kind::Config => 2,
            Kind::Internal => 101,
        }
    }

    pub fn print(&self) {
        let label = match self.kind {
            Kind::User => "Error",
            Kind::Config => "Config error",
            Kind::Internal => "Internal error",
        };
        let mut err = std::io::stderr().lock();
        // Nothing sensible is left to do if stderr itself is gone.
        let _ = writeln!(err, "{label}: {}", self.message);
        if let Some(hint) = &self.hint {
            let _ = writeln!(err, "Hint: {hint}");
        }
    }
}

const BUG_HINT: &str =
    "this is a bug in salve; please report it with the command you ran and the reply file";

impl From<apply::Error> for CliError {
    fn from(e: apply::Error) -> Self {
        let kind = match &e {
            apply::Error::Git(GitError::NotFound)
            | apply::Error::Baseline(salve_engine::baseline::BaselineError::Git(
                GitError::NotFound,
            )) => Kind::Config,
            _ => Kind::User,
        };
        CliError {
            kind,
            hint: e.hint(),
            message: e.to_string(),
        }
    }
}

/// git failures: missing or old git is configuration, the rest is the environment (exit 2).
impl From<GitError> for CliError {
    fn from(e: GitError) -> Self {
        let hint = match &e {
            GitError::NotARepository(_) => Some("run salve inside a git work tree, or pass -C DIR"),
            GitError::NotFound | GitError::TooOld { .. } => Some("install git 2.30 or newer"),
            GitError::IndexLocked(_) => Some("retry when the other git command has finished"),
            _ => None,
        };
        let kind = match &e {
            GitError::NotFound | GitError::TooOld { .. } => Kind::Config,
            _ => Kind::User,
        };
        CliError {
            kind,
            message: e.to_string(),
            hint: hint.map(str::to_owned),
        }
    }
}

/// A checkpoint id that names none, or several.
impl From<FindError> for CliError {
    fn from(e: FindError) -> Self {
        match e {
            FindError::Git(e) => e.into(),
            other => CliError::user(other).with_hint("`salve checkpoints` lists the ids"),
        }
    }
}

/// Bad ids and input are usage errors; a broken or too new record is an environment error.
impl From<StoreError> for CliError {
    fn from(e: StoreError) -> Self {
        let kind = if e.is_user_error() {
            Kind::User
        } else {
            Kind::Config
        };
        CliError {
            kind,
            hint: e.hint(),
            message: e.to_string(),
        }
    }
}

/// A panic is a bug: say so in the same shape as other errors. The process then exits with 101.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let payload = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        CliError::internal(format!("salve panicked{location}: {payload}")).print();
    }));
}
