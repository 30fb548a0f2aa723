//! Pinned rules: TOML files in `.salve/rules/<name>.toml` of the repository, reviewed like code.
//! The schema is in the parent module's docs; [`read_dir`] loads them all, [`write`] writes one.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{rule_id, Error, FailurePattern, Origin, Rule};

/// Where pinned rules live, relative to the work tree.
pub const RULES_DIR: &str = ".salve/rules";

/// The file as written and read. Everything but the pattern and the edit is optional, so a
/// person can write a rule by hand.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    confidence: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    created: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    updated: Option<String>,
    pattern: FailurePattern,
    edit: Edit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stats: Option<Stats>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Edit {
    template: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stats {
    hits: u32,
    successes: u32,
    failures: u32,
}

const HEADER: &str = "# A salve repair rule, pinned: salve's fix loop replays its edit without a model when a\n\
                      # failure matches [pattern], and verifies it like any repair. Reviewed like code.\n\n";

/// A valid rule name: what can be a file name everywhere.
pub(crate) fn check_name(name: &str) -> Result<(), Error> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && !name.starts_with(['.', '-'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if ok {
        Ok(())
    } else {
        Err(Error::BadName(name.to_owned()))
    }
}

pub(crate) fn path_of(root: &Path, name: &str) -> PathBuf {
    root.join(RULES_DIR).join(format!("{name}.toml"))
}

/// Every `*.toml` in the rules directory, by name. A file that does not parse fails the load:
/// a broken pinned rule must not be skipped quietly in production.
pub(crate) fn read_dir(root: &Path) -> Result<Vec<Rule>, Error> {
    let dir = root.join(RULES_DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading {}", dir.display()), e)),
    };
    let mut rules = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| Error::io(format!("reading {}", dir.display()), e))?
            .path();
        if path.extension().and_then(|e| e.to_str()) == Some("toml") {
            rules.push(read(&path)?);
        }
    }
    rules.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(rules)
}

fn read(path: &Path) -> Result<Rule, Error> {
    let bad = |message: String| Error::BadRuleFile {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let file: File = toml::from_str(&text).map_err(|e| bad(e.message().to_owned()))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let confidence = file.confidence.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&confidence) {
        return Err(bad(format!(
            "confidence {confidence} is not between 0 and 1"
        )));
    }
    // The message is matched normalized; a hand-written one may not be.
    let pattern = FailurePattern {
        message: super::normalize(&file.pattern.message),
        ..file.pattern
    };
    let stats = file.stats.unwrap_or(Stats {
        hits: 0,
        successes: 0,
        failures: 0,
    });
    Ok(Rule {
        id: file
            .id
            .unwrap_or_else(|| rule_id(&pattern, &file.edit.template)),
        name: Some(name),
        origin: Origin::Pinned,
        pattern,
        template: file.edit.template,
        confidence,
        hits: stats.hits,
        successes: stats.successes,
        failures: stats.failures,
        retired: false,
        created: file.created,
        updated: file.updated,
    })
}

/// Write `rule` as `<root>/.salve/rules/<name>.toml`, refusing to overwrite a file.
pub(crate) fn write(root: &Path, name: &str, rule: &Rule) -> Result<PathBuf, Error> {
    check_name(name)?;
    let path = path_of(root, name);
    if path.exists() {
        return Err(Error::NameTaken(path));
    }
    let file = File {
        id: Some(rule.id.clone()),
        confidence: Some(rule.confidence),
        created: rule.created.clone(),
        updated: rule.updated.clone(),
        pattern: rule.pattern.clone(),
        edit: Edit {
            template: rule.template.clone(),
        },
        stats: Some(Stats {
            hits: rule.hits,
            successes: rule.successes,
            failures: rule.failures,
        }),
    };
    let body = toml::to_string(&file).map_err(|e| Error::BadRuleFile {
        path: path.clone(),
        message: e.to_string(),
    })?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Error::io(format!("creating {}", parent.display()), e))?;
    }
    std::fs::write(&path, format!("{HEADER}{body}"))
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    Ok(path)
}
