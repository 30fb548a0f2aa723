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

/// The Markdown step summary: the outcome, the attempts, the diff and the guard's findings.
pub fn markdown(outcome: &Outcome) -> String {
    let mut md = String::new();
    let icon = if outcome.green { "✅" } else { "❌" };
    let _ = writeln!(
        md,
        "## {icon} salve fix: `{}`\n\n{}\n",
        outcome.status.as_str(),
        outcome.message
    );
    let _ = writeln!(md, "Check: `{}`\n", outcome.command.join(" "));
    if !outcome.attempts.is_empty() {
        md.push_str("| attempt | source | verdict |\n|---:|---|---|\n");
        for a in &outcome.attempts {
            let _ = writeln!(
                md,
                "| {} | {} | {} |",
                a.seq,
                describe(&a.source),
                verdict(a.verdict)
            );
        }
        md.push('\n');
    }
    if !outcome.guard.is_empty() {
        md.push_str("### Guard findings\n\n");
        for g in &outcome.guard {
            let _ = writeln!(md, "- `{g}`");
        }
        md.push('\n');
    }
    if !outcome.diff.is_empty() {
        let _ = write!(md, "### The fix\n\n```diff\n{}```\n", outcome.diff);
    }
    if let Some(commit) = &outcome.commit {
        let _ = writeln!(md, "\nCommitted as `{commit}`.");
    }
    md
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
