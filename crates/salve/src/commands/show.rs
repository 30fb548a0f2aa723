//! `salve show RUN`: one recorded run in full: the run, its patch sets with their files, the
//! attempts with their checks, the decisions and the artifacts. `--diff` prints the applied diffs,
//! `--artifact NAME` one artifact as stored, `--json` everything as data.

use std::fmt::Write as _;

use salve_engine::record::{
    shell_words, show, Attempt, Decision, PatchSet, RunRecord, ShowOptions, ShowOutcome, Shown,
};

use crate::error::{failed, CliError};
use crate::global::Global;
use crate::output::{print_bytes, print_json_pretty, print_text};
use crate::style::Paint;

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The run: its id or any unique prefix of it (as `salve log` prints)
    #[arg(value_name = "RUN")]
    pub run: String,
    /// Print the diffs of the patch sets that were applied, and nothing else
    #[arg(long, conflicts_with = "artifact")]
    pub diff: bool,
    /// Print one artifact as stored (raw_reply, final_diff, apply_report, check_log, ...)
    #[arg(long, value_name = "NAME")]
    pub artifact: Option<String>,
}

pub fn run(global: &Global, args: &ShowArgs) -> Result<u8, CliError> {
    let what = match (&args.artifact, args.diff) {
        (Some(name), _) => Shown::Artifact(name.clone()),
        (None, true) => Shown::Diffs,
        (None, false) => Shown::Record,
    };
    let options = ShowOptions {
        dir: global.work_dir(),
        run: args.run.clone(),
        what,
    };
    match show(&options).map_err(failed)? {
        ShowOutcome::Artifact(bytes) => print_bytes(&bytes)?,
        ShowOutcome::Diffs { run, status, diffs } => {
            let paint = Paint::stdout();
            for diff in &diffs {
                // A diff that is not UTF-8 goes out as stored, never painted.
                match std::str::from_utf8(diff) {
                    Ok(text) => print_text(&paint.diff(text))?,
                    Err(_) => print_bytes(diff)?,
                }
            }
            if diffs.is_empty() && status == "checked" {
                eprintln!("run {run} was a check (--check): nothing was written");
            } else if diffs.is_empty() {
                eprintln!("run {run} applied no diff");
            }
        }
        ShowOutcome::Record(record) if global.json => print_json_pretty(&record)?,
        ShowOutcome::Record(record) if !global.quiet => {
            print_text(&render(&record, Paint::stdout()))?
        }
        ShowOutcome::Record(_) => {}
        // Not asked for by this command.
        ShowOutcome::RecordWithDiffs { .. } | ShowOutcome::Reports(_) => {}
    }
    Ok(0)
}

fn seconds(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1}s", ms as f64 / 1000.0)
    }
}

/// The human rendering of a run.
pub fn render(rec: &RunRecord, paint: Paint) -> String {
    let r = &rec.run;
    let mut out = String::new();
    let _ = writeln!(out, "run {}", paint.id(&r.id));
    let field = |out: &mut String, name: &str, value: &str| {
        let _ = writeln!(out, "{:<11} {value}", format!("{name}:"));
    };
    field(&mut out, "kind", r.kind.as_str());
    field(&mut out, "status", &paint.run_status(&r.status, &r.status));
    if let Some(m) = &r.message {
        field(&mut out, "message", m);
    }
    field(&mut out, "command", &shell_words(&r.command));
    field(&mut out, "started", &r.started_at.to_rfc3339());
    if let Some(end) = r.ended_at {
        let took = seconds(end.0 - r.started_at.0);
        field(&mut out, "ended", &format!("{} ({took})", end.to_rfc3339()));
    }
    if let Some(b) = &r.baseline {
        field(&mut out, "baseline", b);
    }
    if let Some(c) = &r.checkpoint {
        field(&mut out, "checkpoint", c);
    }
    if let Some(b) = &r.budgets {
        field(&mut out, "budgets", &b.to_string());
    }
    let files = if r.files == 1 { "file" } else { "files" };
    field(
        &mut out,
        "changed",
        &format!("{} {files} (+{} -{})", r.files, r.added, r.removed),
    );
    for p in &rec.patch_sets {
        render_patch_set(&mut out, p, paint);
    }
    for a in &rec.attempts {
        render_attempt(&mut out, a);
    }
    for d in &rec.decisions {
        render_decision(&mut out, d);
    }
    if !rec.artifacts.is_empty() {
        let _ = writeln!(
            out,
            "\nartifacts (salve show {} --artifact NAME):",
            short(&r.id)
        );
        let w = rec
            .artifacts
            .iter()
            .map(|a| a.name.len())
            .max()
            .unwrap_or(0);
        for a in &rec.artifacts {
            let _ = writeln!(
                out,
                "  {:<w$}  {:>9}  sha256 {}",
                a.name,
                human_size(a.size),
                &a.sha256[..a.sha256.len().min(16)]
            );
        }
    }
    out
}

fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}

fn render_patch_set(out: &mut String, p: &PatchSet, paint: Paint) {
    let format = p
        .format
        .as_deref()
        .map(|f| format!(" ({f})"))
        .unwrap_or_default();
    let status = paint.run_status(p.status.as_str(), p.status.as_str());
    let _ = writeln!(out, "\npatch set {}: {status}{format}", p.seq);
    if let Some(reason) = &p.reason {
        let _ = writeln!(out, "  reason: {reason}");
    }
    if let Some(rationale) = &p.rationale {
        let _ = writeln!(out, "  rationale: {rationale}");
    }
    if let Some(base) = &p.baseline {
        let _ = writeln!(out, "  baseline: {base}");
    }
    for f in &p.files {
        let from = f
            .old_path
            .as_deref()
            .map(|o| format!("{o} -> "))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<6} {from}{} +{} -{}",
            f.change.as_str(),
            f.path,
            f.added,
            f.removed
        );
    }
    if let Some(sha) = &p.diff_sha256 {
        let _ = writeln!(out, "  diff: sha256 {}", &sha[..sha.len().min(16)]);
    }
}

fn render_attempt(out: &mut String, a: &Attempt) {
    let mut head = Vec::new();
    if let Some(ps) = a.patch_set {
        head.push(format!("patch set {ps}"));
    }
    if let Some(code) = a.exit_code {
        head.push(format!("exit {code}"));
    }
    if let Some(class) = &a.failure_class {
        head.push(class.clone());
    }
    if let Some(d) = a.duration_ms {
        head.push(seconds(i64::try_from(d).unwrap_or(i64::MAX)));
    }
    let _ = writeln!(out, "\nattempt {}: {}", a.seq, head.join(", "));
    if let Some(cmd) = &a.check_command {
        let _ = writeln!(out, "  check: {cmd}");
    }
    let mut model = Vec::new();
    if let Some(p) = &a.provider {
        model.push(p.clone());
    }
    if let Some(m) = &a.model {
        model.push(m.clone());
    }
    if let (Some(i), Some(o)) = (a.tokens_in, a.tokens_out) {
        model.push(format!("{i} in / {o} out tokens"));
    }
    if let Some(c) = a.cost_usd {
        model.push(format!("${c:.4}"));
    }
    if let Some(l) = a.latency_ms {
        model.push(format!(
            "{} latency",
            seconds(i64::try_from(l).unwrap_or(i64::MAX))
        ));
    }
    if !model.is_empty() {
        let _ = writeln!(out, "  model: {}", model.join(", "));
    }
    if let Some(log) = &a.log_artifact {
        let _ = writeln!(out, "  log: artifact {log}");
    }
}

fn render_decision(out: &mut String, d: &Decision) {
    let conf = d
        .confidence
        .map(|c| format!(" (confidence {c:.2})"))
        .unwrap_or_default();
    let _ = writeln!(out, "\ndecision {}: {}{conf}", d.seq, d.chosen);
    if !d.alternatives.is_empty() {
        let _ = writeln!(out, "  alternatives: {}", d.alternatives.join("; "));
    }
    if let Some(e) = &d.evidence {
        for (i, line) in e.lines().enumerate() {
            let label = if i == 0 {
                "  evidence: "
            } else {
                "            "
            };
            let _ = writeln!(out, "{label}{line}");
        }
    }
}

fn human_size(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    }
}
