//! Running one program to completion under a time limit and an output cap, and killing its
//! whole process tree when either is exceeded, or when a watcher reading its output line by line
//! gives up on it ([`run_watched`], see [`super::watch`]).
//!
//! The program is started as the leader of a new process group (process-wrap), so a kill reaches
//! the shells, node processes and helpers it started too. Three threads feed stdin and drain
//! stdout and stderr, so a chatty stderr cannot block the program while salve waits for stdout;
//! the readers pass each complete line on as it arrives, and the calling thread hands it to the
//! watcher, polls for exit and watches the clock. Once the leader has exited, anything still
//! holding the output pipes (a background grandchild) is killed with the group, so a finished
//! agent cannot keep salve waiting.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use process_wrap::std::{ChildWrapper, CommandWrap, ProcessGroup};

use super::watch::{Stalled, Stream};
use crate::cancel::Cancel;

/// How often the clock and the exit status are checked while waiting.
const TICK: Duration = Duration::from_millis(10);
/// How long the pipes may stay open after the leader exited before the group is killed.
const LINGER: Duration = Duration::from_millis(200);
/// stderr is only quoted in reasons; keep its last part.
const STDERR_KEEP: usize = 64 * 1024;
/// A line handed to the watcher is cut here (the captured output keeps all of it).
const LINE_MAX: usize = 8 * 1024;

/// What to run.
#[derive(Clone, Debug)]
pub struct Spec {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Written to stdin, which is then closed; `None` gives the program an empty stdin.
    pub stdin: Option<Vec<u8>>,
    pub timeout: Duration,
    /// stdout past this many bytes stops the run.
    pub max_output: usize,
    pub cwd: Option<PathBuf>,
    /// Variables set for the program, on top of salve's own environment.
    pub env: Vec<(String, String)>,
    /// Once raised, the process tree is killed and the run ends with [`RunError::Cancelled`].
    pub cancel: Cancel,
}

pub use super::finished::Finished;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("no command to run")]
    Empty,
    #[error("`{program}` was not found on PATH")]
    NotFound { program: String },
    #[error("cannot start `{program}`: {source}")]
    Spawn {
        program: String,
        source: std::io::Error,
    },
    #[error("no answer within {}s; the process tree was killed", .after.as_secs_f64())]
    Timeout { after: Duration, stderr: Vec<u8> },
    #[error("the output passed {limit} bytes; the process tree was killed")]
    TooLarge { limit: usize },
    /// The watcher gave up on the program (a run of retries); its process tree was killed.
    #[error("{}; the process tree was killed", .0.message)]
    Stalled(Stalled),
    /// The cancel token was raised (Ctrl-C); the process tree was killed.
    #[error("stopped by the user; the process tree was killed")]
    Cancelled,
    #[error("waiting for `{program}` failed: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
}

enum Event {
    Line(Stream, String),
    Stdout(Vec<u8>),
    StdoutTooLarge,
    Stderr(Vec<u8>),
}

/// Run `spec` to completion; see the module docs.
pub fn run(spec: &Spec) -> Result<Finished, RunError> {
    run_watched(spec, &mut |_, _| None)
}

/// Run `spec` to completion, handing every output line to `watch` as it arrives; once `watch`
/// returns a [`Stalled`], the process tree is killed and the run ends with it.
pub fn run_watched(
    spec: &Spec,
    watch: &mut dyn FnMut(Stream, &str) -> Option<Stalled>,
) -> Result<Finished, RunError> {
    let (program, mut child, rx) = spawn(spec)?;
    let start = Instant::now();
    let deadline = start + spec.timeout;
    let mut status: Option<(ExitStatus, Instant)> = None;
    let mut stdout: Option<Vec<u8>> = None;
    let mut stderr: Option<Vec<u8>> = None;
    let mut lingerers_killed = false;
    let wait_err = |source| RunError::Wait {
        program: program.to_owned(),
        source,
    };
    loop {
        if status.is_none() {
            if let Some(s) = child.try_wait().map_err(wait_err)? {
                status = Some((s, Instant::now()));
            }
        }
        if let (Some((s, _)), Some(_), Some(_)) = (status, &stdout, &stderr) {
            return Ok(Finished {
                status: s,
                stdout: stdout.unwrap_or_default(),
                stderr: stderr.unwrap_or_default(),
            });
        }
        if spec.cancel.is_cancelled() {
            kill_tree(child.as_mut());
            return Err(RunError::Cancelled);
        }
        let now = Instant::now();
        if now >= deadline {
            kill_tree(child.as_mut());
            return Err(RunError::Timeout {
                after: spec.timeout,
                stderr: stderr.unwrap_or_default(),
            });
        }
        if let Some((_, exited)) = status {
            if !lingerers_killed && now.duration_since(exited) >= LINGER {
                // The leader is gone but something it started still holds the pipes.
                let _ = child.start_kill();
                lingerers_killed = true;
            }
        }
        match rx.recv_timeout(TICK.min(deadline - now)) {
            Ok(Event::Line(stream, line)) => {
                if let Some(stalled) = watch(stream, &line) {
                    kill_tree(child.as_mut());
                    return Err(RunError::Stalled(stalled));
                }
            }
            Ok(Event::Stdout(bytes)) => stdout = Some(bytes),
            Ok(Event::Stderr(bytes)) => stderr = Some(bytes),
            Ok(Event::StdoutTooLarge) => {
                kill_tree(child.as_mut());
                return Err(RunError::TooLarge {
                    limit: spec.max_output,
                });
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                // Every reader is done; only the exit status is missing.
                stdout.get_or_insert_with(Vec::new);
                stderr.get_or_insert_with(Vec::new);
                if status.is_none() {
                    thread::sleep(TICK.min(deadline.saturating_duration_since(Instant::now())));
                }
            }
        }
    }
}

type Spawned<'a> = (&'a str, Box<dyn ChildWrapper>, mpsc::Receiver<Event>);

/// Start the program in a group of its own, with the threads that feed and drain it.
fn spawn(spec: &Spec) -> Result<Spawned<'_>, RunError> {
    let (program, args) = spec.argv.split_first().ok_or(RunError::Empty)?;
    let mut wrap = CommandWrap::with_new(program, |cmd| {
        cmd.args(args)
            .stdin(if spec.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.cwd {
            cmd.current_dir(dir);
        }
        cmd.envs(spec.env.iter().map(|(k, v)| (k, v)));
    });
    wrap.wrap(ProcessGroup::leader());
    let mut child = wrap.spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound {
            RunError::NotFound {
                program: program.clone(),
            }
        } else {
            RunError::Spawn {
                program: program.clone(),
                source,
            }
        }
    })?;

    let (tx, rx) = mpsc::channel();
    if let (Some(bytes), Some(mut stdin)) = (spec.stdin.clone(), child.stdin().take()) {
        // A program that exits without reading all of stdin closes the pipe: not an error here,
        // its exit status says what happened.
        thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    if let Some(stdout) = child.stdout().take() {
        let tx = tx.clone();
        let limit = spec.max_output;
        thread::spawn(move || {
            let mut lines = Lines::new(Stream::Stdout, tx.clone());
            let event = read_capped(stdout, limit, &mut lines)
                .map(Event::Stdout)
                .unwrap_or(Event::StdoutTooLarge);
            lines.finish();
            let _ = tx.send(event);
        });
    }
    if let Some(stderr) = child.stderr().take() {
        let tx = tx.clone();
        thread::spawn(move || {
            let mut lines = Lines::new(Stream::Stderr, tx.clone());
            let tail = read_tail(stderr, STDERR_KEEP, &mut lines);
            lines.finish();
            let _ = tx.send(Event::Stderr(tail));
        });
    }
    drop(tx);
    Ok((program, child, rx))
}

/// Splits a stream into lines and sends each one as it completes.
struct Lines {
    stream: Stream,
    tx: mpsc::Sender<Event>,
    pending: Vec<u8>,
}

impl Lines {
    fn new(stream: Stream, tx: mpsc::Sender<Event>) -> Lines {
        Lines {
            stream,
            tx,
            pending: Vec::new(),
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if b == b'\n' {
                self.send();
            } else if self.pending.len() < LINE_MAX {
                self.pending.push(b);
            }
        }
    }

    fn send(&mut self) {
        let line = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending.clear();
        // Nobody listening any more (the run ended): the line is not needed.
        let _ = self.tx.send(Event::Line(self.stream, line));
    }

    /// The last line, when the output did not end with a newline.
    fn finish(mut self) {
        if !self.pending.is_empty() {
            self.send();
        }
    }
}

/// Kill the whole group and reap the leader. Errors mean it is already gone.
fn kill_tree(child: &mut dyn ChildWrapper) {
    let _ = child.start_kill();
    let _ = child.wait();
}

/// Read everything, or `None` once more than `limit` bytes arrived.
fn read_capped(mut reader: impl Read, limit: usize, lines: &mut Lines) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Some(out),
            Ok(n) => {
                if out.len() + n > limit {
                    return None;
                }
                lines.feed(&buf[..n]);
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // A broken pipe after a kill: what arrived is all there is.
            Err(_) => return Some(out),
        }
    }
}

/// Read everything, keeping only the last `keep` bytes.
fn read_tail(mut reader: impl Read, keep: usize, lines: &mut Lines) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return out,
            Ok(n) => {
                lines.feed(&buf[..n]);
                out.extend_from_slice(&buf[..n]);
                if out.len() > 2 * keep {
                    out.drain(..out.len() - keep);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if out.len() > keep {
        out.drain(..out.len() - keep);
    }
    out
}
