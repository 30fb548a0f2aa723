//! The environment layer: `SALVE_*` variables, the strongest settings.
//!
//! | variable | sets |
//! |---|---|
//! | `SALVE_PROVIDER` | use this provider alone instead of a chain (like `--provider`) |
//! | `SALVE_CHAIN_DEFAULT`, `SALVE_CHAIN_FAST`, `SALVE_CHAIN_QUALITY` | a chain, as `a,b,c` |
//! | `SALVE_FOLLOW_UPS` | `[ask] follow_ups` |
//! | `SALVE_MAX_RETRIES` | `[retry] max_retries` |
//! | `SALVE_PROVIDER_<NAME>_<FIELD>` | one field of `[providers.<name>]` |
//!
//! `<FIELD>` is a schema field in capitals (`KIND`, `COMMAND`, `PRESET`, `BASE_URL`, `MODEL`,
//! `API_KEY_ENV`, `CASSETTE`, `TIMEOUT_SECS`, `STREAM`, `MAX_TOKENS`, `MAX_OUTPUT_BYTES`).
//! `<NAME>` matches a configured provider case-insensitively with `-` read as `_`; otherwise it
//! defines a new provider named in lower case. `COMMAND` is a JSON array, or words split at
//! whitespace. Other `SALVE_*` variables belong to other commands and are left alone.

use std::collections::BTreeMap;
use std::path::Path;

use toml::{Table, Value};

use super::ConfigError;

/// Environment variables, captured once so a load sees one consistent set (and tests can pass
/// their own).
#[derive(Clone, Debug, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl Env {
    /// The process environment (variables that are not UTF-8 are skipped).
    pub fn from_process() -> Env {
        Env {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Env {
        Env {
            vars: pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.vars
            .iter()
            .filter(move |(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// What the environment layer did.
#[derive(Debug, Default)]
pub(super) struct Applied {
    /// The variables used, by name (never their values: one may be a path to a secret).
    pub vars: Vec<String>,
    pub provider: Option<String>,
    pub providers_touched: Vec<String>,
}

/// Field suffixes, longest first so `_API_KEY_ENV` is not read as `_ENV`-something shorter.
const FIELDS: &[(&str, FieldType)] = &[
    ("_MAX_OUTPUT_BYTES", FieldType::Integer),
    ("_TIMEOUT_SECS", FieldType::Integer),
    ("_API_KEY_ENV", FieldType::Text),
    ("_MAX_TOKENS", FieldType::Integer),
    ("_BASE_URL", FieldType::Text),
    ("_CASSETTE", FieldType::Path),
    ("_COMMAND", FieldType::Words),
    ("_PRESET", FieldType::Text),
    ("_STREAM", FieldType::Bool),
    ("_MODEL", FieldType::Text),
    ("_KIND", FieldType::Text),
];

#[derive(Clone, Copy)]
enum FieldType {
    Text,
    Path,
    Integer,
    Bool,
    Words,
}

fn env_error(var: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Env {
        var: var.to_owned(),
        message: message.into(),
    }
}

/// Set `value` at `path` (tables created as needed; a non-table in the way is replaced). Keys
/// keep their place, so the order providers were listed in survives.
fn set(table: &mut Table, path: &[&str], value: Value) {
    match path {
        [] => {}
        [last] => {
            table.insert((*last).to_owned(), value);
        }
        [first, rest @ ..] => {
            if !matches!(table.get(*first), Some(Value::Table(_))) {
                table.insert((*first).to_owned(), Value::Table(Table::new()));
            }
            if let Some(Value::Table(inner)) = table.get_mut(*first) {
                set(inner, rest, value);
            }
        }
    }
}

fn integer(var: &str, value: &str) -> Result<Value, ConfigError> {
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|n| *n >= 0)
        .map(Value::Integer)
        .ok_or_else(|| env_error(var, format!("`{value}` is not a non-negative integer")))
}

fn list(value: &str) -> Vec<Value> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| Value::String(s.to_owned()))
        .collect()
}

/// Apply the `SALVE_*` variables of `env` to the merged table. Relative paths are taken from
/// `dir`.
pub(super) fn apply(merged: &mut Table, env: &Env, dir: &Path) -> Result<Applied, ConfigError> {
    let mut applied = Applied::default();
    if let Some(name) = env.get("SALVE_PROVIDER").filter(|v| !v.trim().is_empty()) {
        applied.provider = Some(name.trim().to_owned());
        applied.vars.push("SALVE_PROVIDER".to_owned());
    }
    for chain in ["default", "fast", "quality"] {
        let var = format!("SALVE_CHAIN_{}", chain.to_ascii_uppercase());
        if let Some(value) = env.get(&var) {
            set(merged, &["chains", chain], Value::Array(list(value)));
            applied.vars.push(var);
        }
    }
    for (var, section, key) in [
        ("SALVE_FOLLOW_UPS", "ask", "follow_ups"),
        ("SALVE_MAX_RETRIES", "retry", "max_retries"),
    ] {
        if let Some(value) = env.get(var) {
            set(merged, &[section, key], integer(var, value)?);
            applied.vars.push(var.to_owned());
        }
    }
    let existing: Vec<String> = match merged.get("providers") {
        Some(Value::Table(t)) => t.keys().cloned().collect(),
        _ => Vec::new(),
    };
    for (var, value) in env.with_prefix("SALVE_PROVIDER_") {
        let rest = &var["SALVE_PROVIDER_".len()..];
        let Some((suffix, kind)) = FIELDS.iter().find(|(s, _)| rest.ends_with(s)) else {
            return Err(env_error(
                var,
                "does not end in a provider field (_KIND, _COMMAND, _PRESET, _BASE_URL, _MODEL, \
                 _API_KEY_ENV, _CASSETTE, _TIMEOUT_SECS, _STREAM, _MAX_TOKENS, _MAX_OUTPUT_BYTES)",
            ));
        };
        let name_part = &rest[..rest.len() - suffix.len()];
        if name_part.is_empty() {
            return Err(env_error(var, "names no provider"));
        }
        let wanted = name_part.to_ascii_lowercase();
        let name = existing
            .iter()
            .find(|n| n.to_ascii_lowercase().replace('-', "_") == wanted)
            .cloned()
            .unwrap_or(wanted);
        let field = suffix[1..].to_ascii_lowercase();
        let parsed = match kind {
            FieldType::Text => Value::String(value.to_owned()),
            FieldType::Path => {
                let p = Path::new(value);
                let p = if p.is_relative() {
                    dir.join(p)
                } else {
                    p.to_path_buf()
                };
                Value::String(p.to_string_lossy().into_owned())
            }
            FieldType::Integer => integer(var, value)?,
            FieldType::Bool => match value.trim().to_ascii_lowercase().as_str() {
                "1" | "true" | "yes" | "on" => Value::Boolean(true),
                "0" | "false" | "no" | "off" => Value::Boolean(false),
                _ => return Err(env_error(var, format!("`{value}` is not true or false"))),
            },
            FieldType::Words => {
                if value.trim_start().starts_with('[') {
                    let words: Vec<String> = serde_json::from_str(value)
                        .map_err(|e| env_error(var, format!("not a JSON array of strings: {e}")))?;
                    Value::Array(words.into_iter().map(Value::String).collect())
                } else {
                    Value::Array(
                        value
                            .split_whitespace()
                            .map(|w| Value::String(w.to_owned()))
                            .collect(),
                    )
                }
            }
        };
        set(merged, &["providers", &name, &field], parsed);
        if !applied.providers_touched.contains(&name) {
            applied.providers_touched.push(name);
        }
        applied.vars.push(var.to_owned());
    }
    Ok(applied)
}
