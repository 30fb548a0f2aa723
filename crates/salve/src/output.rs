//! What the commands print, and how:
//!
//! - writing to stdout, where a closed pipe (`salve log | head`) is not an error, as text, bytes
//!   or JSON ([`print_text`], [`print_bytes`], [`print_json`], [`print_json_pretty`]);
//! - the small formatters several commands share: paths, sizes, plurals, times and ages;
//! - the human rendering of an apply report ([`render`]): one line per file, one per hunk, the
//!   reason and best candidates on failure (each with its scope and numbered lines around it),
//!   and a closing verdict.
//!
//! Colour comes from [`crate::style`], through the [`Paint`] a caller passes for the stream the
//! text goes to; JSON never takes any.

use std::fmt::Write as _;
use std::io::Write as _;

use salve_engine::checkpoint::{SkipReason, Skipped};
use salve_engine::record::Timestamp;
use salve_engine::report::{numbered, Candidate, FileReport, HunkReport, Outcome, Report, Status};
use salve_engine::restore;
use serde::Serialize;

use crate::error::CliError;
use crate::global::Global;
use crate::style::{Paint, Tone};

/// Write to stdout; a closed pipe is not an error.
pub fn print_text(text: &str) -> Result<(), CliError> {
    print_bytes(text.as_bytes())
}

/// Write bytes as they are to stdout; a closed pipe is not an error.
pub fn print_bytes(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(CliError::user(format!("cannot write to stdout: {e}"))),
    }
}

/// `value` as one line of JSON on stdout.
pub fn print_json(value: &impl Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string(value).map_err(encoding_error)?;
    print_text(&format!("{text}\n"))
}

/// `value` as indented JSON on stdout.
pub fn print_json_pretty(value: &impl Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(value).map_err(encoding_error)?;
    print_text(&format!("{text}\n"))
}

fn encoding_error(e: serde_json::Error) -> CliError {
    CliError::internal(format!("encoding the JSON output: {e}"))
}

/// The command line as typed, with the program named `salve` whatever its path.
pub fn command_line() -> Vec<String> {
    let mut args: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(first) = args.first_mut() {
        *first = "salve".to_owned();
    }
    args
}

/// Paths a checkpoint left out: a warning on stderr each (data on stdout stays clean).
pub fn report_skipped(global: &Global, skipped: &[Skipped]) {
    if global.quiet || skipped.is_empty() {
        return;
    }
    let warning = Paint::stderr().warning_label("warning:");
    let mut stderr = std::io::stderr().lock();
    for s in skipped {
        let why = match &s.reason {
            SkipReason::TooLarge { bytes } => {
                format!(
                    "untracked file of {} over the size limit",
                    human_bytes(*bytes)
                )
            }
            SkipReason::LargeDirectory { files, bytes } => format!(
                "untracked directory of {files} files ({}) over the limits",
                human_bytes(*bytes)
            ),
            SkipReason::NestedRepository => "nested repository, left alone".to_owned(),
        };
        let _ = writeln!(
            stderr,
            "{warning} not in the checkpoint: {} ({why})",
            s.path
        );
    }
}

/// A restore (or the restore an undo made): the paths skipped on stderr, then `json` as JSON,
/// or a summary beginning with `verb`.
pub fn render_restore(
    global: &Global,
    outcome: &restore::Outcome,
    verb: &str,
    json: &impl Serialize,
) -> Result<(), CliError> {
    report_skipped(global, &outcome.before_checkpoint.skipped);
    if global.json {
        return print_json(json);
    }
    if global.quiet {
        return Ok(());
    }
    let mut text = format!(
        "{verb} checkpoint {}: {} written, {} deleted\n",
        outcome.target,
        outcome.written.len(),
        outcome.deleted.len()
    );
    if !outcome.captured.is_empty() {
        text.push_str(&format!(
            "note: {} uncaptured file(s) were saved before being overwritten: {}\n",
            outcome.captured.len(),
            outcome.captured.join(", ")
        ));
    }
    if outcome.head_differs {
        text.push_str(
            "note: HEAD has moved since that checkpoint; HEAD was left alone and the staged \
             state is the checkpoint's\n",
        );
    }
    if !outcome.index_restored {
        text.push_str("note: the checkpoint recorded no staged state; the index was left alone\n");
    }
    text.push_str(&format!(
        "the previous state is checkpoint {}; `salve undo` goes back to it\n",
        outcome.before
    ));
    print_text(&text)
}

/// What the command line adds to an apply's notes: how to undo it (or that nothing can), and
/// the flags that would have written what the engine refused by default.
pub fn apply_notes(outcome: &salve_engine::apply::Outcome, partial: bool) -> Vec<String> {
    use salve_engine::report::Status;
    let report = &outcome.report;
    let mut notes = Vec::new();
    if let Some(id) = &outcome.checkpoint {
        notes.push(format!(
            "checkpoint {id} taken before writing; `salve undo` reverts this apply"
        ));
    } else if outcome.no_checkpoint.is_some() {
        notes.push(
            "not in a git repository: no checkpoint was taken, so `salve undo` cannot revert \
             this apply"
                .to_owned(),
        );
    }
    let skipped = report.files.iter().any(|f| f.status == Status::Skipped);
    let whole_reply_issue = report.issues.iter().any(|i| i.path.is_none());
    if skipped && !whole_reply_issue && !partial && !report.check_only {
        notes.push("--partial writes the files that placed".to_owned());
    }
    if report.files.iter().any(|f| f.status == Status::Syntax) {
        notes.push("--no-syntax-check writes a file that would not parse anyway".to_owned());
    }
    let cut_whole = |f: &FileReport| {
        f.status == Status::Truncated && f.hunks.iter().any(|h| h.status == Status::Truncated)
    };
    if report.files.iter().any(cut_whole) {
        notes.push(
            "--allow-shrink writes a whole file that keeps only part of the old one".to_owned(),
        );
    }
    notes
}

/// `1 file`, `2 files`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `512 B`, `1.5 KiB`, `15.0 MiB`, ... up to TiB.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: &[&str] = &["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `5s ago`, `3m ago`, `2h ago`, `4d ago` for a Unix time in seconds.
pub fn age(time: i64) -> String {
    let now = Timestamp::now().millis() / 1000;
    let secs = (now - time).max(0);
    match secs {
        s if s < 60 => format!("{s}s ago"),
        s if s < 3_600 => format!("{}m ago", s / 60),
        s if s < 86_400 => format!("{}h ago", s / 3_600),
        s => format!("{}d ago", s / 86_400),
    }
}

/// `2026-11-21 08:38 UTC` for a Unix time in seconds.
pub fn utc(time: i64) -> String {
    format!("{} UTC", Timestamp(time.saturating_mul(1000)).to_short())
}

/// Candidates shown per failed hunk.
const MAX_CANDIDATES: usize = 3;
/// Hunks shown per report, and files: a reply of 100,000 hunks is summarised, not printed
/// (`--json` has every hunk's status and message).
const MAX_HUNKS: usize = 40;
const MAX_FILES: usize = 100;

fn status_word(status: Status) -> String {
    status.as_str().replace('_', " ")
}

/// The human rendering of an apply report, painted with `paint`; see the module docs.
pub fn render(report: &Report, paint: Paint) -> String {
    let mut out = String::new();
    let mut hunks_left = MAX_HUNKS;
    for file in report.files.iter().take(MAX_FILES) {
        render_file(&mut out, file, paint, &mut hunks_left);
    }
    if let Some(rest) = report.files.get(MAX_FILES..).filter(|r| !r.is_empty()) {
        let statuses = count_statuses(rest.iter().map(|f| f.status));
        let _ = writeln!(
            out,
            "… {} not shown: {statuses} (--json lists every file)",
            plural(rest.len(), "more file")
        );
    }
    for issue in &report.issues {
        let path = issue
            .path
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default();
        let kind = serde_json::to_value(issue.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let label = paint.status(Status::Malformed, "issue:");
        let _ = writeln!(out, "{label} {kind}{path}: {}", issue.message);
    }
    if report.details_omitted > 0 {
        let _ = writeln!(
            out,
            "note: the first {} failed hunks are told in detail; {} more have their status only",
            salve_engine::report::DETAILED_HUNKS,
            report.details_omitted
        );
    }
    let (tone, text) = verdict(report);
    let _ = writeln!(out, "{}", paint.verdict(tone, &text));
    out
}

/// `3 applied, 99,997 not found`: how many of each status, in the order first seen.
fn count_statuses(statuses: impl Iterator<Item = Status>) -> String {
    let mut counts: Vec<(Status, usize)> = Vec::new();
    for status in statuses {
        match counts.iter_mut().find(|(s, _)| *s == status) {
            Some((_, n)) => *n += 1,
            None => counts.push((status, 1)),
        }
    }
    counts
        .iter()
        .map(|(s, n)| format!("{n} {}", status_word(*s)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn render_file(out: &mut String, file: &FileReport, paint: Paint, hunks_left: &mut usize) {
    let mut head = file.path.clone();
    if let Some(req) = &file.requested_path {
        let _ = write!(head, " (the reply said {req})");
    }
    if let Some(to) = &file.new_path {
        let _ = write!(head, " -> {to}");
    }
    let change = serde_json::to_value(file.change)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut detail = format!("{change}, {}", file.format.as_str());
    if file.added > 0 || file.removed > 0 {
        let _ = write!(detail, ", +{} -{}", file.added, file.removed);
    }
    let status = paint.status(file.status, &status_word(file.status));
    let _ = writeln!(out, "{head}: {status} ({detail})");
    if let Some(message) = &file.message {
        let _ = writeln!(out, "  {message}");
    }
    let shown = file.hunks.len().min(*hunks_left);
    *hunks_left -= shown;
    for hunk in &file.hunks[..shown] {
        render_hunk(out, hunk, paint);
    }
    if shown < file.hunks.len() {
        let rest = &file.hunks[shown..];
        let statuses = count_statuses(rest.iter().map(|h| h.status));
        let _ = writeln!(
            out,
            "  … {} not shown: {statuses} (--json lists every hunk)",
            plural(rest.len(), "more hunk")
        );
    }
}

fn render_hunk(out: &mut String, hunk: &HunkReport, paint: Paint) {
    let status = paint.status(hunk.status, &status_word(hunk.status));
    let mut line = format!("  hunk {}: {status}", hunk.index + 1);
    if let Some(range) = hunk.lines {
        if range.start == range.end {
            let _ = write!(line, " at line {}", range.start);
        } else {
            let _ = write!(line, " at lines {}-{}", range.start, range.end);
        }
    }
    let mut how = Vec::new();
    if let Some(rung) = hunk.rung {
        how.push(rung.as_str().to_owned());
    }
    if let Some(s) = hunk.similarity {
        how.push(format!("similarity {s:.2}"));
    }
    if let Some(m) = hunk.margin {
        how.push(format!("margin {m:.2}"));
    }
    if !how.is_empty() {
        let _ = write!(line, " ({})", how.join(", "));
    }
    let _ = writeln!(out, "{line}");
    if let Some(message) = &hunk.message {
        // Continuation lines (a quoted diff) sit deeper than the message they belong to.
        for (i, l) in message.lines().enumerate() {
            let indent = if i == 0 { "    " } else { "      " };
            let _ = writeln!(out, "{indent}{l}");
        }
    }
    if hunk.status.is_success() {
        return;
    }
    // A message that already quotes a candidate's diff need not be followed by it again.
    let quoted = |diff: &str| hunk.message.as_deref().is_some_and(|m| m.contains(diff));
    for cand in hunk.candidates.iter().take(MAX_CANDIDATES) {
        render_candidate(out, cand, !quoted(&cand.diff), paint);
    }
    let omitted = hunk.candidates.len().saturating_sub(MAX_CANDIDATES) + hunk.candidates_omitted;
    if omitted > 0 {
        let _ = writeln!(out, "    … {} not shown", plural(omitted, "more candidate"));
    }
}

/// One candidate: where it is and in what scope, its character diff unless the hunk's message
/// already quotes it, and its numbered lines (`>` marking its own).
fn render_candidate(out: &mut String, cand: &Candidate, with_diff: bool, paint: Paint) {
    let scope = cand
        .scope
        .as_ref()
        .map(|s| format!(", in `{}` (line {})", s.text, s.line))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "    candidate at lines {}-{} (similarity {:.2}){scope}:",
        cand.lines.start, cand.lines.end, cand.score
    );
    if with_diff {
        for l in cand.diff.lines() {
            let _ = writeln!(out, "      {l}");
        }
    }
    // `> 12 | text` (or `> 12 |` for an empty line, `   ⋮` for lines left out): the number dim,
    // the candidate's own text bold.
    for l in numbered(cand).lines() {
        let line = match l.split_once(" | ") {
            Some((number, text)) if number.starts_with('>') => {
                format!("{} {}", paint.dim(&format!("{number} |")), paint.bold(text))
            }
            Some((number, text)) => format!("{} {text}", paint.dim(&format!("{number} |"))),
            None => paint.dim(l),
        };
        let _ = writeln!(out, "      {line}");
    }
}

/// The closing line, and its tone.
fn verdict(report: &Report) -> (Tone, String) {
    let tone = match report.outcome {
        Outcome::Applied | Outcome::AlreadyApplied => Tone::Good,
        Outcome::Partial => Tone::Caution,
        Outcome::Refused => Tone::Bad,
    };
    (tone, verdict_text(report))
}

fn verdict_text(report: &Report) -> String {
    let changed: Vec<&FileReport> = report
        .files
        .iter()
        .filter(|f| f.status == Status::Applied)
        .collect();
    let added: usize = changed.iter().map(|f| f.added).sum();
    let removed: usize = changed.iter().map(|f| f.removed).sum();
    let refused = report
        .files
        .iter()
        .filter(|f| !f.status.is_success() && f.status != Status::Skipped)
        .count();
    let files = plural(changed.len(), "file");
    match report.outcome {
        Outcome::Applied if report.check_only => {
            format!("check: {files} would change (+{added} -{removed}); nothing written")
        }
        Outcome::Applied => format!("applied: {files} changed (+{added} -{removed})"),
        Outcome::AlreadyApplied => "already applied: nothing to change".to_owned(),
        Outcome::Partial if report.check_only => format!(
            "partial check: {files} would change, {} refused; nothing written",
            refused
        ),
        Outcome::Partial => format!("partial: {files} changed, {} refused", refused),
        Outcome::Refused => {
            let why = if let Some(repository) = other_repository(report) {
                format!(
                    "a path is inside the repository `{repository}`; apply it there with \
                     `salve -C {repository} apply`, with paths relative to it"
                )
            } else if report
                .files
                .iter()
                .any(|f| f.status == Status::PathRejected)
                || report
                    .issues
                    .iter()
                    .any(|i| i.message.starts_with("path `"))
            {
                "the reply names a path that is not allowed (see above)".to_owned()
            } else if report.issues.iter().any(|i| i.path.is_none()) {
                "the reply as a whole could not be used (see issues)".to_owned()
            } else if refused > 0 && report.files.iter().any(|f| f.status == Status::Skipped) {
                format!(
                    "{} refused; --partial writes the others",
                    plural(refused, "file")
                )
            } else {
                format!("{} refused", plural(refused.max(1), "file"))
            };
            format!("refused: nothing written; {why}")
        }
    }
}

/// The repository a rejected path lies in, when a path was rejected for being in another one.
fn other_repository(report: &Report) -> Option<String> {
    let marker = salve_engine::paths::OTHER_REPOSITORY;
    report
        .files
        .iter()
        .filter(|f| f.status == Status::PathRejected)
        .filter_map(|f| f.message.as_deref())
        .chain(report.issues.iter().map(|i| i.message.as_str()))
        .find_map(|m| {
            let rest = &m[m.find(marker)? + marker.len()..];
            let rest = rest.trim_start().strip_prefix('`')?;
            Some(rest[..rest.find('`')?].to_owned())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_times() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(15 << 20), "15.0 MiB");
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_795_250_928), "2026-11-21 08:48 UTC");
    }
}
