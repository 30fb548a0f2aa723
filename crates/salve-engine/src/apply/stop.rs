//! Why a file's step stops: a refusal for this file, or an error that stops the whole apply.
//! A leaf every per-file step and check returns through.

use salve_patch::Status;

use super::Error;

/// Why a file cannot be edited: a refusal for this file, or an error that stops everything.
pub(crate) enum Stop {
    Refuse(Status, String),
    /// A refusal because a placeholder in the new content stands for code that cannot be
    /// recovered from the file: reported as a lazy reply too.
    Lazy(Status, String),
    Fatal(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Fatal(e)
    }
}

pub(crate) fn refuse<T>(status: Status, message: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Refuse(status, message.into()))
}
