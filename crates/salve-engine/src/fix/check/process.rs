//! The process side of [`super::run`]: watching the leader, the pipes, the clock and the
//! cancel flag, and feeding the output where it goes. See that module's docs for the design.

use std::io::{Read, Write};
use std::process::ExitStatus;
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use process_wrap::std::ChildWrapper;

use super::capped::Capped;
use super::{CheckError, CheckOptions, Echo, Status};

/// How often the exit status, the clock and the cancel flag are checked.
const TICK: Duration = Duration::from_millis(10);
/// How long the pipes may stay open after the leader exited, or after a kill, before salve stops
/// waiting for them.
const LINGER: Duration = Duration::from_millis(200);

/// Wait for the leader and the pipes, feeding `sink`; kill the tree on timeout or cancel.
pub(super) fn watch(
    child: &mut dyn ChildWrapper,
    chunks: &mpsc::Receiver<Vec<u8>>,
    sink: &mut Sink,
    options: &CheckOptions,
    start: Instant,
) -> Result<Status, CheckError> {
    let deadline = start + options.timeout;
    let mut exited: Option<(ExitStatus, Instant)> = None;
    let mut pipes_open = true;
    let mut lingerers_killed = false;
    loop {
        if exited.is_none() {
            if let Some(status) = child.try_wait().map_err(|e| {
                kill_tree(child);
                CheckError::Wait(e)
            })? {
                exited = Some((status, Instant::now()));
            }
        }
        if let (Some((status, _)), false) = (exited, pipes_open) {
            return Ok(status_of(status));
        }
        let cancelled = options
            .cancel
            .as_ref()
            .is_some_and(|flag| flag.load(Ordering::Relaxed));
        let now = Instant::now();
        if cancelled || now >= deadline {
            kill_tree(child);
            drain(chunks, sink);
            return Ok(if cancelled {
                Status::Cancelled
            } else {
                Status::TimedOut
            });
        }
        if let Some((_, at)) = exited {
            if !lingerers_killed && now.duration_since(at) >= LINGER {
                // The leader is gone but something it started still holds the pipes.
                let _ = child.start_kill();
                lingerers_killed = true;
            }
        }
        if !pipes_open {
            thread::sleep(TICK);
            continue;
        }
        match chunks.recv_timeout(TICK) {
            Ok(chunk) => sink.push(&chunk),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => pipes_open = false,
        }
    }
}

/// After a kill: take what the readers still deliver, for at most `LINGER`.
fn drain(chunks: &mpsc::Receiver<Vec<u8>>, sink: &mut Sink) {
    let until = Instant::now() + LINGER;
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        match chunks.recv_timeout(left) {
            Ok(chunk) => sink.push(&chunk),
            Err(_) => return,
        }
    }
}

fn status_of(status: ExitStatus) -> Status {
    if let Some(code) = status.code() {
        return Status::Exited { code };
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(signal) = status.signal() {
            return Status::Signal { signal };
        }
    }
    Status::Exited { code: -1 }
}

/// One thread per pipe, each sending chunks as they arrive; the channel disconnects when both
/// pipes are closed.
pub(super) fn start_readers(
    child: &mut dyn ChildWrapper,
) -> std::io::Result<mpsc::Receiver<Vec<u8>>> {
    let (tx, rx) = mpsc::channel();
    if let Some(stdout) = child.stdout().take() {
        spawn_reader("salve-check-stdout", stdout, tx.clone())?;
    }
    if let Some(stderr) = child.stderr().take() {
        spawn_reader("salve-check-stderr", stderr, tx)?;
    }
    Ok(rx)
}

fn spawn_reader(
    name: &str,
    mut pipe: impl Read + Send + 'static,
    tx: mpsc::Sender<Vec<u8>>,
) -> std::io::Result<()> {
    thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match pipe.read(&mut buf) {
                    Ok(0) => return,
                    Ok(n) => {
                        if tx.send(buf[..n].to_vec()).is_err() {
                            return;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    // A broken pipe after a kill: what arrived is all there is.
                    Err(_) => return,
                }
            }
        })?;
    Ok(())
}

/// Kill the whole group and reap the leader. Errors mean it is already gone.
pub(super) fn kill_tree(child: &mut dyn ChildWrapper) {
    let _ = child.start_kill();
    let _ = child.wait();
}

/// Where the output goes: the display copy, the log and the terminal.
pub(super) struct Sink {
    output: Capped,
    log: Capped,
    echo: Echo,
}

impl Sink {
    pub(super) fn new(options: &CheckOptions) -> Sink {
        Sink {
            output: Capped::new(options.output_cap),
            log: Capped::new(options.log_cap),
            echo: options.echo,
        }
    }

    fn push(&mut self, chunk: &[u8]) {
        self.output.push(chunk);
        self.log.push(chunk);
        // A closed terminal must not fail the check: echo errors are ignored.
        match self.echo {
            Echo::None => {}
            Echo::Stdout => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(chunk).and_then(|()| out.flush());
            }
            Echo::Stderr => {
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(chunk).and_then(|()| err.flush());
            }
            Echo::With(write) => write(chunk),
        }
    }

    /// `(output, log, bytes written in all)`.
    pub(super) fn finish(self) -> (String, Vec<u8>, u64) {
        let total = self.log.total();
        let output = String::from_utf8_lossy(&self.output.into_bytes()).into_owned();
        (output, self.log.into_bytes(), total)
    }
}
