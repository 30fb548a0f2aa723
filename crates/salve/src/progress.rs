//! Progress on a terminal: a spinner with the elapsed time and the current phase, on stderr,
//! while work that can take long runs (`ask` waiting for a provider, `fix` running a check, a
//! large apply).
//!
//! The engine does not draw: it reports phases through callbacks (`ask::Event`, `fix::Event`)
//! and this module turns them into spinner messages. Nothing is drawn when stderr is not a
//! terminal, under `--json` or under `--quiet`, so pipes, logs and CI output stay byte for byte
//! what they were. While a spinner is up, output the engine echoes (a check's) goes through
//! [`echo_stdout`], which clears the spinner line around each write.

use std::io::{IsTerminal as _, Write as _};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use salve_engine::ask::{self, ChainEvent};
use salve_engine::fix;

use crate::global::Global;

/// How often the spinner turns (and the elapsed time updates).
const TICK: Duration = Duration::from_millis(120);
/// A phase message is cut here, so a long reason does not wrap the spinner line.
const MESSAGE_MAX: usize = 100;
/// Replies at least this large get a spinner while they are applied.
pub const LARGE_APPLY: usize = 1 << 20;

/// The spinner that is up, for the echo functions.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// A check's output not yet written: the part after its last newline. The spinner is drawn on
/// the line below the echoed output, so a partial line written before it would get the spinner
/// glued to its end (`2 passed in 0.01s⠴ [1s] running the check`); it waits for its newline.
static PENDING: Mutex<LineBuffer> = Mutex::new(LineBuffer::new());

/// Output held back to whole lines; see [`PENDING`].
struct LineBuffer {
    pending: Vec<u8>,
}

impl LineBuffer {
    /// Past this, a line without a newline is written as it is: output that never ends its
    /// line (a progress bar of the check's own) still shows.
    const MAX: usize = 64 * 1024;

    const fn new() -> LineBuffer {
        LineBuffer {
            pending: Vec::new(),
        }
    }

    /// What can be written now, whole lines, after taking `bytes`.
    fn push(&mut self, bytes: &[u8]) -> Vec<u8> {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() > Self::MAX {
            return std::mem::take(&mut self.pending);
        }
        match self.pending.iter().rposition(|&b| b == b'\n') {
            Some(last) => {
                let rest = self.pending.split_off(last + 1);
                std::mem::replace(&mut self.pending, rest)
            }
            None => Vec::new(),
        }
    }

    /// The rest, ended with a newline so what follows starts on a line of its own.
    fn flush(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.pending);
        if !out.is_empty() {
            out.push(b'\n');
        }
        out
    }
}

/// A spinner on stderr, or nothing (see the module docs).
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A spinner if `global` and the terminal allow one, showing `phase`.
    pub fn start(global: &Global, phase: &str) -> Progress {
        let on = !global.json && !global.quiet && std::io::stderr().is_terminal();
        if !on {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template("{spinner} [{elapsed}] {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_message(cut(phase));
        bar.enable_steady_tick(TICK);
        if let Ok(mut active) = ACTIVE.lock() {
            *active = Some(bar.clone());
        }
        Progress { bar: Some(bar) }
    }

    /// No spinner.
    pub fn off() -> Progress {
        Progress { bar: None }
    }

    /// Whether a spinner is drawn.
    pub fn is_on(&self) -> bool {
        self.bar.is_some()
    }

    /// A line above the spinner (or on stderr as usual when there is none).
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Show `phase` as what is happening now.
    pub fn phase(&self, phase: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(cut(phase));
        }
    }

    /// Show an `ask` event.
    pub fn ask_event(&self, event: &ask::Event) {
        match event {
            ask::Event::Asking(a) => self.phase(&format!("asking {}", a.chain)),
            ask::Event::Provider(e) => self.chain_event(e),
            ask::Event::Applying { follow_up: false } => self.phase("applying the edit"),
            ask::Event::Applying { follow_up: true } => self.phase("applying the corrected edit"),
        }
    }

    /// Show a `fix` event.
    pub fn fix_event(&self, event: &fix::Event) {
        // Whatever the event, the check's output so far is over.
        flush_stdout();
        match event {
            fix::Event::Check { run: 1 } => self.phase("running the check"),
            fix::Event::Check { run } => self.phase(&format!("running the check (run {run})")),
            fix::Event::Repair { attempt, source } => {
                self.phase(&format!("attempt {attempt}: asking {source}"))
            }
            fix::Event::Applying { attempt } => {
                self.phase(&format!("attempt {attempt}: applying and verifying"))
            }
            fix::Event::Provider(e) => self.chain_event(e),
            fix::Event::Untrusted(note) => self.println(&format!("note: {note}")),
        }
    }

    fn chain_event(&self, event: &ChainEvent) {
        match event {
            ChainEvent::Calling { provider, call: 1 } => {
                self.phase(&format!("waiting for {provider}"))
            }
            ChainEvent::Calling { provider, call } => {
                self.phase(&format!("waiting for {provider} (call {call})"))
            }
            ChainEvent::Notice { provider, message } => {
                self.phase(&format!("waiting for {provider}: {message}"))
            }
            ChainEvent::Failed { provider, reason } => {
                self.phase(&format!("{provider} failed: {reason}"))
            }
            ChainEvent::Waiting { provider, wait_ms } => self.phase(&format!(
                "{provider} is overloaded; asking again in {:.1}s",
                *wait_ms as f64 / 1000.0
            )),
        }
    }

    /// Take the spinner off the terminal.
    pub fn finish(self) {
        drop(self);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        flush_stdout();
        if let Some(bar) = self.bar.take() {
            if let Ok(mut active) = ACTIVE.lock() {
                *active = None;
            }
            bar.finish_and_clear();
        }
    }
}

fn cut(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MESSAGE_MAX {
        return one_line;
    }
    let mut out: String = one_line.chars().take(MESSAGE_MAX - 1).collect();
    out.push('…');
    out
}

/// Write `bytes` with the spinner (if one is up) cleared around the write.
fn echo(bytes: &[u8], write: &dyn Fn(&[u8])) {
    let bar = ACTIVE.lock().ok().and_then(|active| active.clone());
    match bar {
        Some(bar) => bar.suspend(|| write(bytes)),
        None => write(bytes),
    }
}

/// A check's output to stdout, around the spinner, a whole line at a time (see [`PENDING`]).
/// Errors (a closed terminal) are ignored.
pub fn echo_stdout(bytes: &[u8]) {
    let ready = PENDING
        .lock()
        .map(|mut p| p.push(bytes))
        .unwrap_or_default();
    write_stdout(&ready);
}

/// Write the check's last partial line, if any, before anything else is shown.
fn flush_stdout() {
    let rest = PENDING.lock().map(|mut p| p.flush()).unwrap_or_default();
    write_stdout(&rest);
}

fn write_stdout(bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    echo(bytes, &|b| {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(b).and_then(|()| out.flush());
    });
}

#[cfg(test)]
mod tests {
    use super::LineBuffer;

    #[test]
    fn output_is_written_a_whole_line_at_a_time() {
        let mut b = LineBuffer::new();
        assert_eq!(b.push(b"2 passed"), b"");
        assert_eq!(b.push(b" in 0.01s\nnext"), b"2 passed in 0.01s\n");
        assert_eq!(b.push(b" line\n"), b"next line\n");
        assert_eq!(b.flush(), b"");
        assert_eq!(b.push(b"no newline at the end"), b"");
        assert_eq!(b.flush(), b"no newline at the end\n");
        let long = vec![b'='; LineBuffer::MAX + 1];
        assert_eq!(b.push(&long), long);
    }
}
