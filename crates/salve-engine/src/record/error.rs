//! Why a record operation could not run.

use std::path::PathBuf;

use salve_store::StoreError;

use crate::error::{Classified, Kind};

/// Why reading or moving the record failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The directory to work in does not exist.
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// The record itself: a bad id, a broken database, a missing object.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The file to import cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// True when the reader of the output went away (`salve export | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Store(StoreError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

impl Classified for Error {
    fn kind(&self) -> Kind {
        match self {
            Error::NotADirectory(_) | Error::Read { .. } => Kind::User,
            Error::Store(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Error::NotADirectory(_) => "not_a_directory",
            Error::Read { .. } => "unreadable_input",
            Error::Store(e) => e.code(),
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::Read { .. } => Some("give a file written by an export of a record".to_owned()),
            Error::NotADirectory(_) => Some("check the directory of the work tree".to_owned()),
            Error::Store(e) => e.hint(),
        }
    }
}

/// `dir`, which must be a directory.
pub(crate) fn existing_dir(dir: &std::path::Path) -> Result<&std::path::Path, Error> {
    if dir.is_dir() {
        Ok(dir)
    } else {
        Err(Error::NotADirectory(dir.to_path_buf()))
    }
}
