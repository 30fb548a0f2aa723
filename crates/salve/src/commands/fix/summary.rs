//! What `salve fix` prints: a summary for people (checks, attempts, the verdict, what changed,
//! cost and time), and in CI mode a Markdown step summary for GitHub Actions.

use std::fmt::Write as _;
use std::io::Write as _;

use salve_engine::fix::{Outcome, Verdict};

/// The human summary.
pub fn render(outcome: &Outcome) -> String {
    let mut out = String::new();
    for (i, check) in outcome.checks.iter().enumerate() {
        let class = check
            .class
            .as_ref()
            .map(|c| format!(" ({:?}: {})", c.class, c.reason).to_lowercase())
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "check {}: {}, {} failure(s){class}",
            i + 1,
            check.status,
            check.failures.len()
        );
    }
    for a in &outcome.attempts {
        let confidence = a
            .confidence
            .map(|c| format!(", confidence {c:.2}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "attempt {} ({}{confidence}): {}",
            a.seq,
            describe(&a.source),
            verdict(a.verdict)
        );
        for g in &a.guard {
            let _ = writeln!(out, "  guard: {g}");
        }
    }
    if !outcome.touched.is_empty() {
        let _ = writeln!(out, "changed: {}", outcome.touched.join(", "));
    }
    if let Some(commit) = &outcome.commit {
        let short: String = commit.chars().take(7).collect();
        let _ = writeln!(
            out,
            "committed {short} (Local verification: {})",
            outcome.verification.unwrap_or("passed")
        );
    }
    if outcome.restored {
        let _ = writeln!(out, "the tree was put back as it was before the fix");
    }
    let cost = outcome
        .cost_usd
        .map(|c| format!(", ${c:.4}"))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "fix: {} - {} ({} provider call(s){cost}, {:.1}s)",
        outcome.status.as_str(),
        outcome.message,
        outcome.provider_calls,
        outcome.duration_ms as f64 / 1000.0
    );
    if let Some(e) = &outcome.record_error {
        let _ = writeln!(out, "warning: the run was not fully recorded: {e}");
    }
    out
}

fn describe(source: &salve_engine::fix::Source) -> String {
    match source {
        salve_engine::fix::Source::Rule { id } => format!("rule {id}"),
        salve_engine::fix::Source::Model { provider } => provider.clone(),
        salve_engine::fix::Source::Proposed => "proposed fix".to_owned(),
    }
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Green => "the check passes",
        Verdict::Better => "fewer failures, kept",
        Verdict::NotBetter => "not better, undone",
        Verdict::Refused => "did not apply",
        Verdict::GuardRejected => "refused: it weakens the check",
        Verdict::LowConfidence => "not applied: confidence below the gate",
        Verdict::Environment => "undone: the check then failed outside the code",
        Verdict::Interrupted => "undone: interrupted",
    }
}

/// Failing tests and errors listed in the step summary; the count says how many more.
const LISTED_FAILURES: usize = 20;

/// The Markdown step summary: the outcome, the failures of the first check, the attempts, the
/// guard's findings (each once) and the diff. Text from the check and the model goes into code
/// spans and fences longer than any run of backticks it holds, so it cannot break the Markdown.
pub fn markdown(outcome: &Outcome) -> String {
    let mut md = String::new();
    let icon = if outcome.green { "✅" } else { "❌" };
    let _ = writeln!(
        md,
        "## {icon} salve fix: `{}`\n\n{}\n",
        outcome.status.as_str(),
        outcome.message
    );
    let _ = writeln!(md, "Check: {}\n", code_span(&outcome.command.join(" ")));
    if let Some(first) = outcome.checks.first().filter(|c| !c.failures.is_empty()) {
        md.push_str("### Failing\n\n");
        for f in first.failures.iter().take(LISTED_FAILURES) {
            let place = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("{file}:{line}"),
                (Some(file), None) => file.clone(),
                _ => String::new(),
            };
            let what = f.test.clone().unwrap_or(place);
            let message = f.message.lines().next().unwrap_or("");
            let _ = writeln!(md, "- {} {}", code_span(&what), escape(message));
        }
        if first.failures.len() > LISTED_FAILURES {
            let _ = writeln!(
                md,
                "- … and {} more",
                first.failures.len() - LISTED_FAILURES
            );
        }
        md.push('\n');
    }
    if !outcome.attempts.is_empty() {
        md.push_str("| attempt | source | verdict |\n|---:|---|---|\n");
        for a in &outcome.attempts {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                a.seq,
                escape(&describe(&a.source)),
                verdict(a.verdict)
            );
        }
        md.push('\n');
    }
    let mut findings: Vec<String> = Vec::new();
    for g in &outcome.guard {
        let g = g.to_string();
        if !findings.contains(&g) {
            findings.push(g);
        }
    }
    if !findings.is_empty() {
        md.push_str("### Guard findings\n\n");
        for g in &findings {
            let _ = writeln!(md, "- {}", code_span(g));
        }
        md.push('\n');
    }
    if !outcome.diff.is_empty() {
        let fence = "`".repeat(longest_backticks(&outcome.diff).max(2) + 1);
        let _ = write!(md, "### The fix\n\n{fence}diff\n{}", outcome.diff);
        if !outcome.diff.ends_with('\n') {
            md.push('\n');
        }
        let _ = writeln!(md, "{fence}");
    }
    if let Some(commit) = &outcome.commit {
        let _ = writeln!(md, "\nCommitted as `{commit}`.");
    }
    md
}

/// `text` as an inline code span: delimited by one backtick more than its longest run, padded
/// with a space where it starts or ends with one (CommonMark's rule), on one line.
fn code_span(text: &str) -> String {
    let text = text.replace(['\n', '\r'], " ");
    let ticks = "`".repeat(longest_backticks(&text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Prose from the check for a list item or a table cell: no line breaks, no cell separators.
fn escape(text: &str) -> String {
    text.replace(['\n', '\r'], " ").replace('|', "\\|")
}

/// Append the Markdown summary to `$GITHUB_STEP_SUMMARY` when it is set.
pub fn write_step_summary(outcome: &Outcome) {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") else {
        return;
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| f.write_all(markdown(outcome).as_bytes()));
    if let Err(e) = written {
        eprintln!("warning: cannot write the step summary: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::{code_span, escape, longest_backticks};

    #[test]
    fn code_spans_hold_backticks_and_cells_hold_pipes() {
        assert_eq!(code_span("cargo test"), "`cargo test`");
        assert_eq!(code_span("sh -c `x`"), "`` sh -c `x` ``");
        assert_eq!(code_span("a ``b`` c"), "```a ``b`` c```");
        assert_eq!(code_span("two\nlines"), "`two lines`");
        assert_eq!(longest_backticks("```diff\n`x`"), 3);
        assert_eq!(escape("a | b\nc"), "a \\| b c");
    }
}
