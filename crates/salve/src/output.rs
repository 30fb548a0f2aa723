//! The human rendering of an apply report: one line per file, one per hunk, the reason and best
//! candidates on failure, and a closing verdict. Plain text only, so `NO_COLOR` and pipes need
//! nothing special.

use std::fmt::Write as _;

use salve_patch::report::{FileReport, HunkReport, Outcome, Report, Status};

/// Candidates shown per failed hunk; the JSON report has them all.
const MAX_CANDIDATES: usize = 3;

fn status_word(status: Status) -> String {
    status.as_str().replace('_', " ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for file in &report.files {
        render_file(&mut out, file);
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
        let _ = writeln!(out, "issue: {kind}{path}: {}", issue.message);
    }
    let _ = writeln!(out, "{}", verdict(report));
    out
}

fn render_file(out: &mut String, file: &FileReport) {
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
    let _ = writeln!(out, "{head}: {} ({detail})", status_word(file.status));
    if let Some(message) = &file.message {
        let _ = writeln!(out, "  {message}");
    }
    for hunk in &file.hunks {
        render_hunk(out, hunk);
    }
}

fn render_hunk(out: &mut String, hunk: &HunkReport) {
    let mut line = format!("  hunk {}: {}", hunk.index + 1, status_word(hunk.status));
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
    for cand in hunk
        .candidates
        .iter()
        .take(MAX_CANDIDATES)
        .filter(|c| !quoted(&c.diff))
    {
        let _ = writeln!(
            out,
            "    candidate at lines {}-{} (similarity {:.2}):",
            cand.lines.start, cand.lines.end, cand.score
        );
        for l in cand.diff.lines() {
            let _ = writeln!(out, "      {l}");
        }
    }
    if hunk.candidates.len() > MAX_CANDIDATES {
        let _ = writeln!(
            out,
            "    ... and {} more (see --json)",
            hunk.candidates.len() - MAX_CANDIDATES
        );
    }
}

fn verdict(report: &Report) -> String {
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
            let why = if report
                .files
                .iter()
                .any(|f| f.status == Status::PathRejected)
                || report
                    .issues
                    .iter()
                    .any(|i| i.message.starts_with("path `"))
            {
                "the reply names a path outside the work tree or inside .git".to_owned()
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
