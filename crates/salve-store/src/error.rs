//! The store's errors. Each says what the store was doing and, where the user can act on it,
//! carries enough to print a hint (see [`StoreError::hint`]).

use std::path::PathBuf;

/// Anything that can go wrong while opening, writing or reading the record.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the record at {} has schema version {found}, newer than this salve knows ({known})", path.display())]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("the record at {}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "no record in {}: outside a git repository salve records runs only where a .salve/ \
         directory exists",
        .0.display()
    )]
    NoRecord(PathBuf),
    #[error("no run matches `{0}`")]
    NoSuchRun(String),
    #[error("`{prefix}` matches {count} runs: {}", examples.join(", "))]
    AmbiguousRun {
        prefix: String,
        count: usize,
        examples: Vec<String>,
    },
    #[error("`{0}` is not a run id: use the hex digits `salve log` prints")]
    BadRunId(String),
    #[error("run {run} has no artifact named `{name}`")]
    NoSuchArtifact { run: String, name: String },
    #[error("artifact {0} is missing from the object store")]
    MissingObject(String),
    #[error("line {line} of the import: {message}")]
    Import { line: usize, message: String },
    #[error("{0}")]
    Invalid(String),
}

impl StoreError {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        StoreError::Io {
            context: context.into(),
            source,
        }
    }

    /// What the user can do about it, when there is something.
    pub fn hint(&self) -> Option<String> {
        match self {
            StoreError::SchemaTooNew { .. } => Some(
                "a newer salve wrote this record; upgrade salve, or pass --no-record".to_owned(),
            ),
            StoreError::NoRecord(_) => Some(
                "run salve in a git work tree, or create a .salve/ directory to keep a record here"
                    .to_owned(),
            ),
            StoreError::NoSuchRun(_) | StoreError::BadRunId(_) => {
                Some("`salve log` lists the runs with their ids".to_owned())
            }
            StoreError::AmbiguousRun { .. } => Some("give more digits of the id".to_owned()),
            StoreError::NoSuchArtifact { .. } => {
                Some("`salve show RUN` lists the run's artifacts".to_owned())
            }
            StoreError::MissingObject(_) => {
                Some("the object was removed by hand or by a `salve gc` of another copy".to_owned())
            }
            StoreError::Import { .. } => Some(
                "import reads what `salve export` writes: one JSON object per line, unchanged"
                    .to_owned(),
            ),
            StoreError::Sqlite { .. } | StoreError::Io { .. } => Some(
                "check the disk and the permissions of the record named above; other salve \
                 commands still work with --no-record"
                    .to_owned(),
            ),
            StoreError::Invalid(_) => {
                Some("this is a bug in salve or a damaged record; please report it".to_owned())
            }
        }
    }

    /// True for problems with what the user asked for (a run id, a file), as opposed to a
    /// broken or unreadable record.
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            StoreError::NoSuchRun(_)
                | StoreError::NoRecord(_)
                | StoreError::AmbiguousRun { .. }
                | StoreError::BadRunId(_)
                | StoreError::NoSuchArtifact { .. }
                | StoreError::Import { .. }
                | StoreError::Invalid(_)
        )
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
