//! Trust: the parts of a repository's `salve.toml` that would widen what salve does, and the
//! user's record of which of them they allowed.
//!
//! A repository file is written by whoever wrote the repository (or by an agent editing it
//! through `salve mcp`), not by the user. So the sections of it that run a program, say where
//! requests and the user's keys go, or widen what an agent may run are *gated*: they are obeyed
//! only when the user has trusted that exact content. The gated sections are:
//!
//! | section | gated when it sets | because it |
//! |---|---|---|
//! | `[providers.NAME]` | `command`, `preset`, or `kind = "command"` | runs a program |
//! | `[providers.NAME]` | `base_url` or `api_key_env` | says where requests go and which key they carry |
//! | `[mcp] allowed_checks` | (always) | lets an agent run commands |
//!
//! Everything else a repository file says stays in force: choosing among providers the user
//! defined (`[chains]`), replay cassettes, models, time limits, `[ask]`, `[retry]`,
//! `[mcp] check_timeout_secs`.
//!
//! A section is trusted by a digest of the file's path, the section's name and its content
//! (comments and layout aside), kept outside the tree in the user's data directory
//! (`$XDG_DATA_HOME/salve/trust/`, else `~/.local/share/salve/trust/`), one file per digest, as
//! direnv keeps its allow list. A changed section has a new digest, so it is ignored again until
//! it is trusted again; sections that did not change stay trusted.

use std::path::{Path, PathBuf};

use serde::Serialize;
use toml::{Table, Value};

use super::env::Env;

/// What a gated section would let the repository do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Power {
    /// A command provider: runs a program.
    RunsProgram,
    /// An HTTP provider's endpoint or key variable: where the user's requests and keys go.
    SendsKeys,
    /// `[mcp] allowed_checks`: commands an agent may run.
    AllowsChecks,
}

impl Power {
    /// The power in a few words, for notes.
    pub fn describe(self) -> &'static str {
        match self {
            Power::RunsProgram => "runs a program",
            Power::SendsKeys => "chooses where requests and your API keys are sent",
            Power::AllowsChecks => "lets an agent run commands",
        }
    }
}

/// One gated section of one repository file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gated {
    /// The repository file, as an absolute path.
    pub file: PathBuf,
    /// `providers.NAME` or `mcp.allowed_checks`.
    pub section: String,
    /// The keys that make it gated, in the file's order.
    pub keys: Vec<String>,
    pub power: Power,
    /// Whether the user trusted this exact content.
    pub trusted: bool,
    /// The digest trust is kept under.
    pub digest: String,
    /// The section's content, as the file has it.
    pub content: serde_json::Value,
}

impl Gated {
    /// A one-line note for a section that is ignored.
    pub fn note(&self) -> String {
        format!(
            "[{}] in {} is ignored until you trust it: it {} ({})",
            self.section,
            self.file.display(),
            self.power.describe(),
            self.keys
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Find the gated sections of one repository `layer` read from `file`, marking which are
/// trusted in `store`; the untrusted ones are taken out of the layer.
pub(crate) fn gate(layer: &mut Table, file: &Path, store: Option<&TrustStore>) -> Vec<Gated> {
    let mut found = Vec::new();
    if let Some(Value::Table(providers)) = layer.get_mut("providers") {
        let names: Vec<String> = providers.keys().cloned().collect();
        for name in names {
            let Some(Value::Table(table)) = providers.get(&name) else {
                continue;
            };
            let Some((power, keys)) = provider_powers(table) else {
                continue;
            };
            let gated = section(
                file,
                format!("providers.{name}"),
                keys,
                power,
                &Value::Table(table.clone()),
                store,
            );
            if !gated.trusted {
                providers.remove(&name);
            }
            found.push(gated);
        }
    }
    if let Some(Value::Table(mcp)) = layer.get_mut("mcp") {
        if let Some(checks) = mcp.get("allowed_checks") {
            let gated = section(
                file,
                "mcp.allowed_checks".to_owned(),
                vec!["allowed_checks".to_owned()],
                Power::AllowsChecks,
                checks,
                store,
            );
            if !gated.trusted {
                mcp.remove("allowed_checks");
            }
            found.push(gated);
        }
    }
    found
}

/// The keys of a provider table that make it gated, and the strongest power they give.
fn provider_powers(table: &Table) -> Option<(Power, Vec<String>)> {
    let runs = |key: &str, value: &Value| {
        matches!(key, "command" | "preset") || (key == "kind" && value.as_str() == Some("command"))
    };
    let sends = |key: &str| matches!(key, "base_url" | "api_key_env");
    let keys: Vec<String> = table
        .iter()
        .filter(|(k, v)| runs(k, v) || sends(k))
        .map(|(k, _)| k.clone())
        .collect();
    if keys.is_empty() {
        return None;
    }
    let power = if table.iter().any(|(k, v)| runs(k, v)) {
        Power::RunsProgram
    } else {
        Power::SendsKeys
    };
    Some((power, keys))
}

fn section(
    file: &Path,
    section: String,
    keys: Vec<String>,
    power: Power,
    value: &Value,
    store: Option<&TrustStore>,
) -> Gated {
    let content = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
    let digest = digest(file, &section, &content);
    Gated {
        file: file.to_path_buf(),
        trusted: store.is_some_and(|s| s.holds(&digest)),
        section,
        keys,
        power,
        digest,
        content,
    }
}

/// The digest of a section: its file, its name and its content (serde_json writes maps in key
/// order, so the same content always gives the same text).
fn digest(file: &Path, section: &str, content: &serde_json::Value) -> String {
    let text = format!(
        "salve-trust-v1\n{}\n{section}\n{content}",
        file.to_string_lossy()
    );
    salve_store::objects::sha256_hex(text.as_bytes())
}

/// Where the user's trust is kept: one file per trusted digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustStore {
    pub dir: PathBuf,
}

/// What a trust file holds, so a person can read what they allowed.
#[derive(Debug, Serialize, serde::Deserialize)]
struct Entry {
    file: PathBuf,
    section: String,
    content: serde_json::Value,
}

impl TrustStore {
    /// `$XDG_DATA_HOME/salve/trust`, else `$HOME/.local/share/salve/trust`; none without either.
    pub fn locate(env: &Env) -> Option<TrustStore> {
        Some(TrustStore {
            dir: super::xdg_dir(env, "XDG_DATA_HOME", &[".local", "share"])?.join("trust"),
        })
    }

    /// Whether the store lies inside the work tree at `root` (a home directory kept in git):
    /// a repository would then carry its own trust, and an edit could grant it.
    pub fn inside(&self, root: &Path) -> bool {
        let root = crate::paths::canonical_prefix(root);
        crate::paths::canonical_prefix(&self.dir).starts_with(root)
    }

    fn holds(&self, digest: &str) -> bool {
        self.dir.join(digest).is_file()
    }

    /// Trust one section: write its entry (temp file and rename, so a reader never sees half).
    pub fn add(&self, gated: &Gated) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let entry = Entry {
            file: gated.file.clone(),
            section: gated.section.clone(),
            content: gated.content.clone(),
        };
        let text = serde_json::to_string_pretty(&entry).map_err(std::io::Error::other)?;
        let mut tmp = tempfile::NamedTempFile::new_in(&self.dir)?;
        std::io::Write::write_all(&mut tmp, format!("{text}\n").as_bytes())?;
        tmp.persist(self.dir.join(&gated.digest))
            .map_err(|e| e.error)?;
        Ok(())
    }

    /// Take back the trust given to any content of `file`'s sections, old or current. Returns
    /// how many entries were removed.
    pub fn revoke_file(&self, file: &Path) -> std::io::Result<usize> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let mut removed = 0;
        for entry in entries {
            let path = entry?.path();
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let Ok(entry) = serde_json::from_str::<Entry>(&text) else {
                continue;
            };
            if entry.file == file {
                std::fs::remove_file(&path)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}
