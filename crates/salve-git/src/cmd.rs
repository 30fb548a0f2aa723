//! The one command builder for every git call.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Variables that would make git operate on a different repository, index or object store than
/// the one salve was pointed at. A hook or an outer git process may have set them.
const SCRUBBED_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
];

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git was not found on PATH; salve needs git 2.30 or newer")]
    NotFound,
    #[error("could not run git: {0}")]
    Spawn(#[source] std::io::Error),
    #[error("`git {args}` failed (exit {code}): {stderr}")]
    Failed {
        args: String,
        code: i32,
        stderr: String,
    },
    #[error("{0} is not inside a git repository")]
    NotARepository(PathBuf),
    #[error("git printed output that is not valid UTF-8 for `git {0}`")]
    NotUtf8(String),
}

/// A git invocation under construction. Build with [`Git::new`], add arguments, then run.
pub struct Git {
    command: Command,
    args: Vec<String>,
    extra_env: Vec<(String, String)>,
}

impl Git {
    /// git running in `dir`, with a scrubbed environment.
    pub fn new(dir: &Path) -> Self {
        let mut command = Command::new("git");
        command.current_dir(dir);
        for var in SCRUBBED_VARS {
            command.env_remove(var);
        }
        command
            .env("LC_ALL", "C")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .stdin(Stdio::null());
        Git {
            command,
            args: Vec::new(),
            extra_env: Vec::new(),
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_string_lossy().into_owned());
        self.command.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self = self.arg(a);
        }
        self
    }

    /// Set a variable for this call only (for example a temporary `GIT_INDEX_FILE`).
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.extra_env
            .push((key.to_owned(), value.as_ref().to_string_lossy().into_owned()));
        self.command.env(key, value);
        self
    }

    /// Run and return the raw output, whatever the exit status.
    pub fn output(mut self) -> Result<Output, GitError> {
        self.command.output().map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GitError::NotFound
            } else {
                GitError::Spawn(e)
            }
        })
    }

    /// Run, require success, and return stdout as bytes.
    pub fn run_bytes(self) -> Result<Vec<u8>, GitError> {
        let args = self.args.join(" ");
        let out = self.output()?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(GitError::Failed {
                args,
                code: out.status.code().unwrap_or(-1),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_owned(),
            })
        }
    }

    /// Run, require success, and return stdout as text with the trailing newline removed.
    pub fn run(self) -> Result<String, GitError> {
        let args = self.args.join(" ");
        let bytes = self.run_bytes()?;
        let mut text = String::from_utf8(bytes).map_err(|_| GitError::NotUtf8(args))?;
        while text.ends_with('\n') {
            text.pop();
        }
        Ok(text)
    }
}

/// Split `-z` output into its NUL-terminated records.
pub fn split_nul(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|b| *b == 0)
        .filter(|record| !record.is_empty())
}
