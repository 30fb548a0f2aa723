//! Colour for a person at a terminal, and for no one else. Every style the CLI uses is named
//! here, so the look is decided in one place and the renderers only say what a piece of text
//! *is* (a refused status, an added line, a hint).
//!
//! Whether a stream gets colour is decided once per stream ([`Paint::stdout`],
//! [`Paint::stderr`]) by anstream's rules: `--color always` or `never` decide alone; under
//! `auto` (the default), `NO_COLOR` (set and not empty) turns colour off, then `CLICOLOR_FORCE`
//! turns it on, then `CLICOLOR=0` turns it off, and otherwise only a terminal (with a `TERM`
//! other than `dumb`) gets it. A [`Paint`] that is off returns text unchanged, so output to a
//! pipe or a file is exactly what it was before colour existed: nothing is ever stripped from
//! the text (a file's own escape characters in a diff stay as they are). `--json` output never
//! passes through a [`Paint`].

use std::io::IsTerminal;

use anstream::{AutoStream, ColorChoice};
use anstyle::{AnsiColor, Style};
use salve_engine::report::Status;

/// `--color`: when to colour the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// Colour a terminal, unless NO_COLOR is set
    #[default]
    Auto,
    /// Always colour, even a pipe or a file
    Always,
    /// Never colour
    Never,
}

/// Take `--color` for the whole process; call once, before anything is printed.
pub fn init(when: ColorWhen) {
    let choice = match when {
        ColorWhen::Auto => ColorChoice::Auto,
        ColorWhen::Always => ColorChoice::AlwaysAnsi,
        ColorWhen::Never => ColorChoice::Never,
    };
    choice.write_global();
}

const GREEN: Style = AnsiColor::Green.on_default();
const RED: Style = AnsiColor::Red.on_default();
const YELLOW: Style = AnsiColor::Yellow.on_default();
const CYAN: Style = AnsiColor::Cyan.on_default();
const BOLD: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

/// What a piece of text says about how things went, whatever its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Done, or nothing needed doing (green).
    Good,
    /// Done in part, held back, or still under way (yellow).
    Caution,
    /// Refused or failed (red).
    Bad,
    /// Neither: checked, proposed (cyan).
    Info,
}

impl Tone {
    /// The tone of a file or hunk status.
    pub fn of(status: Status) -> Tone {
        match status {
            Status::Applied | Status::AlreadyApplied => Tone::Good,
            Status::Skipped => Tone::Caution,
            _ => Tone::Bad,
        }
    }

    fn style(self) -> Style {
        match self {
            Tone::Good => GREEN,
            Tone::Caution => YELLOW,
            Tone::Bad => RED,
            Tone::Info => CYAN,
        }
    }
}

/// Paints text for one stream, or leaves it alone; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paint {
    on: bool,
}

impl Paint {
    /// For text bound for stdout.
    pub fn stdout() -> Self {
        Self::for_stream(&std::io::stdout())
    }

    /// For text bound for stderr.
    pub fn stderr() -> Self {
        Self::for_stream(&std::io::stderr())
    }

    fn for_stream<S: anstream::stream::RawStream + IsTerminal>(stream: &S) -> Self {
        Paint {
            on: AutoStream::choice(stream) != ColorChoice::Never,
        }
    }

    fn paint(self, style: Style, text: &str) -> String {
        if self.on && !text.is_empty() {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// A file or hunk status: green when placed, yellow when held back, red when refused.
    pub fn status(self, status: Status, text: &str) -> String {
        self.paint(Tone::of(status).style(), text)
    }

    /// A closing verdict: bold, in its tone's colour.
    pub fn verdict(self, tone: Tone, text: &str) -> String {
        self.paint(tone.style().bold(), text)
    }

    /// `text` in the colour of a recorded run's `status` (`salve log`, `salve show`).
    pub fn run_status(self, status: &str, text: &str) -> String {
        let tone = match status {
            "applied" | "already_applied" | "repaired" | "passed" | "passed_first_try"
            | "already_green" | "no_change" => Tone::Good,
            "checked" | "proposed" => Tone::Info,
            "running" | "partial" => Tone::Caution,
            _ => Tone::Bad,
        };
        self.paint(tone.style(), text)
    }

    /// An identifier people copy: a run id, a checkpoint id.
    pub fn id(self, text: &str) -> String {
        self.paint(YELLOW, text)
    }

    /// Text that matters less: line numbers, counts in passing.
    pub fn dim(self, text: &str) -> String {
        self.paint(DIM, text)
    }

    /// Text that matters more: a candidate's own lines.
    pub fn bold(self, text: &str) -> String {
        self.paint(BOLD, text)
    }

    /// `Error:`, `Config error:`, `Internal error:`.
    pub fn error_label(self, text: &str) -> String {
        self.paint(RED.bold(), text)
    }

    /// `Hint:`.
    pub fn hint_label(self, text: &str) -> String {
        self.paint(CYAN.bold(), text)
    }

    /// `warning:`.
    pub fn warning_label(self, text: &str) -> String {
        self.paint(YELLOW.bold(), text)
    }

    /// `note:`.
    pub fn note_label(self, text: &str) -> String {
        self.paint(CYAN, text)
    }

    /// A unified diff, line by line as git colours one: headers bold, `@@` lines cyan, added
    /// lines green, removed lines red. Lines are told apart by the hunk headers' counts, so a
    /// removed `-- comment` is a removed line, not a header. Off, the diff comes back byte for
    /// byte.
    pub fn diff(self, diff: &str) -> String {
        if !self.on {
            return diff.to_owned();
        }
        let mut out = String::with_capacity(diff.len() + diff.len() / 4);
        // Old and new lines still to come in the current hunk.
        let (mut old, mut new) = (0usize, 0usize);
        for line in diff.split_inclusive('\n') {
            let (body, end) = match line.strip_suffix('\n') {
                Some(body) => (body, "\n"),
                None => (line, ""),
            };
            let style = if old > 0 || new > 0 {
                match body.as_bytes().first() {
                    Some(b'+') => {
                        new = new.saturating_sub(1);
                        Some(GREEN)
                    }
                    Some(b'-') => {
                        old = old.saturating_sub(1);
                        Some(RED)
                    }
                    Some(b'\\') => None,
                    _ => {
                        old = old.saturating_sub(1);
                        new = new.saturating_sub(1);
                        None
                    }
                }
            } else if body.starts_with("@@") {
                (old, new) = hunk_counts(body);
                Some(CYAN)
            } else {
                Some(BOLD)
            };
            match style {
                Some(style) => out.push_str(&self.paint(style, body)),
                None => out.push_str(body),
            }
            out.push_str(end);
        }
        out
    }
}

/// The old and new line counts of a hunk header `@@ -a,b +c,d @@` (a count left out is 1).
fn hunk_counts(header: &str) -> (usize, usize) {
    let mut parts = header.split_whitespace().skip(1);
    let count = |part: Option<&str>, sign: char| {
        part.and_then(|p| p.strip_prefix(sign))
            .and_then(|p| p.split_once(',').map_or(Some(1), |(_, n)| n.parse().ok()))
            .unwrap_or(0)
    };
    let old = count(parts.next(), '-');
    let new = count(parts.next(), '+');
    (old, new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_leaves_text_alone() {
        let p = Paint { on: false };
        let diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\u{1b}[31m kept\n";
        assert_eq!(p.diff(diff), diff);
        assert_eq!(p.status(Status::NotFound, "not found"), "not found");
    }

    #[test]
    fn on_colours_by_meaning() {
        let p = Paint { on: true };
        assert_eq!(
            p.status(Status::Applied, "applied"),
            "\u{1b}[32mapplied\u{1b}[0m"
        );
        assert_eq!(
            p.status(Status::Ambiguous, "ambiguous"),
            "\u{1b}[31mambiguous\u{1b}[0m"
        );
        let diff = p.diff("--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n");
        assert_eq!(
            diff,
            "\u{1b}[1m--- a/x\u{1b}[0m\n\u{1b}[1m+++ b/x\u{1b}[0m\n\u{1b}[36m@@ -1,2 +1,2 @@\u{1b}[0m\n\
             \u{1b}[31m-a\u{1b}[0m\n\u{1b}[32m+b\u{1b}[0m\n c\n"
        );
        // Inside a hunk, a removed `-- comment` and an added `++ x` are lines, not headers.
        let sql = p.diff("@@ -1 +1 @@\n--- old\n+++ new\n--- a/y\n");
        assert!(sql.contains("\u{1b}[31m--- old"), "{sql}");
        assert!(sql.contains("\u{1b}[32m+++ new"), "{sql}");
        assert!(sql.contains("\u{1b}[1m--- a/y"), "{sql}");
    }
}
