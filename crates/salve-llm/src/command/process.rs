//! Running one program to completion under a time limit and an output cap, and killing its
//! whole process tree when either is exceeded.
//!
//! The program is started as the leader of a new process group (process-wrap), so a kill reaches
//! the shells, node processes and helpers it started too. Three threads feed stdin and drain
//! stdout and stderr, so a chatty stderr cannot block the program while salve waits for stdout;
//! the calling thread polls for exit and watches the clock. Once the leader has exited, anything
//! still holding the output pipes (a background grandchild) is killed with the group, so a
//! finished agent cannot keep salve waiting.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use process_wrap::std::{ChildWrapper, CommandWrap, ProcessGroup};

/// How often the clock and the exit status are checked while waiting.
const TICK: Duration = Duration::from_millis(10);
/// How long the pipes may stay open after the leader exited before the group is killed.
const LINGER: Duration = Duration::from_millis(200);
/// stderr is only quoted in reasons; keep its last part.
const STDERR_KEEP: usize = 64 * 1024;

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
}

/// A finished run.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    /// The last `STDERR_KEEP` bytes of stderr.
    pub stderr: Vec<u8>,
}

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
    #[error("waiting for `{program}` failed: {source}")]
    Wait {
        program: String,
        source: std::io::Error,
    },
}

enum Event {
    Stdout(Vec<u8>),
    StdoutTooLarge,
    Stderr(Vec<u8>),
}

/// Run `spec` to completion; see the module docs.
pub fn run(spec: &Spec) -> Result<Finished, RunError> {
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
            let event = read_capped(stdout, limit)
                .map(Event::Stdout)
                .unwrap_or(Event::StdoutTooLarge);
            let _ = tx.send(event);
        });
    }
    if let Some(stderr) = child.stderr().take() {
        let tx = tx.clone();
        thread::spawn(move || {
            let _ = tx.send(Event::Stderr(read_tail(stderr, STDERR_KEEP)));
        });
    }
    drop(tx);

    let start = Instant::now();
    let deadline = start + spec.timeout;
    let mut status: Option<(ExitStatus, Instant)> = None;
    let mut stdout: Option<Vec<u8>> = None;
    let mut stderr: Option<Vec<u8>> = None;
    let mut lingerers_killed = false;
    let wait_err = |source| RunError::Wait {
        program: program.clone(),
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

/// Kill the whole group and reap the leader. Errors mean it is already gone.
fn kill_tree(child: &mut dyn ChildWrapper) {
    let _ = child.start_kill();
    let _ = child.wait();
}

/// Read everything, or `None` once more than `limit` bytes arrived.
fn read_capped(mut reader: impl Read, limit: usize) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = [0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Some(out),
            Ok(n) => {
                if out.len() + n > limit {
                    return None;
                }
                out.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // A broken pipe after a kill: what arrived is all there is.
            Err(_) => return Some(out),
        }
    }
}

/// Read everything, keeping only the last `keep` bytes.
fn read_tail(mut reader: impl Read, keep: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return out,
            Ok(n) => {
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
