//! The one command builder for every git call.
//!
//! [`Git`] scrubs the variables that would point git at another repository, index or object
//! store, fixes the locale so messages can be matched, never lets git prompt, and can feed bytes
//! on stdin (for `--stdin` and `--pathspec-from-file=-` style calls, which keep odd file names out
//! of argument lists). [`ensure_supported_version`] checks once per process that git exists and is
//! new enough.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

/// Variables that would make git operate on a different repository, index or object store than
/// the one salve was pointed at. A hook or an outer git process may have set them.
pub(crate) const SCRUBBED_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
];

/// The oldest git salve supports: `--pathspec-from-file` for `add` (2.25) and the `-z` outputs
/// used here are all older than this.
pub const MIN_GIT_VERSION: (u32, u32) = (2, 30);

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git was not found on PATH; salve needs git 2.30 or newer")]
    NotFound,
    #[error("git {found} is too old; salve needs git {}.{} or newer", MIN_GIT_VERSION.0, MIN_GIT_VERSION.1)]
    TooOld { found: String },
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
    #[error(
        "{} exists: another git process is using the index. Wait for it to finish; if no git \
         process is running, the lock is stale and can be removed by hand",
        .0.display()
    )]
    IndexLocked(PathBuf),
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl GitError {
    /// Wrap an I/O error with what salve was doing.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        GitError::Io {
            context: context.into(),
            source,
        }
    }

    /// True when git failed because an `index.lock` (of any index) already existed.
    pub fn is_index_lock_conflict(&self) -> bool {
        match self {
            GitError::Failed { stderr, .. } => {
                stderr.contains(".lock'") && stderr.contains("File exists")
            }
            _ => false,
        }
    }
}

/// A git invocation under construction. Build with [`Git::new`], add arguments, then run.
pub struct Git {
    command: Command,
    args: Vec<OsString>,
    stdin: Option<Vec<u8>>,
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
            .env("GIT_OPTIONAL_LOCKS", "0");
        Git {
            command,
            args: Vec::new(),
            stdin: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_os_string());
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
        self.command.env(key, value);
        self
    }

    /// Feed `bytes` to git's standard input (otherwise stdin is empty).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// The arguments as one printable string, for error messages.
    pub fn describe(&self) -> String {
        self.args
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Run and return the raw output, whatever the exit status.
    pub fn output(mut self) -> Result<Output, GitError> {
        let map_spawn = |e: std::io::Error| {
            if e.kind() == std::io::ErrorKind::NotFound {
                GitError::NotFound
            } else {
                GitError::Spawn(e)
            }
        };
        let Some(input) = self.stdin.take() else {
            self.command.stdin(Stdio::null());
            return self.command.output().map_err(map_spawn);
        };
        self.command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = self.command.spawn().map_err(map_spawn)?;
        // Write from a thread: git may fill its stdout pipe before it has read all of stdin.
        let writer = child.stdin.take().map(|mut pipe| {
            std::thread::spawn(move || {
                // A broken pipe means git stopped reading; its exit status says why.
                let _ = pipe.write_all(&input);
            })
        });
        let out = child.wait_with_output().map_err(GitError::Spawn)?;
        if let Some(handle) = writer {
            let _ = handle.join();
        }
        Ok(out)
    }

    /// Run, require success, and return stdout as bytes.
    pub fn run_bytes(self) -> Result<Vec<u8>, GitError> {
        let args = self.describe();
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
        let args = self.describe();
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
    bytes.split(|b| *b == 0).filter(|record| !record.is_empty())
}

/// The installation prefix of the `git` found on `PATH` (`/usr` for `/usr/bin/git`), where its
/// system-wide files live; `None` when no `git` is found.
pub(crate) fn git_prefix() -> Option<std::path::PathBuf> {
    let path = std::env::var_os("PATH")?;
    let git = std::env::split_paths(&path)
        .map(|dir| dir.join("git"))
        .find(|candidate| candidate.is_file())?;
    let git = git.canonicalize().unwrap_or(git);
    Some(git.parent()?.parent()?.to_path_buf())
}

/// The installed git's version as `(major, minor, patch)`, parsed from `git version`.
pub fn git_version() -> Result<(u32, u32, u32), GitError> {
    let text = Git::new(Path::new(".")).arg("version").run()?;
    parse_version(&text).ok_or(GitError::TooOld { found: text })
}

/// Fail with [`GitError::NotFound`] or [`GitError::TooOld`] unless git is usable. The check runs
/// once per process; later calls reuse its answer.
pub fn ensure_supported_version() -> Result<(), GitError> {
    static CHECKED: OnceLock<Result<(), String>> = OnceLock::new();
    let verdict = CHECKED.get_or_init(|| match git_version() {
        Ok((major, minor, _)) if (major, minor) >= MIN_GIT_VERSION => Ok(()),
        Ok((major, minor, patch)) => Err(format!("{major}.{minor}.{patch}")),
        Err(GitError::NotFound) => Err(String::new()),
        Err(GitError::TooOld { found }) => Err(found),
        // Spawn failures other than "not found" are not cached as a verdict on the version.
        Err(_) => Ok(()),
    });
    match verdict {
        Ok(()) => Ok(()),
        Err(found) if found.is_empty() => Err(GitError::NotFound),
        Err(found) => Err(GitError::TooOld {
            found: found.clone(),
        }),
    }
}

/// `git version 2.47.3` and vendor suffixes such as `2.39.3 (Apple Git-146)` or
/// `2.45.1.windows.1`.
fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let rest = text.trim().strip_prefix("git version ")?;
    let mut numbers = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u32>().ok());
    let major = numbers.next()??;
    let minor = numbers.next()??;
    let patch = numbers.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_vendor_versions() {
        assert_eq!(parse_version("git version 2.47.3\n"), Some((2, 47, 3)));
        assert_eq!(
            parse_version("git version 2.39.3 (Apple Git-146)"),
            Some((2, 39, 3))
        );
        assert_eq!(
            parse_version("git version 2.45.1.windows.1"),
            Some((2, 45, 1))
        );
        assert_eq!(parse_version("git version 3.0"), Some((3, 0, 0)));
        assert_eq!(parse_version("hub version 2.47"), None);
    }

    #[test]
    fn stdin_reaches_git() {
        let out = Git::new(Path::new("."))
            .args(["hash-object", "--stdin"])
            .stdin(b"hello\n".to_vec())
            .run();
        assert_eq!(
            out.ok().as_deref(),
            Some("ce013625030ba8dba906f756967f9e9ca394464a")
        );
    }
}
