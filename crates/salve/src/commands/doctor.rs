//! `salve doctor`: what is installed and configured. The git version, the configuration files
//! looked for, every provider with whether it could answer (its program on PATH, its endpoint
//! reachable, its key variable set — the key itself is never printed), the chains, and where the
//! record is kept. Nothing is sent to any model.

use salve_engine::config::{Config, ModelHint, SourceKind};
use salve_llm::check::{availability, Availability};
use salve_llm::secret::redact;
use serde_json::{json, Value};

use crate::cli::Global;
use crate::error::CliError;
use crate::output::print_text;

#[derive(Debug, clap::Args)]
pub struct DoctorArgs {}

fn source_name(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::User => "user",
        SourceKind::Repository => "repository",
        SourceKind::Environment => "environment",
        SourceKind::Builtin => "builtin",
    }
}

pub fn run(global: &Global, _args: &DoctorArgs) -> Result<u8, CliError> {
    let dir = global.work_dir();
    let mut report = serde_json::Map::new();
    let mut problems = false;

    let git = match salve_git::git_version() {
        Ok((a, b, c)) => {
            let ok = (a, b) >= salve_git::MIN_GIT_VERSION;
            problems |= !ok;
            json!({"version": format!("{a}.{b}.{c}"), "ok": ok,
                   "minimum": format!("{}.{}", salve_git::MIN_GIT_VERSION.0, salve_git::MIN_GIT_VERSION.1)})
        }
        Err(e) => {
            problems = true;
            json!({"ok": false, "error": e.to_string()})
        }
    };
    report.insert("git".into(), git);

    let config_error;
    match Config::load(&dir) {
        Ok(config) => {
            config_error = false;
            report.insert("config".into(), config_json(&config));
            let env = |var: &str| std::env::var(var).ok();
            let providers: Vec<Value> = config
                .all_providers()
                .iter()
                .map(|p| {
                    let a: Availability = availability(&p.name, &p.spec, None, &env);
                    json!({
                        "name": p.name,
                        "origin": source_name(p.origin),
                        "kind": p.spec.kind.map(|k| k.as_str()),
                        "preset": p.spec.preset.map(|k| k.as_str()),
                        "model": p.spec.model,
                        "available": a.available,
                        "checks": a.checks,
                    })
                })
                .collect();
            report.insert("providers".into(), Value::Array(providers));
            let mut chains = serde_json::Map::new();
            for (label, hint) in [
                ("default", None),
                ("fast", Some(ModelHint::Fast)),
                ("quality", Some(ModelHint::Quality)),
            ] {
                let (name, providers) = config.chain_names(hint, None);
                chains.insert(label.into(), json!({"uses": name, "providers": providers}));
            }
            report.insert("chains".into(), Value::Object(chains));
            if let Some(p) = &config.provider_override {
                report.insert("provider_override".into(), json!(p));
            }
        }
        Err(e) => {
            config_error = true;
            report.insert(
                "config".into(),
                json!({"error": redact(&e.to_string()), "hint": e.hint()}),
            );
        }
    }

    let layout = salve_store::Layout::locate(&dir);
    let store_dir = std::fs::canonicalize(&layout.dir).unwrap_or(layout.dir.clone());
    report.insert(
        "store".into(),
        json!({"path": store_dir, "exists": layout.dir.is_dir(), "in_git": layout.in_git}),
    );

    let report = Value::Object(report);
    let text = if global.json {
        format!(
            "{}\n",
            redact(&serde_json::to_string_pretty(&report).unwrap_or_default())
        )
    } else if global.quiet {
        String::new()
    } else {
        redact(&render(&report))
    };
    print_text(&text)?;
    Ok(if config_error || problems { 2 } else { 0 })
}

fn config_json(config: &Config) -> Value {
    let sources: Vec<Value> = config
        .sources
        .iter()
        .map(|s| {
            json!({
                "kind": source_name(s.kind),
                "path": s.path,
                "found": s.found,
                "vars": s.vars,
            })
        })
        .collect();
    json!({
        "root": config.root,
        "sources": sources,
        "follow_ups": config.follow_ups,
        "warnings": config.warnings,
    })
}

fn render(report: &Value) -> String {
    let mut out = String::new();
    let git = &report["git"];
    match git["version"].as_str() {
        Some(v) if git["ok"] == true => out.push_str(&format!("git: {v}\n")),
        Some(v) => out.push_str(&format!(
            "git: {v} (too old; salve needs {} or newer)\n",
            git["minimum"].as_str().unwrap_or("?")
        )),
        None => out.push_str(&format!(
            "git: not usable: {}\n",
            git["error"].as_str().unwrap_or("?")
        )),
    }
    let config = &report["config"];
    if let Some(e) = config["error"].as_str() {
        out.push_str(&format!("config: error: {e}\n"));
        if let Some(h) = config["hint"].as_str() {
            out.push_str(&format!("  hint: {h}\n"));
        }
    } else {
        out.push_str("config:\n");
        for s in config["sources"].as_array().into_iter().flatten() {
            let kind = s["kind"].as_str().unwrap_or("?");
            if kind == "environment" {
                let vars = strings(&s["vars"]);
                let what = if vars.is_empty() {
                    "no SALVE_* settings".to_owned()
                } else {
                    vars.join(", ")
                };
                out.push_str(&format!("  environment: {what}\n"));
            } else {
                let found = if s["found"] == true {
                    "found"
                } else {
                    "not found"
                };
                out.push_str(&format!(
                    "  {kind}: {} ({found})\n",
                    s["path"].as_str().unwrap_or("?")
                ));
            }
        }
        for w in config["warnings"].as_array().into_iter().flatten() {
            out.push_str(&format!("  warning: {}\n", w.as_str().unwrap_or("")));
        }
    }
    if let Some(providers) = report["providers"].as_array() {
        out.push_str("providers:\n");
        for p in providers {
            let mut head = format!(
                "  {} ({}, {}",
                p["name"].as_str().unwrap_or("?"),
                p["origin"].as_str().unwrap_or("?"),
                p["kind"].as_str().unwrap_or("?")
            );
            if let Some(preset) = p["preset"].as_str() {
                head.push_str(&format!(", preset {preset}"));
            }
            if let Some(model) = p["model"].as_str() {
                head.push_str(&format!(", model {model}"));
            }
            let state = if p["available"] == true {
                "available"
            } else {
                "unavailable"
            };
            out.push_str(&format!("{head}): {state}\n"));
            for c in p["checks"].as_array().into_iter().flatten() {
                let mark = if c["ok"] == true { "ok" } else { "missing" };
                out.push_str(&format!(
                    "    {} {mark}: {}\n",
                    c["what"].as_str().unwrap_or("?"),
                    c["detail"].as_str().unwrap_or("")
                ));
            }
        }
    }
    if let Some(chains) = report["chains"].as_object() {
        out.push_str("chains:\n");
        for (label, c) in chains {
            let providers = strings(&c["providers"]);
            let uses = c["uses"].as_str().unwrap_or(label);
            let via = if uses == label {
                String::new()
            } else {
                format!(" (uses {uses})")
            };
            let list = if providers.is_empty() {
                "(none)".to_owned()
            } else {
                providers.join(", ")
            };
            out.push_str(&format!("  {label}{via}: {list}\n"));
        }
    }
    if let Some(p) = report["provider_override"].as_str() {
        out.push_str(&format!(
            "  SALVE_PROVIDER: {p} (used instead of a chain)\n"
        ));
    }
    let store = &report["store"];
    let state = match (store["exists"] == true, store["in_git"] == true) {
        (true, _) => "exists",
        (false, true) => "created on first use",
        (false, false) => "not kept: outside git, a record is kept only where .salve/ exists",
    };
    out.push_str(&format!(
        "store: {} ({state})\n",
        store["path"].as_str().unwrap_or("?")
    ));
    out
}

/// The strings of a JSON array (none when it is not one).
fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}
