//! Configuration: which providers exist, which chains try them, and the budgets of `salve ask`.
//!
//! Three layers, weakest first, each overriding the one before key by key (tables are merged,
//! other values replaced):
//! 1. the user file, `$XDG_CONFIG_HOME/salve/config.toml`, else `$HOME/.config/salve/config.toml`;
//! 2. the repository file, `salve.toml` at the top of the work tree (the directory itself
//!    outside git), and any `salve.toml` in the directories between it and the directory salve
//!    works in, deeper ones stronger;
//! 3. `SALVE_*` environment variables ([`env`]).
//!
//! ```toml
//! [providers.local]             # the provider schema: salve_llm::spec::ProviderSpec
//! kind = "openai"
//! base_url = "http://127.0.0.1:11434/v1"
//! model = "qwen2.5-coder:7b"
//!
//! [chains]                      # default, fast, quality; fast and quality fall back to default
//! default = ["claude", "local"]
//!
//! [ask]
//! follow_ups = 1                # follow-ups after a refused edit, to the same provider
//!
//! [retry]                       # overloads and rate limits
//! max_retries = 2
//! base_delay_ms = 500
//! max_delay_secs = 30
//!
//! [mcp]                         # salve mcp: the checks an agent may run (see [`mcp`])
//! allowed_checks = [["cargo", "test"]]
//! check_timeout_secs = 600
//! ```
//!
//! `claude`, `codex` and `gemini` are always defined (their presets) unless a file defines them
//! otherwise. Without `[chains] default`, the default chain is every configured provider in the
//! order the files list them, or, with none configured, the agent CLIs found on PATH. A relative
//! `cassette` is taken from the directory of the file that names it. API keys are never part of
//! the configuration: `api_key_env` names the variable that holds one.

mod env;
pub mod mcp;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests_support;
pub mod trust;
#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod trust_tests;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use salve_llm::command::Preset;
use salve_llm::{Chain, Provider, ProviderSpec, RetryPolicy, SpecError};
use serde::Serialize;
use toml::{Table, Value};

pub use env::Env;
pub use mcp::McpConfig;
pub use trust::{Gated, Power, TrustStore};

/// The repository's configuration file, at the top of the work tree.
pub const REPO_FILE: &str = "salve.toml";
/// Follow-ups after a refused edit when the configuration does not say.
pub const DEFAULT_FOLLOW_UPS: u32 = 1;
/// The agent CLIs defined without configuration, in the order the default chain tries them.
pub const BUILTIN_PRESETS: [Preset; 3] = [Preset::Claude, Preset::Codex, Preset::Gemini];

/// Variables that commonly hold model API keys; their values are redacted whether or not a
/// provider names them.
pub const WELL_KNOWN_KEY_VARS: [&str; 5] = [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "CODEX_API_KEY",
];

/// `--model-hint`: which chain to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ModelHint {
    Fast,
    Quality,
}

/// Where a piece of configuration came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    User,
    Repository,
    Environment,
    Builtin,
}

/// A configuration layer that was looked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Source {
    pub kind: SourceKind,
    /// The file, for the file layers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// Whether the file exists (for the environment: whether any `SALVE_*` setting was used).
    pub found: bool,
    /// The environment variables that were applied.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vars: Vec<String>,
}

/// A provider definition and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProviderEntry {
    pub name: String,
    pub spec: ProviderSpec,
    pub origin: SourceKind,
}

/// The merged configuration.
#[derive(Clone, Debug, Serialize)]
pub struct Config {
    /// The top of the work tree (where `salve.toml` is looked for).
    pub root: PathBuf,
    /// Configured providers, in the order the layers list them (builtins not included).
    pub providers: Vec<ProviderEntry>,
    /// `[chains]` as configured: `default`, `fast`, `quality`.
    pub chains: BTreeMap<String, Vec<String>>,
    pub follow_ups: u32,
    #[serde(skip)]
    pub retry: RetryPolicy,
    /// `SALVE_PROVIDER`: use this provider alone instead of a chain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_override: Option<String>,
    pub sources: Vec<Source>,
    /// `[mcp]`: what `salve mcp` lets an agent run.
    pub mcp: McpConfig,
    /// Keys of the sections read here that were ignored (unknown chain names, unknown keys).
    /// Sections ignored because the user has not trusted them are in [`Config::gated`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The sections of repository files that need the user's trust ([`trust`]), trusted or not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gated: Vec<Gated>,
    /// Where the user's trust is kept, when there is a place for it.
    #[serde(skip)]
    pub trust_store: Option<TrustStore>,
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: {message}", path.display())]
    Parse { path: PathBuf, message: String },
    #[error("{message}")]
    Invalid { message: String },
    #[error("environment variable {var}: {message}")]
    Env { var: String, message: String },
    #[error("unknown provider `{name}` ({context})")]
    UnknownProvider { name: String, context: String },
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error("no provider is configured and no agent CLI (claude, codex, gemini) is on PATH")]
    NoProviders,
    /// The providers asked for are defined only by repository sections the user has not
    /// trusted.
    #[error("{}", untrusted_message(.sections))]
    Untrusted { sections: Vec<Gated> },
}

fn untrusted_message(sections: &[Gated]) -> String {
    let names: Vec<String> = sections
        .iter()
        .map(|g| format!("[{}] in {}", g.section, g.file.display()))
        .collect();
    format!(
        "no provider to ask: {} {} not trusted",
        names.join(", "),
        if names.len() == 1 { "is" } else { "are" }
    )
}

impl crate::error::Classified for ConfigError {
    fn kind(&self) -> crate::error::Kind {
        crate::error::Kind::Config
    }

    /// `untrusted_config` for sections the user has not trusted (a front end names its way to
    /// trust them), `bad_config` for the rest.
    fn code(&self) -> &'static str {
        match self {
            ConfigError::Untrusted { .. } => "untrusted_config",
            _ => "bad_config",
        }
    }

    /// What to do about it, in the configuration's own words (front ends add their commands).
    fn hint(&self) -> Option<String> {
        Some(match self {
            ConfigError::NoProviders | ConfigError::UnknownProvider { .. } => {
                "define providers in salve.toml or ~/.config/salve/config.toml \
                 ([providers.NAME] kind = ...)"
                    .to_owned()
            }
            ConfigError::Parse { .. } | ConfigError::Invalid { .. } | ConfigError::Spec(_) => {
                "see the provider schema in the README".to_owned()
            }
            ConfigError::Env { .. } => "unset the variable or fix its value".to_owned(),
            ConfigError::Untrusted { .. } => {
                "a repository's salve.toml may run programs and receive your API keys only \
                 once you have read the sections named and trusted them"
                    .to_owned()
            }
            ConfigError::Read { .. } => return None,
        })
    }
}

/// The user configuration file: `$XDG_CONFIG_HOME/salve/config.toml`, else
/// `$HOME/.config/salve/config.toml`.
pub fn user_file(env: &Env) -> Option<PathBuf> {
    Some(xdg_dir(env, "XDG_CONFIG_HOME", &[".config"])?.join("config.toml"))
}

/// salve's folder under an XDG base directory: `$VAR/salve` when `var` holds an absolute path,
/// else `$HOME/<fallback>/salve`; none without either.
pub(crate) fn xdg_dir(env: &Env, var: &str, fallback: &[&str]) -> Option<PathBuf> {
    let xdg = env.get(var).map(PathBuf::from).filter(|p| p.is_absolute());
    let base = xdg.or_else(|| {
        env.get("HOME").filter(|h| !h.is_empty()).map(|h| {
            fallback
                .iter()
                .fold(PathBuf::from(h), |p, part| p.join(part))
        })
    })?;
    Some(base.join("salve"))
}

/// The top of the work tree containing `dir`, or `dir` outside git.
pub fn repo_root(dir: &Path) -> PathBuf {
    salve_git::Repo::discover(dir)
        .map(|r| r.root)
        .unwrap_or_else(|_| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()))
}

impl Config {
    /// Load the configuration for work in `dir`, from the process environment.
    pub fn load(dir: &Path) -> Result<Config, ConfigError> {
        Config::load_with(dir, &Env::from_process())
    }

    /// Load the configuration for work in `dir`, reading variables from `env`.
    pub fn load_with(dir: &Path, env: &Env) -> Result<Config, ConfigError> {
        let root = repo_root(dir);
        let trust_store = TrustStore::locate(env);
        // Trust kept inside the work tree is the repository's word about itself: not honoured.
        let honoured = trust_store.as_ref().filter(|s| !s.inside(&root));
        let mut gated = Vec::new();
        let mut merged = Table::new();
        let mut sources = Vec::new();
        let mut origins: BTreeMap<String, SourceKind> = BTreeMap::new();
        let mut layers = vec![(SourceKind::User, user_file(env))];
        layers.extend(
            repo_files(&root, dir)
                .into_iter()
                .map(|p| (SourceKind::Repository, Some(p))),
        );
        for (kind, path) in layers {
            let Some(path) = path else { continue };
            let layer = read_layer(&path)?;
            if layer.is_none() && kind == SourceKind::Repository && path != root.join(REPO_FILE) {
                // Only the top file is listed when missing; deeper ones are optional extras.
                continue;
            }
            sources.push(Source {
                kind,
                path: Some(path.clone()),
                found: layer.is_some(),
                vars: Vec::new(),
            });
            if let Some(mut layer) = layer {
                let base = path.parent().unwrap_or(Path::new("."));
                absolutize_cassettes(&mut layer, base);
                if kind == SourceKind::Repository {
                    gated.extend(trust::gate(&mut layer, &path, honoured));
                }
                note_origins(&layer, kind, &mut origins);
                merge(&mut merged, layer);
            }
        }
        let applied = env::apply(&mut merged, env, dir)?;
        for name in &applied.providers_touched {
            origins.insert(name.clone(), SourceKind::Environment);
        }
        sources.push(Source {
            kind: SourceKind::Environment,
            path: None,
            found: !applied.vars.is_empty(),
            vars: applied.vars,
        });
        let dropped: BTreeSet<String> = gated
            .iter()
            .filter(|g| !g.trusted)
            .filter_map(|g| g.section.strip_prefix("providers."))
            .map(str::to_owned)
            .collect();
        let mut config = interpret(merged, &origins, &dropped)?;
        // Every key this configuration could use is redacted from everything salve prints or
        // records, even when its provider is not asked this time.
        let vars = config
            .providers
            .iter()
            .filter_map(|p| p.spec.key_env())
            .chain(WELL_KNOWN_KEY_VARS.iter().map(|v| (*v).to_owned()));
        for var in vars {
            if let Some(value) = env.get(&var) {
                salve_llm::secret::register(value.trim());
            }
        }
        config.root = root;
        config.sources = sources;
        config.provider_override = applied.provider;
        config.gated = gated;
        config.trust_store = trust_store;
        Ok(config)
    }

    /// A provider by name: configured, or one of the builtin agent CLIs.
    pub fn provider(&self, name: &str) -> Option<ProviderEntry> {
        if let Some(entry) = self.providers.iter().find(|p| p.name == name) {
            return Some(entry.clone());
        }
        Preset::from_name(name).map(|preset| ProviderEntry {
            name: name.to_owned(),
            spec: ProviderSpec::preset(preset),
            origin: SourceKind::Builtin,
        })
    }

    /// The untrusted repository sections that define providers (`name`'s alone, when given).
    pub fn untrusted_providers(&self, name: Option<&str>) -> Vec<Gated> {
        self.gated
            .iter()
            .filter(|g| !g.trusted)
            .filter(|g| match g.section.strip_prefix("providers.") {
                Some(n) => name.is_none_or(|wanted| wanted == n),
                None => false,
            })
            .cloned()
            .collect()
    }

    /// Notes for the sections ignored because the user has not trusted them.
    pub fn untrusted_notes(&self) -> Vec<String> {
        self.gated
            .iter()
            .filter(|g| !g.trusted)
            .map(Gated::note)
            .collect()
    }

    /// Every provider `salve doctor` should show: the configured ones, then the builtins not
    /// redefined.
    pub fn all_providers(&self) -> Vec<ProviderEntry> {
        let mut all = self.providers.clone();
        for preset in BUILTIN_PRESETS {
            if !all.iter().any(|p| p.name == preset.as_str()) {
                all.extend(self.provider(preset.as_str()));
            }
        }
        all
    }

    /// The chain for a model hint: its name and its providers' names. `fast` and `quality` fall
    /// back to `default`; an unset `default` is the configured providers, else the agent CLIs
    /// on `path` (the `PATH` variable).
    pub fn chain_names(
        &self,
        hint: Option<ModelHint>,
        path: Option<&str>,
    ) -> (String, Vec<String>) {
        let wanted = match hint {
            Some(ModelHint::Fast) => "fast",
            Some(ModelHint::Quality) => "quality",
            None => "default",
        };
        for name in [wanted, "default"] {
            if let Some(list) = self.chains.get(name) {
                return (name.to_owned(), list.clone());
            }
        }
        let names = if self.providers.is_empty() {
            BUILTIN_PRESETS
                .iter()
                .filter(|p| salve_llm::command::find_program(p.program(), path).is_some())
                .map(|p| p.as_str().to_owned())
                .collect()
        } else {
            self.providers.iter().map(|p| p.name.clone()).collect()
        };
        ("default".to_owned(), names)
    }

    /// Build the chain to ask: `provider` alone when given (or `SALVE_PROVIDER`), else the
    /// chain for `hint`. Command providers run in `work_dir`.
    pub fn build_chain(
        &self,
        hint: Option<ModelHint>,
        provider: Option<&str>,
        work_dir: &Path,
        path: Option<&str>,
    ) -> Result<Chain, ConfigError> {
        let (chain_name, names) = match provider.or(self.provider_override.as_deref()) {
            Some(name) => (format!("provider {name}"), vec![name.to_owned()]),
            None => self.chain_names(hint, path),
        };
        if names.is_empty() {
            let untrusted = self.untrusted_providers(None);
            return Err(if untrusted.is_empty() {
                ConfigError::NoProviders
            } else {
                ConfigError::Untrusted {
                    sections: untrusted,
                }
            });
        }
        let mut providers: Vec<Arc<dyn Provider>> = Vec::with_capacity(names.len());
        for name in &names {
            let Some(entry) = self.provider(name) else {
                let untrusted = self.untrusted_providers(Some(name));
                return Err(if untrusted.is_empty() {
                    ConfigError::UnknownProvider {
                        name: name.clone(),
                        context: format!("in chain `{chain_name}`"),
                    }
                } else {
                    ConfigError::Untrusted {
                        sections: untrusted,
                    }
                });
            };
            providers.push(entry.spec.build(name, &self.root, Some(work_dir))?);
        }
        Ok(Chain::new(chain_name, providers, self.retry))
    }
}

/// The repository files for work in `dir`: `salve.toml` at the top of the work tree, then in
/// each directory down to `dir` (a project kept in a subdirectory, like the bundled examples,
/// brings its own), weakest first.
fn repo_files(root: &Path, dir: &Path) -> Vec<PathBuf> {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut files = Vec::new();
    for ancestor in dir.ancestors() {
        files.push(ancestor.join(REPO_FILE));
        if ancestor == root {
            files.reverse();
            return files;
        }
    }
    // `dir` is not below the root (it is the root, spelled differently): just the root file.
    vec![root.join(REPO_FILE)]
}

fn read_layer(path: &Path) -> Result<Option<Table>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            })
        }
    };
    text.parse::<Table>()
        .map(Some)
        .map_err(|e| ConfigError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim().to_owned(),
        })
}

/// Make relative `cassette` paths absolute, from the directory of the file naming them.
fn absolutize_cassettes(layer: &mut Table, base: &Path) {
    let Some(Value::Table(providers)) = layer.get_mut("providers") else {
        return;
    };
    for (_, provider) in providers.iter_mut() {
        if let Some(Value::String(path)) = provider.get_mut("cassette") {
            if Path::new(path.as_str()).is_relative() {
                *path = base.join(path.as_str()).to_string_lossy().into_owned();
            }
        }
    }
}

/// Remember which layer last touched each provider.
fn note_origins(layer: &Table, kind: SourceKind, origins: &mut BTreeMap<String, SourceKind>) {
    if let Some(Value::Table(providers)) = layer.get("providers") {
        for name in providers.keys() {
            origins.insert(name.clone(), kind);
        }
    }
}

/// Merge `from` into `into`: tables key by key, everything else replaced.
fn merge(into: &mut Table, from: Table) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(Value::Table(old)), Value::Table(new)) => merge(old, new),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

fn as_table<'a>(value: &'a Value, what: &str) -> Result<&'a Table, ConfigError> {
    value.as_table().ok_or_else(|| ConfigError::Invalid {
        message: format!("`{what}` must be a table"),
    })
}

fn as_u64(value: &Value, what: &str) -> Result<u64, ConfigError> {
    value
        .as_integer()
        .and_then(|i| u64::try_from(i).ok())
        .ok_or_else(|| ConfigError::Invalid {
            message: format!("`{what}` must be a non-negative integer"),
        })
}

/// Turn the merged table into a [`Config`].
/// `dropped` names providers whose repository definition was taken out because the user has not
/// trusted it: chains leave them out (the note says why) rather than fail on an unknown name.
fn interpret(
    merged: Table,
    origins: &BTreeMap<String, SourceKind>,
    dropped: &BTreeSet<String>,
) -> Result<Config, ConfigError> {
    let mut config = Config {
        root: PathBuf::new(),
        providers: Vec::new(),
        chains: BTreeMap::new(),
        follow_ups: DEFAULT_FOLLOW_UPS,
        retry: RetryPolicy::default(),
        provider_override: None,
        sources: Vec::new(),
        mcp: McpConfig::default(),
        warnings: Vec::new(),
        gated: Vec::new(),
        trust_store: None,
    };
    for (key, value) in &merged {
        match key.as_str() {
            "providers" => {
                for (name, spec) in as_table(value, "providers")? {
                    let spec: ProviderSpec =
                        spec.clone().try_into().map_err(|e: toml::de::Error| {
                            ConfigError::Invalid {
                                message: format!("provider `{name}`: {}", e.to_string().trim()),
                            }
                        })?;
                    config.providers.push(ProviderEntry {
                        name: name.clone(),
                        spec,
                        origin: origins.get(name).copied().unwrap_or(SourceKind::User),
                    });
                }
            }
            "chains" => {
                for (name, list) in as_table(value, "chains")? {
                    if !matches!(name.as_str(), "default" | "fast" | "quality") {
                        config.warnings.push(format!(
                            "[chains] {name} is ignored: the chains are default, fast and quality"
                        ));
                        continue;
                    }
                    let names: Option<Vec<String>> = list
                        .as_array()
                        .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect());
                    let names = names.ok_or_else(|| ConfigError::Invalid {
                        message: format!("[chains] {name} must be a list of provider names"),
                    })?;
                    config.chains.insert(name.clone(), names);
                }
            }
            "ask" => {
                for (k, v) in as_table(value, "ask")? {
                    match k.as_str() {
                        "follow_ups" => {
                            config.follow_ups =
                                u32::try_from(as_u64(v, "ask.follow_ups")?).unwrap_or(u32::MAX)
                        }
                        _ => config.warnings.push(format!("[ask] {k} is ignored")),
                    }
                }
            }
            "retry" => {
                for (k, v) in as_table(value, "retry")? {
                    let n = as_u64(v, &format!("retry.{k}"))?;
                    match k.as_str() {
                        "max_retries" => {
                            config.retry.max_retries = u32::try_from(n).unwrap_or(u32::MAX)
                        }
                        "base_delay_ms" => config.retry.base_delay = Duration::from_millis(n),
                        "max_delay_secs" => config.retry.max_delay = Duration::from_secs(n),
                        _ => config.warnings.push(format!("[retry] {k} is ignored")),
                    }
                }
            }
            "mcp" => config.mcp = mcp::read(value, &mut config.warnings)?,
            // Sections other commands own are read by them.
            _ => {}
        }
    }
    let defined = |config: &Config, n: &str| {
        config.providers.iter().any(|p| p.name == n) || Preset::from_name(n).is_some()
    };
    let chains = std::mem::take(&mut config.chains);
    for (chain, mut names) in chains {
        names.retain(|n| defined(&config, n) || !dropped.contains(n));
        config.chains.insert(chain, names);
    }
    for (chain, names) in &config.chains {
        if let Some(unknown) = names.iter().find(|n| !defined(&config, n)) {
            return Err(ConfigError::UnknownProvider {
                name: unknown.clone(),
                context: format!("listed in [chains] {chain}"),
            });
        }
    }
    Ok(config)
}
