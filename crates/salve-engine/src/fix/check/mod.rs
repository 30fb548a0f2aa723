//! Running the check command: [`run`] starts it as the leader of a new process group, so a kill
//! reaches the shells, compilers and test binaries it started; it streams the output to the
//! terminal when asked, keeps a capped copy for display and the full log for the record, and
//! kills the whole tree on timeout or cancellation.
//!
//! Two threads drain stdout and stderr into one channel, so the log holds both streams in the
//! order their chunks arrived and a chatty stream never blocks the other. The calling thread
//! polls for exit, the clock and the cancel flag. Once the leader has exited, anything still
//! holding the pipes (a test's background server) is killed with the group, so a finished check
//! cannot keep salve waiting.
//!
//! The same pattern runs model commands in `salve_llm::command::process`; that one caps stdout
//! as a hard error and never streams, so the two share the approach rather than the code.

use std::borrow::Cow;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use process_wrap::std::{CommandWrap, ProcessGroup};
use serde::Serialize;

use capped::Capped;
mod capped;
mod process;

use crate::error::{Classified, Kind};
use process::{kill_tree, start_readers, watch, Sink};

/// How much output [`CheckResult::output`] keeps by default: 256 KiB.
pub const DEFAULT_OUTPUT_CAP: usize = 256 << 10;
/// How much of the log [`CheckResult::log`] keeps by default: 64 MiB, head and tail.
pub const DEFAULT_LOG_CAP: usize = 64 << 20;
/// The default time limit: 10 minutes.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// How to run a check.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The working directory.
    pub dir: PathBuf,
    /// Program and arguments; no shell is involved (pass `sh -c "…"` for one).
    pub command: Vec<String>,
    /// Environment variables set for the check, on top of salve's own environment.
    pub env: Vec<(String, String)>,
    /// The whole tree is killed after this long; the status is then `timed_out`.
    pub timeout: Duration,
    /// Bytes of output kept in [`CheckResult::output`], half from the start and half from the end.
    pub output_cap: usize,
    /// Bytes kept in [`CheckResult::log`], the same way; a safety net against runaway output.
    pub log_cap: usize,
    /// Where the child's output is copied as it arrives.
    pub echo: Echo,
    /// Polled while the check runs: once true, the tree is killed and the status is `cancelled`.
    /// The front end sets it from its Ctrl-C handler.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl CheckOptions {
    /// Run `command` in `dir` with the default limits and no echo.
    pub fn new(dir: impl Into<PathBuf>, command: Vec<String>) -> CheckOptions {
        CheckOptions {
            dir: dir.into(),
            command,
            env: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            output_cap: DEFAULT_OUTPUT_CAP,
            log_cap: DEFAULT_LOG_CAP,
            echo: Echo::None,
            cancel: None,
        }
    }
}

/// Where the child's output is streamed while it runs.
#[derive(Clone, Copy, Debug, Default)]
pub enum Echo {
    /// Not at all: only captured.
    #[default]
    None,
    /// To salve's stdout.
    Stdout,
    /// To salve's stderr, for a front end that prints JSON on stdout.
    Stderr,
    /// To this function, chunk by chunk as the output arrives: a front end that draws on the
    /// terminal too (a progress spinner) interleaves the two.
    With(fn(&[u8])),
}

/// How the check ended. JSON: `{"kind": "exited", "code": 1}`, `{"kind": "signal", "signal": 9}`,
/// `{"kind": "timed_out"}`, `{"kind": "cancelled"}`, `{"kind": "not_found", "program": "…"}`,
/// `{"kind": "cannot_start", "error": "…"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Status {
    /// The program exited with this code.
    Exited { code: i32 },
    /// The program was killed by this signal (not by salve).
    Signal { signal: i32 },
    /// The time limit passed; salve killed the tree.
    TimedOut,
    /// The cancel flag was raised; salve killed the tree.
    Cancelled,
    /// The program does not exist: an environment failure, not an error of salve.
    NotFound { program: String },
    /// The program exists but could not be started (permission denied, not executable).
    CannotStart { error: String },
}

/// The status in a few words (`passed`, `exited 1`, `timed out`, ...), as every front end says
/// it.
impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Status::Exited { code: 0 } => write!(f, "passed"),
            Status::Exited { code } => write!(f, "exited {code}"),
            Status::Signal { signal } => write!(f, "killed by signal {signal}"),
            Status::TimedOut => write!(f, "timed out"),
            Status::Cancelled => write!(f, "cancelled"),
            Status::NotFound { program } => write!(f, "not found: {program}"),
            Status::CannotStart { error } => write!(f, "cannot start: {error}"),
        }
    }
}

/// What a check did.
#[derive(Clone, Debug)]
pub struct CheckResult {
    pub status: Status,
    pub duration_ms: u64,
    /// The output for display: capped at [`CheckOptions::output_cap`], head and tail with a
    /// `… N bytes cut …` line between them, invalid UTF-8 replaced.
    pub output: String,
    /// The combined stdout and stderr as it arrived, for the record's artifact and for failure
    /// extraction; capped only by [`CheckOptions::log_cap`].
    pub log: Vec<u8>,
    /// Bytes the command wrote in all, kept or not.
    pub log_bytes: u64,
    /// The directory the check ran in (absolute when it could be resolved): failure extraction
    /// makes paths under it relative.
    pub dir: PathBuf,
}

impl CheckResult {
    /// Whether the check passed: it exited with code 0.
    pub fn passed(&self) -> bool {
        self.status == Status::Exited { code: 0 }
    }

    /// A result for a log saved earlier (a record's artifact, a CI log, a test fixture).
    pub fn from_log(dir: impl Into<PathBuf>, status: Status, log: Vec<u8>) -> CheckResult {
        let mut output = Capped::new(DEFAULT_OUTPUT_CAP);
        output.push(&log);
        CheckResult {
            status,
            duration_ms: 0,
            output: String::from_utf8_lossy(&output.into_bytes()).into_owned(),
            log_bytes: log.len() as u64,
            log,
            dir: dir.into(),
        }
    }

    /// The log as text, invalid UTF-8 replaced.
    pub fn log_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.log)
    }
}

/// `{duration_ms, log_bytes, output, passed, status}`; the log goes to the record as an
/// artifact, never into JSON.
impl Serialize for CheckResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct View<'a> {
            duration_ms: u64,
            log_bytes: u64,
            output: &'a str,
            passed: bool,
            status: &'a Status,
        }
        View {
            duration_ms: self.duration_ms,
            log_bytes: self.log_bytes,
            output: &self.output,
            passed: self.passed(),
            status: &self.status,
        }
        .serialize(serializer)
    }
}

/// Why a check could not be run at all. A command that fails, or does not exist, is a
/// [`CheckResult`], not an error.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("no check command was given")]
    EmptyCommand,
    #[error("the check directory {} is not a directory", .0.display())]
    NoDirectory(PathBuf),
    #[error("cannot start the threads that read the check's output: {0}")]
    Threads(std::io::Error),
    #[error("waiting for the check failed: {0}")]
    Wait(std::io::Error),
}

impl Classified for CheckError {
    fn kind(&self) -> Kind {
        match self {
            CheckError::EmptyCommand | CheckError::NoDirectory(_) => Kind::User,
            CheckError::Threads(_) | CheckError::Wait(_) => Kind::Environment,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            CheckError::EmptyCommand => "empty_check_command",
            CheckError::NoDirectory(_) => "no_such_directory",
            CheckError::Threads(_) | CheckError::Wait(_) => "check_failed_to_run",
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            CheckError::EmptyCommand => Some("name the command that checks the build".to_owned()),
            CheckError::NoDirectory(_) => {
                Some("run the check inside an existing directory".to_owned())
            }
            _ => None,
        }
    }
}

/// Run the check; see the module docs.
pub fn run(options: &CheckOptions) -> Result<CheckResult, CheckError> {
    let (program, args) = options
        .command
        .split_first()
        .ok_or(CheckError::EmptyCommand)?;
    if !options.dir.is_dir() {
        return Err(CheckError::NoDirectory(options.dir.clone()));
    }
    let dir = std::fs::canonicalize(&options.dir).unwrap_or_else(|_| options.dir.clone());
    let start = Instant::now();
    let finish = |status, sink: Sink| {
        let (output, log, log_bytes) = sink.finish();
        Ok(CheckResult {
            status,
            duration_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
            output,
            log,
            log_bytes,
            dir: dir.clone(),
        })
    };
    let mut sink = Sink::new(options);

    let mut wrap = CommandWrap::with_new(program, |cmd| {
        cmd.args(args)
            .envs(options.env.iter().map(|(k, v)| (k, v)))
            .current_dir(&options.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
    });
    wrap.wrap(ProcessGroup::leader());
    let mut child = match wrap.spawn() {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let program = program.clone();
            return finish(Status::NotFound { program }, sink);
        }
        Err(e) => {
            let error = format!("cannot start `{program}`: {e}");
            return finish(Status::CannotStart { error }, sink);
        }
    };
    let chunks = match start_readers(child.as_mut()) {
        Ok(chunks) => chunks,
        Err(e) => {
            kill_tree(child.as_mut());
            return Err(CheckError::Threads(e));
        }
    };
    let status = watch(child.as_mut(), &chunks, &mut sink, options, start)?;
    finish(status, sink)
}
