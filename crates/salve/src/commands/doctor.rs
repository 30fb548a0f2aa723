//! `salve doctor`: what is installed and configured (see [`salve_engine::doctor`]). Exits 2 when
//! something is wrong (git unusable or too old, the configuration unreadable, no provider that
//! could answer), each problem with a hint.

use salve_engine::doctor::{self, ConfigCheck, GitCheck, Options, Report};

use crate::error::CliError;
use crate::global::Global;
use crate::output::{print_json_pretty, print_text};

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

pub fn run(global: &Global, _args: &DoctorArgs) -> Result<u8, CliError> {
    let report = doctor::doctor(&Options {
        dir: global.work_dir(),
    });
    if global.json {
        print_json_pretty(&report)?;
    } else if !global.quiet {
        print_text(&render(&report))?;
    }
    Ok(if report.healthy() { 0 } else { 2 })
}

fn render(report: &Report) -> String {
    let mut out = String::new();
    match &report.git {
        GitCheck::Found {
            version, ok: true, ..
        } => out.push_str(&format!("git: {version}\n")),
        GitCheck::Found {
            version, minimum, ..
        } => out.push_str(&format!(
            "git: {version} (too old; salve needs {minimum} or newer)\n"
        )),
        GitCheck::Unusable { error, .. } => out.push_str(&format!("git: not usable: {error}\n")),
    }
    render_config(&mut out, &report.config);
    if let Some(providers) = &report.providers {
        out.push_str("providers:\n");
        for p in providers {
            let mut head = format!(
                "  {} ({}, {}",
                p.name,
                source_name(p.origin),
                p.kind.unwrap_or("?")
            );
            if let Some(preset) = p.preset {
                head.push_str(&format!(", preset {preset}"));
            }
            if let Some(model) = &p.model {
                head.push_str(&format!(", model {model}"));
            }
            let state = match (p.available, p.signed_in) {
                (true, _) => "available",
                (false, Some(false)) => "installed, not signed in",
                (false, _) => "unavailable",
            };
            out.push_str(&format!("{head}): {state}\n"));
            for c in &p.checks {
                let mark = if c.ok { "ok" } else { "missing" };
                out.push_str(&format!("    {} {mark}: {}\n", c.what, c.detail));
            }
        }
    }
    if let Some(chains) = &report.chains {
        out.push_str("chains:\n");
        for (label, c) in chains {
            let via = if &c.uses == label {
                String::new()
            } else {
                format!(" (uses {})", c.uses)
            };
            let list = if c.providers.is_empty() {
                "(none)".to_owned()
            } else {
                c.providers.join(", ")
            };
            out.push_str(&format!("  {label}{via}: {list}\n"));
        }
    }
    if let Some(p) = &report.provider_override {
        out.push_str(&format!(
            "  SALVE_PROVIDER: {p} (used instead of a chain)\n"
        ));
    }
    let store = &report.store;
    let state = match (store.exists, store.in_git) {
        (true, _) => "exists",
        (false, true) => "created on first use",
        (false, false) => "not kept: outside git, a record is kept only where .salve/ exists",
    };
    out.push_str(&format!("store: {} ({state})\n", store.path.display()));
    for p in &report.problems {
        out.push_str(&format!("problem: {}\n  Hint: {}\n", p.what, p.hint));
    }
    salve_engine::ask::redact_secrets(&out)
}

fn render_config(out: &mut String, config: &ConfigCheck) {
    match config {
        ConfigCheck::Failed { error, hint } => {
            out.push_str(&format!("config: error: {error}\n"));
            if let Some(h) = hint {
                out.push_str(&format!("  hint: {h}\n"));
            }
        }
        ConfigCheck::Loaded {
            sources,
            trust,
            warnings,
            ..
        } => {
            out.push_str("config:\n");
            for s in sources {
                if s.kind == salve_engine::config::SourceKind::Environment {
                    let what = if s.vars.is_empty() {
                        "no SALVE_* settings".to_owned()
                    } else {
                        s.vars.join(", ")
                    };
                    out.push_str(&format!("  environment: {what}\n"));
                } else {
                    let found = if s.found { "found" } else { "not found" };
                    let path = s
                        .path
                        .as_deref()
                        .map_or_else(|| "?".to_owned(), |p| p.display().to_string());
                    out.push_str(&format!("  {}: {path} ({found})\n", source_name(s.kind)));
                }
            }
            for t in trust {
                let state = if t.trusted {
                    "trusted"
                } else {
                    "not trusted, ignored"
                };
                out.push_str(&format!(
                    "  [{}] in {}: {state} (it {})\n",
                    t.section,
                    t.file.display(),
                    t.power.describe()
                ));
            }
            if trust.iter().any(|t| !t.trusted) {
                out.push_str(
                    "  hint: read those sections, then `salve trust` allows them (`salve trust --show` lists them)\n",
                );
            }
            for w in warnings {
                out.push_str(&format!("  warning: {w}\n"));
            }
        }
    }
}

fn source_name(kind: salve_engine::config::SourceKind) -> &'static str {
    use salve_engine::config::SourceKind;
    match kind {
        SourceKind::User => "user",
        SourceKind::Repository => "repository",
        SourceKind::Environment => "environment",
        SourceKind::Builtin => "builtin",
    }
}
